"""``tavli-rollout`` run as a user runs it: a subprocess (``python -m tavli_fast``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tavli_fast.api import read_checkpoint, rollout

CMD = [sys.executable, "-m", "tavli_fast"]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=timeout)


def test_human_output_has_board_table_and_seed():
    p = run("--trials", "500", "--seed", "42", "--jobs", "1", "--player", "pubeval")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "4HPwATDgc/ABMA" in out and "BAR" in out  # the board is drawn
    assert "95% CI" in out and "equity" in out and "seed 42" in out
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("trials", ["1e3", "1_000", "1000"])
def test_trials_accept_every_spelling(trials):
    p = run("--trials", trials, "--seed", "7", "--json", "-j", "1", "--players", "random,pubeval")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["trials"] == 1000 and doc["seed"] == 7 and doc["players"] == ["random", "pubeval"]
    # The same request through the API gives the same numbers.
    api = rollout("start", 1000, players=("random", "pubeval"), seed=7, jobs=1)
    assert doc["equity"] == api.equity and doc["win"] == api.win


def test_json_document_and_echoed_random_seed():
    p = run("--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--no-candidates",
            "--trials", "400", "--json", "-j", "2", "--rules", "portes", "--no-stratify")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    for key in ("position_id", "players", "trials", "seed", "jobs", "win", "win_gammon",
                "win_backgammon", "lose_gammon", "lose_backgammon", "equity", "se",
                "mean_plies", "elapsed_s", "games_per_second"):
        assert key in doc
    assert isinstance(doc["seed"], int)  # drawn at random, reported
    assert doc["first_roll"] == [3, 1] and doc["rules"] == "portes" and not doc["stratified"]
    assert doc["win_backgammon"] == 0 and doc["lose_backgammon"] == 0  # portes: no backgammons
    assert doc["jobs"] == 2
    assert p.stderr == ""  # no progress bar when --json (and stderr is not a terminal)


def test_version_says_whether_the_compiled_core_is_used():
    p = run("--version")
    assert p.returncode == 0
    assert "tavli_fast" in p.stdout and "compiled core: yes" in p.stdout


def test_console_script_is_the_same_command():
    # Installed beside the interpreter that runs the tests (the venv's bin/), or on PATH.
    exe = shutil.which("tavli-rollout", path=os.path.dirname(sys.executable)) or shutil.which(
        "tavli-rollout"
    )
    assert exe is not None, "the tavli-rollout console script is not installed"
    p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "compiled core" in p.stdout


BAD_INPUTS = {
    "trials zero": ["--trials", "0"],
    "trials negative": ["--trials=-5"],
    "trials not a number": ["--trials", "lots"],
    "trials not whole": ["--trials", "1.5"],
    "malformed id": ["--position", "hello"],
    "malformed base64 id": ["--position", "4HPwATDgc/AB!A"],
    "impossible position id": ["--position", "////////////AA"],
    "impossible xgid": ["--position", "XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10"],
    "bad xgid dice": ["--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10"],
    "unknown player": ["--player", "gnubg"],
    "unknown player in pair": ["--players", "random,nobody"],
    "one player in --players": ["--players", "random"],
    "both --player and --players": ["--player", "random", "--players", "random,random"],
    "jobs zero": ["--jobs", "0"],
    "jobs not a number": ["-j", "two"],
    "unknown rules": ["--rules", "chess"],
    "negative target se": ["--target-se", "-0.1"],
    "negative seed": ["--seed=-1"],
    "missing resume file": ["--resume", "/nonexistent/run.json"],
    "checkpoint in a missing directory": ["--checkpoint", "/nonexistent/dir/run.json"],
    "unknown option": ["--frobnicate"],
    "missing weights file": ["--weights", "/nonexistent/net.npz"],
    "weights file that is not one": ["--weights", __file__],
    "weights for players without a net": ["--player", "pubeval", "--no-vr", "--weights", __file__],
}


@pytest.mark.parametrize("args", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_one_line_exit_2_no_traceback(args):
    p = run(*args, "--trials", "10") if "--trials" not in " ".join(args) else run(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("tavli-rollout: error: ")
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_resume_of_a_file_that_is_not_a_checkpoint(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2")
    p = run("--resume", str(bad))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def _descendants(pid: int) -> set[int]:
    """The live processes below `pid` (Linux /proc), zombies left out."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_prints_partial_result_exits_130_and_resume_completes(tmp_path, sig):
    """Ctrl-C, and SIGTERM (kill, timeout, a batch scheduler) the same way: the partial
    result, the checkpoint, and no worker process left behind."""
    path = tmp_path / "run.json"
    args = ["--trials", "24000", "--chunk-size", "1000", "--seed", "99", "--player", "pubeval",
            "-j", "2", "--json", "--checkpoint", str(path)]
    # Ctrl-C as at a terminal, however the tests were started: a shell that runs them in the
    # background without job control (`(pytest &)`, nohup) leaves SIGINT ignored, and a
    # program started so keeps ignoring it, as it should.
    proc = subprocess.Popen([*CMD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not path.exists():  # the first completed chunk is saved at once
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        workers = _descendants(proc.pid) if Path("/proc").is_dir() else set()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    deadline = time.monotonic() + 20
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], "worker processes outlived the run"
    doc = json.loads(out)
    assert doc["interrupted"] is True
    assert 0 < doc["trials"] < 24000
    assert doc["se"]["equity"] > 0
    assert f"--resume {path}" in err
    # The checkpoint holds the whole chunks; the result adds the games of the chunks cut short
    # (at most one a unit in flight: two a worker), which the resume plays again.
    saved = read_checkpoint(path)["chunks"].values()
    assert all(v[0] == 1000 for v in saved)
    whole = sum(v[0] for v in saved)
    assert whole <= doc["trials"] < whole + 4 * 1000

    p = run("--resume", str(path), "--json", "-j", "2")
    assert p.returncode == 0, p.stderr
    resumed = json.loads(p.stdout)
    assert resumed["trials"] == 24000 and not resumed["interrupted"]
    assert resumed["resumed_trials"] == whole
    full = rollout("start", 24000, players="pubeval", seed=99, chunk_size=1000, jobs=2)
    assert resumed["counts"]["win_single"] == full.counts[0]
    assert resumed["equity"] == full.equity and resumed["mean_plies"] == full.mean_plies


def test_no_progress_bar_when_stderr_is_not_a_terminal():
    p = run("--trials", "300", "-j", "1")
    assert p.returncode == 0 and p.stderr == ""


def test_verbose_logs_go_to_stderr_including_worker_records():
    p = run("--trials", "2000", "--chunk-size", "1000", "-j", "2", "-vv", "--no-progress")
    assert p.returncode == 0, p.stderr
    chunk_lines = [line for line in p.stderr.splitlines() if "games in" in line]
    assert len(chunk_lines) == 2
    assert all(f"pid {os.getpid()}" not in line for line in chunk_lines)


def test_target_se_stops_early():
    p = run("--trials", "1e5", "--target-se", "0.05", "--chunk-size", "1000", "-j", "1",
            "--seed", "3", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["target_reached"] and doc["trials"] < 100_000 and doc["se"]["equity"] < 0.05
    assert doc["trials"] >= 1296  # the default minimum before the rule may stop


def test_progress_bar_on_a_terminal():
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 24 x 120
    # tqdm redraws at most every 0.1 s but always draws the last state (with the postfix).
    proc = subprocess.Popen([*CMD, "--trials", "4000", "--chunk-size", "500", "-j", "1",
                             "--player", "random"],
                            stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out, _ = proc.communicate(timeout=60)
    os.close(master)
    bar = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0
    assert "games" in bar and "equity" in bar  # tqdm bar with the running equity +- SE
    assert "95% CI" in out  # the result itself goes to stdout


@pytest.mark.parametrize("module, args", [
    ("tavli_fast", ["--trials", "100", "--seed", "1", "-j", "1", "--player", "pubeval"]),
    ("tavli_fast.cli.bearoff", ["--position", "u7sNAAB3tw0AAA"]),
    ("tavli_fast.cli.evaluate", None),
])
def test_a_reader_that_stops_early_ends_the_command_quietly(module, args):
    """``tavli-... | head``: stdout's reader has gone before the command writes. The command
    ends with 141 (128 + SIGPIPE, as a shell reports it) and prints no traceback."""
    if args is None:  # tavli-eval has no module entry of its own: call it as its script does
        cmd = [sys.executable, "-c", "import sys; from tavli_fast.cli.evaluate import eval_main; "
               "sys.exit(eval_main(['--position', '4HPwATDgc/ABMA']))"]
    else:
        cmd = [sys.executable, "-m", module, *args]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write
    try:
        p = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert p.returncode == 141, p.stderr
    assert "Traceback" not in p.stderr and "Broken pipe" not in p.stderr


def _table_rows(text: str) -> dict[str, float]:
    """The value column of the human table's rows (win ... equity (cubeless))."""
    names = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon",
             "equity (cubeless)")
    rows = {}
    for line in text.splitlines():
        for name in names:
            rest = line[len(name):].split() if line.startswith(name + " ") else []
            if rest and rest[0][0] in "+-0123456789":
                rows[name] = float(rest[0])
    return rows


def test_cubeful_rollout_text_and_json_carry_a_possible_cubeless_table():
    """The issue's run (pubeval from the start, cubeful, seed 1): the text table and the
    JSON (the figures and ``cubeful.cubeless``) give the same cubeless figures, win >= win
    gammon >= win backgammon, and they agree with the run played out (``--no-truncate``)
    within 3 SEs (before the fix: win 0.078 with win gammon 0.171, equity -0.662)."""
    args = ("--position", "start", "--player", "pubeval", "--cubeful", "--seed", "1",
            "--trials", "2000", "--jobs", "1")
    text, doc, whole = run(*args), run(*args, "--json"), run(*args, "--json", "--no-truncate")
    for p in (text, doc, whole):
        assert p.returncode == 0, p.stderr
    doc, whole = json.loads(doc.stdout), json.loads(whole.stdout)
    rows = _table_rows(text.stdout)
    keys = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")
    assert list(rows.values()) == pytest.approx([doc[k] for k in keys], abs=5e-5)
    assert doc["cubeful"]["cubeless"] == pytest.approx(doc["equity"], abs=1e-12)
    assert 1 >= doc["win"] >= doc["win_gammon"] >= doc["win_backgammon"] >= 0
    assert 1 - doc["win"] >= doc["lose_gammon"] >= doc["lose_backgammon"] >= 0
    assert doc["truncated"] > 0 and whole["truncated"] == 0
    for k in keys:
        assert abs(doc[k] - whole[k]) <= 3 * (doc["se"][k] ** 2 + whole["se"][k] ** 2) ** 0.5, k
