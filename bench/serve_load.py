"""Load a tavli-serve on this machine and print its figures (docs/serve.md keeps them).

    python bench/serve_load.py                    # starts its own tavli-serve on a free port
    python bench/serve_load.py --seconds 10 --clients 20 --json

Four parts, each bounded in count and time, all traffic to a loopback address:

1. ``--clients`` concurrent clients (default 50) ask ``POST /v1/hint`` at 0 ply for
   ``--seconds`` (default 30), each on its own keep-alive connection, cycling through the 21
   opening rolls: requests a second, latency p50 / p99 / max, errors.
2. ``--jobs`` rollout jobs (default 20) started and cancelled in a loop: the time from DELETE
   to its answer (the job stopped, its partial result kept), the server's resident memory
   after each, and its worker processes left once all are cancelled (none expected).
3. One rollout's event stream for a few seconds: the progress events a second.
4. 60 bad requests across the endpoints: how many got a 4xx with a JSON ``{"error": ...}``.

Targets (issue 52): hint p99 under 50 ms with 50 clients and no error; cancel under 1 s;
at least one progress event a second; every bad request a 4xx JSON error. The client runs on
the same machine as the server and shares its cores: the figures are the pair's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

ROLLS = [f"{a}{b}" for a in range(1, 7) for b in range(1, a + 1)]  # the 21 rolls
LONG = {"position": "start", "player": "pubeval", "trials": 10**8, "chunk_size": 1000}


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen, str, int]:
    """A tavli-serve on 127.0.0.1 and a free port: (process, host, port)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tavli_fast.serve.main", "--port", "0", "--jobs", str(args.workers),
         "--max-running", "4", *args.server_args.split()], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        found = re.search(r"serving on http://([\d.]+):(\d+)/", line)
        if found:
            return process, found.group(1), int(found.group(2))
        if not line and process.poll() is not None:
            break
    process.kill()
    raise SystemExit("tavli-serve did not start")


def request(conn: http.client.HTTPConnection, method: str, path: str,
            body: Any = None, raw: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {"Content-Type": "application/json"} if data is not None else {}
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user and system), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- 1. hint under load

def hint_load(host: str, port: int, clients: int, seconds: float, pid: int) -> dict[str, Any]:
    warm = http.client.HTTPConnection(host, port, timeout=120)
    request(warm, "POST", "/v1/hint", {"position": "start", "dice": "31", "ply": 0})
    warm.close()
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds
    start = threading.Barrier(clients)

    def client(k: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        mine, i = [], k
        start.wait()
        while time.monotonic() < stop_at:
            body = {"position": "start", "dice": ROLLS[i % len(ROLLS)], "ply": 0}
            i += 1
            t = time.perf_counter()
            try:
                status, _, data = request(conn, "POST", "/v1/hint", body)
                ok = status == 200 and b'"plays"' in data
            except (OSError, http.client.HTTPException) as e:
                ok, status = False, repr(e)
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=30)
            mine.append(time.perf_counter() - t)
            if not ok:
                with lock:
                    errors.append(str(status))
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    load = os.getloadavg()[0]
    server_cpu, own_cpu = cpu_s(pid), time.process_time()
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - began
    server_cpu, own_cpu = cpu_s(pid) - server_cpu, time.process_time() - own_cpu
    ms = [1000 * x for x in latencies]
    return {"clients": clients, "seconds": round(took, 1), "requests": len(ms),
            "per_second": round(len(ms) / took, 1), "p50_ms": round(percentile(ms, 0.5), 1),
            "p99_ms": round(percentile(ms, 0.99), 1), "max_ms": round(max(ms), 1),
            "errors": len(errors), "load_average_before": round(load, 2),
            "server_cpu_ms_a_request": round(1000 * server_cpu / max(1, len(ms)), 3),
            "clients_cpu_ms_a_request": round(1000 * own_cpu / max(1, len(ms)), 3)}


# ---------------------------------------------------------------- 2. jobs started and cancelled

def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS")).split()[1])


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if fields[0] != "Z":
                    children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def cancel_loop(host: str, port: int, pid: int, jobs: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    cancels, memory, partial = [], [], []
    for k in range(jobs):
        status, _, data = request(conn, "POST", "/v1/rollouts", {**LONG, "seed": k})
        assert status == 202, data
        job = json.loads(data)["id"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _, _, data = request(conn, "GET", f"/v1/rollouts/{job}")
            if (json.loads(data)["progress"] or {}).get("trials_done"):
                break   # it is playing: its workers have started
            time.sleep(0.05)
        t = time.perf_counter()
        _, _, data = request(conn, "DELETE", f"/v1/rollouts/{job}")
        cancels.append(time.perf_counter() - t)
        doc = json.loads(data)
        partial.append(doc["status"] == "cancelled" and doc["result"]["interrupted"])
        memory.append(rss_kib(pid))
    time.sleep(1.0)
    left = descendants(pid)
    conn.close()
    return {"jobs": jobs, "cancel_median_s": round(statistics.median(cancels), 3),
            "cancel_max_s": round(max(cancels), 3), "partial_results_kept": sum(partial),
            "rss_mib_first": round(memory[0] / 1024, 1), "rss_mib_last": round(memory[-1] / 1024, 1),
            "rss_mib_max": round(max(memory) / 1024, 1), "processes_left": len(left)}


# ---------------------------------------------------------------- 3. progress events

def event_rate(host: str, port: int, seconds: float) -> dict[str, Any]:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    _, _, data = request(conn, "POST", "/v1/rollouts", {**LONG, "seed": 99})
    job = json.loads(data)["id"]
    stream = http.client.HTTPConnection(host, port, timeout=60)
    stream.request("GET", f"/v1/rollouts/{job}/events")
    r = stream.getresponse()
    times: list[float] = []
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        line = r.fp.readline()
        if not line:
            break
        if line.startswith(b"event: progress"):
            times.append(time.monotonic())
    conn.close()      # idle past the server's keep-alive: a new connection
    conn = http.client.HTTPConnection(host, port, timeout=60)
    request(conn, "DELETE", f"/v1/rollouts/{job}")
    stream.close()
    conn.close()
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {"seconds": seconds, "progress_events": len(times),
            "per_second": round(len(times) / seconds, 2),
            "longest_gap_s": round(max(gaps), 2) if gaps else None}


# ---------------------------------------------------------------- 4. bad requests

def bad_requests(host: str, port: int) -> dict[str, Any]:
    bodies = [
        ("POST", "/v1/eval", {"position": "nonsense"}), ("POST", "/v1/eval", {}),
        ("POST", "/v1/eval", {"position": 7}), ("POST", "/v1/eval", {"position": "start", "x": 1}),
        ("POST", "/v1/eval", {"position": "start", "rules": "chess"}),
        ("POST", "/v1/eval", {"position": "4HPwATDgc/ABMA", "game": "plakoto"}),
        ("POST", "/v1/hint", {"position": "start", "dice": "71"}),
        ("POST", "/v1/hint", {"position": "start", "dice": "3"}),
        ("POST", "/v1/hint", {"position": "start", "dice": [1, 2, 3]}),
        ("POST", "/v1/hint", {"position": "start", "dice": "31", "top": -2}),
        ("POST", "/v1/hint", {"position": "start", "dice": "31", "ply": 5}),
        ("POST", "/v1/hint", {"position": "start", "game": "fevga"}),
        ("POST", "/v1/rollouts", {"position": "start", "trials": 0}),
        ("POST", "/v1/rollouts", {"position": "start", "trials": -5}),
        ("POST", "/v1/rollouts", {"position": "start", "trials": 1.5}),
        ("POST", "/v1/rollouts", {"position": "start", "trials": 10**12}),
        ("POST", "/v1/rollouts", {"position": "start", "players": "nobody"}),
        ("POST", "/v1/rollouts", {"position": "start", "players": "a,b,c"}),
        ("POST", "/v1/rollouts", {"position": "bogus"}),
        ("POST", "/v1/rollouts", {"position": "start", "seed": -1}),
        ("POST", "/v1/rollouts", {"position": "start", "dice": "99"}),
        ("POST", "/v1/rollouts", {"position": "start", "dice": "31", "target_se": 0.1}),
        ("POST", "/v1/rollouts", {"position": "start", "checkpoint": "x.json"}),
        ("POST", "/v1/rollouts", {"position": "start", "weights": "x.npz"}),
        ("POST", "/v1/rollouts", {"position": "start", "ply": 7}),
        ("POST", "/v1/rollouts", {"position": "start", "cubeful": "maybe"}),
        ("GET", "/v1/rollouts/unknown", None), ("DELETE", "/v1/rollouts/unknown", None),
        ("GET", "/v1/rollouts/unknown/events", None), ("GET", "/v1/nothing", None),
        ("PUT", "/v1/eval", None), ("GET", "/v1/hint", None), ("PATCH", "/v1/rollouts", None),
        ("POST", "/v1/health", None), ("DELETE", "/v1/eval", None),
        ("POST", "/v1/rollouts", {"position": "start", "candidates": 0, "dice": "31"}),
        ("POST", "/v1/rollouts", {"position": "start", "dice": "31", "plays": "25/1"}),
        ("POST", "/v1/rollouts", {"position": "start", "rules": "plakoto", "cubeful": True}),
        ("POST", "/v1/rollouts", {"position": "start", "chunk_size": 0}),
    ]
    raws = [b"{not json", b"[]", b"null", b"\xff\xfe", b'{"position": ', b"1", b'"start"']
    cases: list[tuple[str, str, Any, bytes | None]] = [(m, p, b, None) for m, p, b in bodies]
    cases += [("POST", path, None, raw) for raw in raws for path in ("/v1/eval", "/v1/hint", "/v1/rollouts")]
    cases += [("POST", "/v1/eval", None, b'{"position": "' + b"x" * 70_000 + b'"}')]
    cases = cases[:60]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    good, bad = 0, []
    for method, path, body, raw in cases:
        try:
            status, headers, data = request(conn, method, path, body, raw)
            ok = (400 <= status < 500 and headers.get("content-type", "").startswith("application/json")
                  and "error" in json.loads(data) and "\n" not in json.loads(data)["error"])
        except (OSError, http.client.HTTPException, ValueError) as e:
            ok, status = False, repr(e)
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=30)
        good += ok
        if not ok:
            bad.append(f"{method} {path} {body or raw!r}: {status}")
    conn.close()
    return {"requests": len(cases), "4xx_json": good, "other": bad}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--jobs", type=int, default=20, help="rollout jobs started and cancelled")
    p.add_argument("--workers", type=int, default=2, help="worker processes a rollout job")
    p.add_argument("--parts", default="hint,cancel,events,bad",
                   help="which parts to run, comma-separated (default all four)")
    p.add_argument("--server-args", default="", metavar="ARGS",
                   help="more tavli-serve options, e.g. '--cache-mib 0' (no cache of answers)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    args = p.parse_args(argv)
    process, host, port = start_server(args)
    try:
        figures = {}
        parts = args.parts.split(",")
        for key, name, part in (
                ("hint", "hint_0ply", lambda: hint_load(host, port, args.clients, args.seconds,
                                                        process.pid)),
                ("cancel", "cancel_loop", lambda: cancel_loop(host, port, process.pid, args.jobs)),
                ("events", "progress_events", lambda: event_rate(host, port, 5.0)),
                ("bad", "bad_requests", lambda: bad_requests(host, port))):
            if key not in parts:
                continue
            figures[name] = part()
            print(f"{name}: {figures[name]}", file=sys.stderr, flush=True)
    finally:
        process.terminate()
        stopped = process.wait(30)
    figures["server_exit_status"] = stopped
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for part, values in figures.items():
            print(f"{part}: {values}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
