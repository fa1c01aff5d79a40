"""tavli-serve's JSON API through an in-process client: every endpoint and every error path,
and the served documents equal the commands' (``--json``) for the same options and seed."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra (in the test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

import tavli_fast as tf  # noqa: E402
from tavli_fast.cli.evaluate import eval_main, hint_main  # noqa: E402
from tavli_fast.cli.openings import main as openings_main  # noqa: E402
from tavli_fast.cli.rollout import main as rollout_main  # noqa: E402
from tavli_fast.play.neural import evaluator  # noqa: E402
from tavli_fast.serve.app import ServeConfig, create_app  # noqa: E402
from tavli_fast.serve.jobs import finite  # noqa: E402

XGID_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
LONG = {"position": "start", "player": "pubeval", "trials": 10**8, "seed": 3, "chunk_size": 500}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(ServeConfig(jobs=1, max_running=2, max_trials=10**8))) as c:
        yield c


def _command(main, argv, capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _wait(client, job_id: str, timeout_s: float = 120.0, path: str = "/v1/rollouts") -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        doc = client.get(f"{path}/{job_id}").json()
        if doc["status"] != "running":
            return doc
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still running after {timeout_s} s")


def _without_run_facts(doc: dict) -> dict:
    """A result without what differs between two runs of the same request: time and workers."""
    return {k: v for k, v in doc.items()
            if k not in ("elapsed_s", "games_per_second", "jobs", "checkpoint")}


# ------------------------------------------------------------------------ health, eval, hint

def test_health_says_ok_and_the_version(client):
    r = client.get("/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["version"] == tf.__version__


def test_eval_is_the_commands_document(client, capsys):
    served = client.post("/v1/eval", json={"position": "4HPwATDgc/ABMA"})
    assert served.status_code == 200
    assert served.json() == _command(eval_main, ["--position", "4HPwATDgc/ABMA", "--json"], capsys)
    start = evaluator().evaluate(tf.Position.initial().board)   # the default evaluator
    assert served.json()["win"] == pytest.approx(start[0])
    board = served.json()["board"]
    assert board["mover"][6] == 5 and board["opponent"][19] == 5 and board["pips"] == [167, 167]


def test_hint_is_the_commands_document(client, capsys):
    served = client.post("/v1/hint", json={"position": "start", "dice": "31", "top": 3})
    assert served.status_code == 200
    assert served.json() == _command(hint_main, ["--position", "start", "--dice", "31", "--top",
                                                 "3", "--json"], capsys)
    plays = served.json()["plays"]
    assert len(plays) == 16 and plays[0]["play"] == "8/5 6/5"
    assert all(0 < p["win"] < 1 and p["win_gammon"] < p["win"] for p in plays)


CUBE_XGID = "XGID=-a-B--E-B-a-dDB--b-bcb----:0:0:1:00:0:0:0:0:10"
#: (path, command, body, the command's arguments for the same request).
PLY_CASES = [
    ("/v1/eval", eval_main, {"position": "4HPwATDgc/ABMA"}, ["--position", "4HPwATDgc/ABMA"]),
    ("/v1/hint", hint_main, {"position": "start", "dice": "31"},
     ["--position", "start", "--dice", "31"]),
    ("/v1/hint", hint_main, {"position": CUBE_XGID}, ["--position", CUBE_XGID]),
]


@pytest.mark.parametrize("ply", [0, 1, 2])
@pytest.mark.parametrize("path,main,body,argv", PLY_CASES,
                         ids=["eval", "hint plays", "hint cube"])
def test_ply_is_the_commands_ply(client, capsys, path, main, body, argv, ply):
    served = client.post(path, json={**body, "ply": ply})
    assert served.status_code == 200, served.text
    assert served.json() == _command(main, [*argv, "--ply", str(ply), "--json"], capsys)
    assert served.json()["ply"] == ply


def test_the_plays_are_looked_at_as_deep_as_ply_says(client):
    docs = {ply: client.post("/v1/hint", json={"position": "start", "dice": "31", "ply": ply}
                             ).json()["plays"] for ply in (0, 1, 2)}
    assert all(p["equity_1ply"] is None and p["equity_2ply"] is None for p in docs[0])
    assert docs[0] == sorted(docs[0], key=lambda p: -p["equity_0ply"])
    assert any(p["equity_1ply"] is not None for p in docs[1])
    assert all(p["equity_2ply"] is None for p in docs[1])
    assert docs[2][0]["equity_2ply"] is not None and len(docs[2]) == 16
    default = client.post("/v1/hint", json={"position": "start", "dice": "31"}).json()
    assert default["ply"] == 1 and default["plays"] == docs[1]


def test_eval_looks_ahead_at_ply_1_and_2(client):
    wins = [client.post("/v1/eval", json={"position": "4HPwATDgc/ABMA", "ply": ply}).json()["win"]
            for ply in (0, 1, 2)]
    assert len(set(wins)) == 3 and all(0.4 < w < 0.6 for w in wins)
    default = client.post("/v1/eval", json={"position": "4HPwATDgc/ABMA"}).json()
    assert default["ply"] == 0 and default["win"] == wins[0]


def test_hint_before_the_roll_is_the_cube_analysis(client, capsys):
    xgid = CUBE_XGID
    served = client.post("/v1/hint", json={"position": xgid})
    assert served.status_code == 200
    assert served.json() == _command(hint_main, ["--position", xgid, "--json"], capsys)
    assert served.json()["cube"]["action"]


def test_an_xgids_dice_are_its_roll(client):
    doc = client.post("/v1/hint", json={"position": XGID_52, "ply": 0}).json()
    assert doc["dice"] == [5, 2] and doc["board"]["dice"] == [5, 2]


@pytest.mark.parametrize("body", [{"position": "start", "rules": "plakoto"},
                                  {"position": "start", "game": "fevga"}])
def test_variant_positions_by_rules_or_game(client, capsys, body):
    game = body.get("rules") or body["game"]
    served = client.post("/v1/eval", json=body)
    assert served.status_code == 200
    assert served.json() == _command(eval_main, ["--game", game, "--position", "start", "--json"],
                                     capsys)
    assert served.json()["board"]["game"] == game and served.json()["board"]["cube"] is None
    hint = client.post("/v1/hint", json={**body, "dice": "64"}).json()
    assert hint["game"] == game and hint["plays"]


# ------------------------------------------------------------------------ rollouts

def test_a_served_rollout_is_the_commands_for_the_same_seed(client, capsys):
    argv = ["--position", "start", "--players", "pubeval,greedy", "--trials", "3000", "--seed",
            "7", "--chunk-size", "1000"]
    command = _command(rollout_main, [*argv, "--jobs", "1", "--json", "--no-progress"], capsys)
    r = client.post("/v1/rollouts", json={"position": "start", "players": "pubeval,greedy",
                                          "trials": 3000, "seed": 7, "chunk_size": 1000})
    assert r.status_code == 202
    doc = _wait(client, r.json()["id"])
    assert doc["status"] == "done" and doc["result"]["interrupted"] is False
    assert _without_run_facts(doc["result"]) == _without_run_facts(command)
    assert doc["progress"]["trials_done"] == 3000


def test_the_candidate_plays_served_are_the_commands(client, capsys):
    command = _command(rollout_main, ["--position", "start", "--dice", "31", "--player",
                                      "pubeval", "--trials", "648", "--chunk-size", "324",
                                      "--candidates", "3", "--seed", "5", "--jobs", "1",
                                      "--json", "--no-progress"], capsys)
    r = client.post("/v1/rollouts", json={"position": "start", "dice": "31", "player": "pubeval",
                                          "trials": 648, "chunk_size": 324, "candidates": 3,
                                          "seed": 5})
    assert r.status_code == 202 and r.json()["kind"] == "plays"
    doc = _wait(client, r.json()["id"])
    assert doc["status"] == "done"
    assert _without_run_facts(doc["result"]) == _without_run_facts(command)
    progress = doc["progress"]["plays"]
    assert len(progress) == 3 and all(p["equity_se"] > 0 for p in progress)


def test_served_opening_statistics_are_the_commands_and_cancel_like_rollouts(client, capsys):
    argv = ["--rolls", "31,42", "--trials", "200", "--player", "pubeval", "--seed", "3",
            "--chunk-size", "100", "--no-screen"]
    command = _command(openings_main, [*argv, "--jobs", "1", "--json", "--no-progress"], capsys)
    body = {"rolls": "31,42", "trials": 200, "player": "pubeval", "seed": 3, "chunk_size": 100,
            "no_screen": True}
    r = client.post("/v1/openings", json=body)
    assert r.status_code == 202 and r.json()["kind"] == "openings"
    doc = _wait(client, r.json()["id"], path="/v1/openings")
    assert doc["status"] == "done"
    assert _without_run_facts(doc["result"]) == _without_run_facts(command)
    assert client.get(f"/v1/rollouts/{r.json()['id']}").status_code == 404   # not a rollout
    long = client.post("/v1/openings", json={**body, "trials": 10**7})
    job_id = long.json()["id"]
    while client.get(f"/v1/openings/{job_id}").json()["progress"] is None:
        time.sleep(0.05)
    stopped = client.delete(f"/v1/openings/{job_id}").json()
    assert stopped["status"] == "cancelled" and stopped["result"]["interrupted"] is True


def test_served_opening_statistics_take_the_reply_filter_as_the_command_does(client, capsys):
    argv = ["--rolls", "21", "--trials", "36", "--player", "neural-1ply", "--seed", "4",
            "--no-screen", "--no-vr", "--reply-filter", "4"]
    command = _command(openings_main, [*argv, "--jobs", "1", "--json", "--no-progress"], capsys)
    body = {"rolls": "21", "trials": 36, "player": "neural-1ply", "seed": 4, "no_screen": True,
            "vr": False, "reply_filter": 4}
    doc = _wait(client, client.post("/v1/openings", json=body).json()["id"], path="/v1/openings")
    assert doc["status"] == "done"
    assert _without_run_facts(doc["result"]) == _without_run_facts(command)
    assert any("best 4 plays of each roll" in note for note in doc["result"]["notes"])
    other = _wait(client, client.post("/v1/openings", json={**body, "reply_filter": 0}).json()["id"],
                  path="/v1/openings")
    assert other["result"]["rolls"] != doc["result"]["rolls"]


def _events(client, job_id: str) -> list[tuple[float, str, dict]]:
    """(seconds since the stream opened, event, data) of a job's whole event stream."""
    out, name, start = [], None, time.monotonic()
    with client.stream("GET", f"/v1/rollouts/{job_id}/events") as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                out.append((time.monotonic() - start, name, json.loads(line[6:])))
    return out


def test_the_event_stream_reports_progress_every_second_then_the_result(client):
    r = client.post("/v1/rollouts", json={**LONG, "trials": 40_000, "chunk_size": 10_000})
    events = _events(client, r.json()["id"])
    names = [e[1] for e in events]
    assert names[-1] == "result" and set(names[:-1]) == {"progress"} and len(names) >= 3
    assert events[-1][2]["status"] == "done" and events[-1][2]["result"]["trials"] == 40_000
    gaps = [b[0] - a[0] for a, b in zip(events, events[1:])]
    # One a second at least: bench/serve_load.py measures it; here a liveness bound generous
    # enough for a shared, loaded machine.
    assert max(gaps) < 5.0, gaps
    done = [e[2]["progress"]["trials_done"] for e in events[:-1] if e[2]["progress"]]
    assert done == sorted(done) and done[-1] > 0


def test_delete_cancels_within_seconds_and_keeps_the_partial_result(client):
    r = client.post("/v1/rollouts", json=LONG)
    assert r.status_code == 202
    job_id = r.json()["id"]
    deadline = time.monotonic() + 60
    while client.get(f"/v1/rollouts/{job_id}").json()["progress"] is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    asked = time.monotonic()
    doc = client.delete(f"/v1/rollouts/{job_id}").json()
    assert time.monotonic() - asked < 5.0   # the target is 1 s; a generous bound here
    assert doc["status"] == "cancelled" and doc["result"]["interrupted"] is True
    assert 0 < doc["result"]["trials"] < LONG["trials"] and doc["result"]["se"]["equity"] > 0
    assert client.get(f"/v1/rollouts/{job_id}").json()["status"] == "cancelled"


def test_too_many_running_jobs_get_429_with_retry_after():
    with TestClient(create_app(ServeConfig(jobs=1, max_running=1))) as c:
        first = c.post("/v1/rollouts", json=LONG)
        assert first.status_code == 202
        second = c.post("/v1/rollouts", json=LONG)
        assert second.status_code == 429 and int(second.headers["Retry-After"]) > 0
        assert "running" in second.json()["error"]
        assert c.delete(f"/v1/rollouts/{first.json()['id']}").json()["status"] == "cancelled"
        assert c.post("/v1/rollouts", json={**LONG, "trials": 100}).status_code == 202


def test_finished_jobs_are_dropped_after_their_time():
    with TestClient(create_app(ServeConfig(jobs=1, keep_s=0.2))) as c:
        job_id = c.post("/v1/rollouts", json={**LONG, "trials": 200}).json()["id"]
        assert _wait(c, job_id)["status"] == "done"
        time.sleep(0.5)
        r = c.get(f"/v1/rollouts/{job_id}")
        assert r.status_code == 404 and "dropped" in r.json()["error"]


# ------------------------------------------------------------------------ errors

BAD = [
    ("post", "/v1/eval", {"position": "nonsense"}, 400),
    ("post", "/v1/eval", {"position": "start", "weights": "/etc/passwd"}, 422),
    ("post", "/v1/eval", {}, 422),
    ("post", "/v1/eval", {"position": 7}, 422),
    ("post", "/v1/eval", {"position": "start", "rules": "chess"}, 422),
    ("post", "/v1/eval", {"position": "start", "rules": "plakoto", "game": "fevga"}, 400),
    ("post", "/v1/hint", {"position": "start", "rules": "portes", "dice": "31"}, 400),
    ("post", "/v1/eval", {"position": "4HPwATDgc/ABMA", "game": "plakoto"}, 400),
    ("post", "/v1/eval", {"position": "P" + "A" * 20}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": "71"}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": "3"}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": [3, 1, 2]}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "top": -1}, 422),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "ply": 3}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "ply": -1}, 400),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "ply": "1"}, 422),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "ply": True}, 422),
    ("post", "/v1/hint", {"position": "start", "dice": "31", "ply": 1.5}, 422),
    ("post", "/v1/hint", {"position": "start", "rules": "plakoto", "dice": "64", "ply": 2}, 400),
    ("post", "/v1/hint", {"position": "start", "ply": 3}, 400),
    ("post", "/v1/eval", {"position": "start", "ply": 3}, 400),
    ("post", "/v1/eval", {"position": "start", "ply": None, "top": 2}, 422),
    ("post", "/v1/eval", {"position": "start", "game": "fevga", "ply": 1}, 400),
    ("post", "/v1/hint", {"position": "start", "game": "plakoto"}, 400),
    ("post", "/v1/rollouts", {"position": "start", "trials": 0}, 400),
    ("post", "/v1/rollouts", {"position": "start", "trials": 2.5}, 400),
    ("post", "/v1/rollouts", {"position": "start", "trials": 10**9}, 400),
    ("post", "/v1/rollouts", {"position": "start", "players": "nobody"}, 400),
    ("post", "/v1/rollouts", {"position": "start", "players": "a,b,c"}, 400),
    ("post", "/v1/rollouts", {"position": "nonsense"}, 400),
    ("post", "/v1/rollouts", {"position": "start", "seed": -1}, 422),
    ("post", "/v1/rollouts", {"position": "start", "dice": "31", "target_se": 0.01}, 400),
    ("post", "/v1/rollouts", {"position": "start", "dice": "31", "candidates": 2, "plays": "8/5 6/5"}, 400),
    ("post", "/v1/rollouts", {"position": "start", "scheduler": "tcp://10.0.0.1:8786"}, 422),
    ("post", "/v1/rollouts", {"position": "start", "checkpoint": "/tmp/x"}, 422),
    ("post", "/v1/rollouts", {"position": "start", "ply": 3}, 400),
    ("post", "/v1/openings", {"rolls": "77"}, 400),
    ("post", "/v1/openings", {"rules": "portes", "game": "plakoto"}, 400),
    ("post", "/v1/openings", {"trials": 0}, 400),
    ("post", "/v1/openings", {"weights": "x.npz"}, 422),
    ("get", "/v1/openings/nope", None, 404),
    ("get", "/v1/rollouts/nope", None, 404),
    ("get", "/v1/rollouts/nope/events", None, 404),
    ("delete", "/v1/rollouts/nope", None, 404),
    ("get", "/v1/nothing", None, 404),
    ("put", "/v1/eval", None, 405),
    ("get", "/v1/eval", None, 405),
]


@pytest.mark.parametrize("method,path,body,status", BAD, ids=[f"{m} {p} {b}" for m, p, b, _ in BAD])
def test_bad_input_is_a_4xx_with_a_one_line_json_error(client, method, path, body, status):
    r = client.request(method.upper(), path, json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    error = r.json()["error"]
    assert error and "\n" not in error and "Traceback" not in error


def test_a_body_that_is_not_json_is_refused(client):
    r = client.post("/v1/eval", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]


def test_a_body_over_the_limit_gets_413():
    with TestClient(create_app(ServeConfig(max_body_bytes=100))) as c:
        r = c.post("/v1/eval", json={"position": "start" + " " * 200})
        assert r.status_code == 413 and "100 bytes" in r.json()["error"]
        assert c.post("/v1/eval", json={"position": "start"}).status_code == 200


def test_a_token_is_needed_on_every_request_when_given():
    with TestClient(create_app(ServeConfig(token="s3cret"))) as c:
        for path in ("/v1/health", "/", "/static/app.js"):
            r = c.get(path)
            assert r.status_code == 401 and r.json()["error"], path
        assert c.get("/v1/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/v1/health?token=%C3%A9t%C3%A9").status_code == 401
        assert c.get("/v1/health", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        page = c.get("/?token=s3cret")
        assert page.status_code == 200 and 'src="static/app.js?token=s3cret"' in page.text
        assert c.get("/static/app.js?token=s3cret").status_code == 200
        assert c.get("/docs?token=s3cret").status_code == 200
        assert c.get("/openapi.json?token=s3cret").json()["paths"]


def test_the_page_its_files_and_the_openapi_document_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and 'data-testid="board"' in page.text
    for name in ("app.js", "svg.js", "board.js", "chart.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200, name
    assert "http" not in "".join(line for line in page.text.splitlines()
                                 if "src=" in line or "href=" in line and "stylesheet" in line)
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/health", "/v1/eval", "/v1/hint", "/v1/rollouts", "/v1/rollouts/{job_id}",
            "/v1/rollouts/{job_id}/events", "/v1/openings", "/v1/openings/{job_id}"} <= set(paths)
    assert client.get("/docs").status_code == 200


def test_a_result_with_figures_json_cannot_hold_is_served_with_nulls():
    doc = finite({"equity": float("nan"), "se": {"win": float("inf")}, "plays": [1.5, float("-inf")]})
    assert doc == {"equity": None, "se": {"win": None}, "plays": [1.5, None]}
