"""Bad input to the seven commands: one line on stderr, exit status 2, no traceback, no hang.

Issue 41's target: 120 bad inputs across tavli-rollout, tavli-openings, tavli-hint, tavli-eval,
tavli-train, tavli-bearoff and tavli-match. Each runs in this process (``main(argv)``, far
faster than a process each), under a timer that ends a run that hangs; a few run as real
processes too, as a user runs them. ``{tmp}`` in an argument is a directory of this test's
own (with a text file, a JSON file of another kind and an empty directory in it).

Issue 51's target: 40 further bad inputs of files and settings (``FILE_CASES``): devices,
pipes, directories and symbolic links given as outputs, another run's checkpoint, a
checkpoint changed by hand or holding NaN, outputs that cannot be written, --jobs beyond
the machine, --dice -31, an unknown TAVLI_FAST_SIMD. Each also leaves every file as it was:
the test directory's files keep their type and content, /dev/null and /dev/full stay devices.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

import tavli_fast
from tavli_fast.cli import bearoff, evaluate, match, openings, rollout, train

#: Seconds a bad input may take before it counts as a hang (argument checks, reading a net).
IN_PROCESS_LIMIT_S = 20

MAINS: dict[str, Callable] = {
    "tavli-rollout": rollout.main,
    "tavli-openings": openings.main,
    "tavli-hint": evaluate.hint_main,
    "tavli-eval": evaluate.eval_main,
    "tavli-train": train.main,
    "tavli-bearoff": bearoff.main,
    "tavli-match": match.main,
}

START = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{dice}:0:0:0:0:10"
PLAKOTO_START = "PAAAB//wAAAP/+"
FEVGA_START = "FAAAB//wAAAP/+"
FINISHED = "IAAAAAAAAAAAAA"  # the side on roll has borne off all 15: the game is over

BAD_COUNTS = ["0", "-5", "1e30", "1e13", "1000000000001", "abc", "1.5", "nan", "inf", ""]

BAD_POSITIONS = [
    "XYZ",                                   # neither a Position ID nor an XGID
    "4HPwATDgc/ABM",                         # 13 characters
    "4HPwATDgc/ABM!",                        # not base64
    "////////////AA",                        # too many checkers
    PLAKOTO_START,                           # a Plakoto id without --game
    FEVGA_START,                             # a Fevga id without --game
    XGID.format(dice="77"),                  # no die shows 7
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0",   # fields missing
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:99",  # max cube 2**99
    FINISHED,
    f"{START}:zzzz",                         # a Match ID of 4 characters
    "",
]

CASES: list[tuple[str, list[str]]] = [
    # tavli-rollout -----------------------------------------------------------------------
    *[("tavli-rollout", ["--trials", n]) for n in BAD_COUNTS],
    *[("tavli-rollout", [f"--position={p}", "--trials", "10"]) for p in BAD_POSITIONS],
    ("tavli-rollout", ["--chunk-size", "0"]),
    ("tavli-rollout", ["--chunk-size", "1e13"]),
    ("tavli-rollout", ["--min-trials", "-1"]),
    ("tavli-rollout", ["--min-trials", "1e30"]),
    ("tavli-rollout", ["--truncate-plies", "0"]),
    ("tavli-rollout", ["--truncate-plies", "1e30"]),
    ("tavli-rollout", ["--players", "pubeval"]),
    ("tavli-rollout", ["--players", "pubeval,nobody"]),
    ("tavli-rollout", ["--player", "nobody"]),
    ("tavli-rollout", ["--player", "pubeval", "--players", "pubeval,greedy"]),
    ("tavli-rollout", ["--rules", "chess"]),
    ("tavli-rollout", ["--seed", "-1"]),
    ("tavli-rollout", ["--seed", str(2**64)]),
    ("tavli-rollout", ["--seed", "abc"]),
    ("tavli-rollout", ["--jobs", "0"]),
    ("tavli-rollout", ["--jobs", "-2"]),
    ("tavli-rollout", ["--jobs", "1e3"]),
    ("tavli-rollout", ["--jobs", "10000000000000"]),
    ("tavli-rollout", ["--target-se", "0"]),
    ("tavli-rollout", ["--target-se", "-0.1"]),
    ("tavli-rollout", ["--target-se", "inf"]),
    ("tavli-rollout", ["--ply", "3"]),
    ("tavli-rollout", ["--game", "plakoto", "--ply", "2"]),
    ("tavli-hint", ["--position", "start", "--dice", "31", "--ply", "3"]),
    ("tavli-hint", ["--position", "start", "--ply", "-1"]),
    ("tavli-hint", ["--game", "plakoto", "--position", "start", "--dice", "31", "--ply", "2"]),
    ("tavli-eval", ["--position", "start", "--ply", "3"]),
    ("tavli-eval", ["--game", "fevga", "--position", "start", "--ply", "1"]),
    ("tavli-rollout", ["--ply", "1", "--player", "pubeval"]),
    ("tavli-rollout", ["--ply", "0", "--ply", "1", "--ply", "0"]),
    ("tavli-rollout", ["--player", "neural-1ply", "--filter-candidates", "0"]),
    ("tavli-rollout", ["--player", "neural-1ply", "--filter-candidates", "17"]),
    ("tavli-rollout", ["--player", "neural-1ply", "--filter-window", "-1"]),
    ("tavli-rollout", ["--truncate-plies", "5", "--cubeful"]),
    ("tavli-rollout", ["--cubeful", "--max-cube", "3"]),
    ("tavli-rollout", ["--cubeful", "--max-cube", "0"]),
    ("tavli-rollout", ["--cubeful", "--rules", "portes"]),
    ("tavli-rollout", ["--game", "chess"]),
    ("tavli-rollout", ["--game", "plakoto", "--players", "pubeval,pubeval"]),
    ("tavli-rollout", ["--game", "plakoto", "--option", "nonsense"]),
    ("tavli-rollout", ["--game", "fevga", "--position", START]),
    ("tavli-rollout", ["--game", "plakoto", "--cubeful"]),
    ("tavli-rollout", ["--option", "pinned_home_counts"]),
    ("tavli-rollout", ["--resume", "{tmp}/missing.json"]),
    ("tavli-rollout", ["--resume", "{tmp}/text.txt"]),
    ("tavli-rollout", ["--resume", "{tmp}/other.json"]),
    ("tavli-rollout", ["--checkpoint", "{tmp}/no/such/dir/run.json"]),
    ("tavli-rollout", ["--checkpoint", "{tmp}/empty"]),
    ("tavli-rollout", ["--weights", "{tmp}/missing.npz"]),
    ("tavli-rollout", ["--weights", "{tmp}/text.txt"]),
    ("tavli-rollout", ["--weights", "{tmp}/text.txt", "--players", "pubeval,pubeval"]),
    ("tavli-rollout", ["--game", "plakoto", "--weights", "{tmp}/missing.npz"]),
    ("tavli-rollout", ["--game", "fevga", "--weights", "plakoto-v4.npz"]),
    ("tavli-rollout", ["--resume", "{tmp}/rollout-no-request.json"]),
    ("tavli-rollout", ["--resume", "{tmp}/rollout-1e30.json"]),
    ("tavli-rollout", ["--cache-dir", "{tmp}/text.txt", "--player", "pubeval", "--trials", "10"]),
    ("tavli-rollout", ["--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"]),
    ("tavli-rollout", ["--no-such-option"]),
    ("tavli-rollout", ["--position"]),
    # tavli-openings ----------------------------------------------------------------------
    *[("tavli-openings", ["--trials", n]) for n in ("0", "1e30", "x", "-1")],
    ("tavli-openings", ["--rolls", "77"]),
    ("tavli-openings", ["--rolls", "11"]),          # no opening double in backgammon (R5)
    ("tavli-openings", ["--rolls", "3"]),
    ("tavli-openings", ["--rolls", "31,xx"]),
    ("tavli-openings", ["--rolls", ""]),
    ("tavli-openings", ["--screen", "-1"]),
    ("tavli-openings", ["--screen", "x"]),
    ("tavli-openings", ["--screen-trials", "0"]),
    ("tavli-openings", ["--screen-trials", "1e30"]),
    ("tavli-openings", ["--screen", "0.1", "--screen-trials", "5000", "--trials", "1296"]),
    ("tavli-openings", ["--no-screen", "--screen-trials", "1296"]),
    ("tavli-openings", ["--replies", "8/5 6/5"]),
    ("tavli-openings", ["--rolls", "31", "--replies", "24/1"]),
    ("tavli-openings", ["--rolls", "31,62", "--replies", "8/5 6/5"]),
    ("tavli-openings", ["--rolls", "31", "--replies", "8/5 6/5", "--trials", "1e30"]),
    ("tavli-openings", ["--player", "nobody"]),
    ("tavli-openings", ["--rules", "chess"]),
    ("tavli-openings", ["--game", "chess"]),
    ("tavli-openings", ["--game", "plakoto", "--rules", "portes"]),
    ("tavli-openings", ["--game", "plakoto", "--vr"]),
    ("tavli-openings", ["--chunk-size", "0"]),
    ("tavli-openings", ["--jobs", "0"]),
    ("tavli-openings", ["--seed", "-3"]),
    ("tavli-openings", ["--csv", "{tmp}/no/such/dir/plays.csv"]),
    ("tavli-openings", ["--plot", "{tmp}/no/such/dir/plot.png"]),
    ("tavli-openings", ["--resume", "{tmp}/missing.json"]),
    ("tavli-openings", ["--resume", "{tmp}/other.json", "--trials", "10"]),
    ("tavli-openings", ["--resume", "{tmp}/openings-no-request.json"]),
    ("tavli-openings", ["--weights", "{tmp}/missing.npz"]),
    ("tavli-openings", ["--game", "plakoto", "--weights", "{tmp}/text.txt"]),
    ("tavli-openings", ["--bogus"]),
    # tavli-hint --------------------------------------------------------------------------
    *[("tavli-hint", [f"--position={p}", "--dice", "31"]) for p in BAD_POSITIONS],
    ("tavli-hint", ["--position", START, "--dice", "71"]),
    ("tavli-hint", ["--position", START, "--dice", "31", "--rollout", "36",
                    "--reply-filter", "-1"]),
    ("tavli-hint", ["--position", START, "--dice", "01"]),
    ("tavli-hint", ["--position", START, "--dice", "ab"]),
    ("tavli-hint", ["--position", START, "--dice", "3"]),
    ("tavli-hint", ["--position", START, "--dice", "3-1-2"]),
    ("tavli-hint", ["--position", START, "--dice", "31", "--top", "-1"]),
    ("tavli-hint", ["--position", START, "--dice", "31", "--top", "x"]),
    ("tavli-hint", ["--dice", "31"]),
    ("tavli-hint", ["--position", START, "--weights", "{tmp}/missing.npz"]),
    ("tavli-hint", ["--position", START, "--bogus"]),
    # tavli-eval --------------------------------------------------------------------------
    *[("tavli-eval", [f"--position={p}"]) for p in BAD_POSITIONS],
    ("tavli-eval", []),
    ("tavli-eval", ["--position", START, "--weights", "{tmp}/missing.npz"]),
    ("tavli-eval", ["--position", START, "--weights", "{tmp}/text.txt"]),
    ("tavli-eval", ["--position", START, "--bogus"]),
    # tavli-train -------------------------------------------------------------------------
    *[("tavli-train", ["--games", n]) for n in ("0", "1e30", "x")],
    ("tavli-train", []),
    ("tavli-train", ["--games", "10", "--hidden", "0"]),
    ("tavli-train", ["--games", "10", "--alpha", "0"]),
    ("tavli-train", ["--games", "10", "--alpha", "11"]),
    ("tavli-train", ["--games", "10", "--lambda", "2"]),
    ("tavli-train", ["--games", "10", "--rate", "0.01"]),
    ("tavli-train", ["--games", "10", "--resume", "{tmp}/missing.npz"]),
    ("tavli-train", ["--games", "10", "--init-from", "{tmp}/missing.npz"]),
    ("tavli-train", ["--games", "10", "--init-from", "{tmp}/text.txt"]),
    ("tavli-train", ["--games", "10", "--seed", "-1"]),
    ("tavli-train", ["--games", "10", "--race"]),
    ("tavli-train", ["--games", "10", "--decay-games", "0"]),
    ("tavli-train", ["--games", "10", "--checkpoint-every", "1e30"]),
    ("tavli-train", ["--games", "10", "--log-every", "0"]),
    ("tavli-train", ["--average", "{tmp}/missing.npz"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--fit", "{tmp}/t"]),
    ("tavli-train", ["--targets", "{tmp}/t"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--explore", "2"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--rollouts", "-1"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--rollouts", "1e30"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--truncate-plies", "5"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--race", "--contact"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "1e30"]),
    ("tavli-train", ["--targets", "{tmp}/t", "--games", "10", "--plies", "3"]),
    ("tavli-train", ["--fit", "{tmp}/missing"]),
    ("tavli-train", ["--fit", "{tmp}/empty"]),
    ("tavli-train", ["--fit", "{tmp}/empty", "--outcome-weight", "2"]),
    ("tavli-train", ["--fit", "{tmp}/empty", "--readouts", "wins"]),
    ("tavli-train", ["--fit", "{tmp}/empty", "--epochs", "0"]),
    ("tavli-train", ["--fit", "{tmp}/empty", "--batch", "1e30"]),
    ("tavli-train", ["--fit", "{tmp}/empty", "--inputs", "100"]),
    ("tavli-train", ["--games", "10", "--inputs", "209"]),      # TD training widens nothing
    ("tavli-train", ["--games", "10", "--epochs", "3"]),
    ("tavli-train", ["--games", "10", "--jobs", "2"]),
    ("tavli-train", ["--games", "10", "--method", "words"]),
    ("tavli-train", ["--games", "10", "--race-from", "{tmp}/missing.npz"]),
    ("tavli-train", ["--recipe", "{tmp}/missing.npz"]),
    ("tavli-train", ["--recipe", "--games", "10"]),
    ("tavli-train", ["--bogus"]),
    # tavli-bearoff -----------------------------------------------------------------------
    ("tavli-bearoff", []),
    ("tavli-bearoff", ["--position", "XYZ"]),
    ("tavli-bearoff", ["--position", PLAKOTO_START]),
    ("tavli-bearoff", ["--position", "4HPwATDgc/ABM!"]),
    ("tavli-bearoff", ["--position", "ZgAA4NAAAAAAAA", "--points", "x"]),
    *[("tavli-bearoff", ["--cache-dir", "{tmp}/cache", "--position", "ZgAA4NAAAAAAAA", option, n])
      for option, n in (("--points", "0"), ("--points", "30"), ("--checkers", "0"),
                        ("--checkers", "100"), ("--two-sided", "-1"), ("--two-sided", "16"))],
    ("tavli-bearoff", ["--position", START]),                # not a bear-off
    ("tavli-bearoff", ["--position", "ZgAA4NAAAAAAAA", "--bogus"]),
    # tavli-match -------------------------------------------------------------------------
    *[("tavli-match", ["--matches", n]) for n in BAD_COUNTS],
    ("tavli-match", ["--length", "0"]),
    ("tavli-match", ["--length", "100"]),
    ("tavli-match", ["--length", "x"]),
    ("tavli-match", ["--length", "1e30"]),
    ("tavli-match", ["--length", "5", "--score", "5,0"]),
    ("tavli-match", ["--length", "5", "--score", "4"]),
    ("tavli-match", ["--length", "5", "--score", "a,b"]),
    ("tavli-match", ["--length", "5", "--score", "1,2,3"]),
    ("tavli-match", ["--length", "5", "--score=-1,0"]),
    ("tavli-match", ["--length", "5", "--post-crawford"]),
    ("tavli-match", ["--rules", "chess"]),
    ("tavli-match", ["--rules", "portes", "--max-cube", "4"]),
    ("tavli-match", ["--max-cube", "3"]),
    ("tavli-match", ["--max-cube", "0"]),
    ("tavli-match", ["--tavli", "--score", "1,1"]),
    ("tavli-match", ["--tavli", "--rules", "backgammon"]),
    ("tavli-match", ["--tavli", "--no-cube"]),
    ("tavli-match", ["--option", "draw_scores_point"]),
    ("tavli-match", ["--tavli", "--option", "nonsense"]),
    ("tavli-match", ["--players", "neural"]),
    ("tavli-match", ["--player", "nobody"]),
    ("tavli-match", ["--jobs", "0"]),
    ("tavli-match", ["--chunk-size", "0"]),
    *[("tavli-match", ["--player", "neural-1ply", "--reply-filter", k]) for k in ("-1", "17", "x")],
    ("tavli-match", ["--chunk-size", "1e30"]),
    ("tavli-match", ["--seed", "x"]),
    ("tavli-match", ["--resume", "{tmp}/missing.json"]),
    ("tavli-match", ["--resume", "{tmp}/other.json"]),
    ("tavli-match", ["--resume", "{tmp}/match-no-request.json"]),
    ("tavli-match", ["--checkpoint", "{tmp}/no/such/dir/m.json"]),
    ("tavli-match", ["--weights", "{tmp}/missing.npz"]),
    ("tavli-match", ["--weights", "{tmp}/text.txt", "--players", "pubeval,pubeval"]),
    ("tavli-match", ["--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"]),
    ("tavli-match", ["--bogus"]),
]


@pytest.fixture
def tmp(tmp_path):
    """A directory with a text file, a JSON file that is no checkpoint, checkpoints whose
    request lacks its settings or asks for 1e30 trials, and an empty directory."""
    (tmp_path / "text.txt").write_text("not a weights file, not a checkpoint\n")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else", "version": 1}))
    for kind, done in (("rollout", "chunks"), ("match", "chunks"), ("openings", "rolls")):
        _write_checkpoint(tmp_path / f"{kind}-no-request.json", kind, {}, done)
    _write_checkpoint(tmp_path / "rollout-1e30.json", "rollout", {
        "position": START, "trials": 1e30, "players": ["pubeval", "pubeval"], "seed": 1,
        "rules": "backgammon", "stratify": True, "chunk_size": 10_000}, "chunks")
    (tmp_path / "empty").mkdir()
    return tmp_path


def _write_checkpoint(path, kind: str, request: dict, done: str) -> None:
    """A checkpoint file of `kind` (rollout, match, openings) holding `request` and no work,
    with its checksum (a checkpoint without one is read with a warning, a second line)."""
    doc = {"format": f"tavli_fast {kind} checkpoint", "version": 1, "request": request,
           done: [] if done == "rolls" else {}}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    doc["checksum"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps(doc))


class _Hang(BaseException):
    """The run took longer than IN_PROCESS_LIMIT_S (a BaseException: no command catches it)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(signum, frame):
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run_in_process(command: str, argv: list[str]) -> int:
    try:
        with _time_limit(IN_PROCESS_LIMIT_S):
            return MAINS[command](argv)
    except SystemExit as e:  # argparse exits; a command's main returns its status
        return e.code if isinstance(e.code, int) else 1
    except _Hang:
        pytest.fail(f"{command} {' '.join(argv)} still ran after {IN_PROCESS_LIMIT_S} s")


def _fill(argv: list[str], tmp) -> list[str]:
    return [a.replace("{tmp}", str(tmp)) for a in argv]


def test_there_are_at_least_120_bad_inputs_across_the_seven_commands():
    assert len(CASES) >= 120
    assert {command for command, _ in CASES} == set(MAINS)


@pytest.mark.parametrize("command,argv", CASES, ids=[f"{c} {' '.join(a)}" for c, a in CASES])
def test_bad_input_is_one_line_and_exit_status_2(command, argv, tmp, capsys):
    status = _run_in_process(command, _fill(argv, tmp))
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{command}: error: "), err


SUBPROCESS_CASES = [
    ("tavli_fast.cli.rollout", ["--trials", "1e30"]),
    ("tavli_fast.cli.rollout", ["--position", PLAKOTO_START]),
    ("tavli_fast.cli.match", ["--length", "5", "--score", "4"]),
    ("tavli_fast.cli.openings", ["--rolls", "77"]),
    ("tavli_fast.cli.train", ["--games", "1e30"]),
]


@pytest.mark.parametrize("module,argv", SUBPROCESS_CASES,
                         ids=[f"{m} {' '.join(a)}" for m, a in SUBPROCESS_CASES])
def test_bad_input_to_a_real_process_is_one_line_and_exit_status_2(module, argv):
    p = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr


# ---------------------------------------------------------------------------------------------
# Issue 51: files that must never be destroyed, checkpoints of other runs, settings
# ---------------------------------------------------------------------------------------------

PUBEVAL = ["--player", "pubeval", "--trials", "10", "--seed", "1", "--jobs", "1"]
PLAYS = ["--position", START, "--dice", "31", *PUBEVAL]
OPENINGS = ["--player", "pubeval", "--rolls", "31", "--trials", "10", "--seed", "1", "--jobs", "1"]
MATCHES = ["--player", "pubeval", "--length", "3", "--matches", "2", "--seed", "1", "--jobs", "1"]
DEVICES = ("/dev/null", "/dev/full")

FILE_CASES: list[tuple[str, list[str]]] = [
    # tavli-rollout: outputs that are not regular files, another run's or a changed checkpoint
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/null-link"]),   # -> /dev/null
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/full-link"]),   # -> /dev/full
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/fifo"]),
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/text.txt"]),    # not a checkpoint
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/text-link"]),   # -> text.txt
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/other.json"]),
    ("tavli-rollout", [*PUBEVAL, "--checkpoint", "{tmp}/run2.json"]),   # seed 2's run
    ("tavli-rollout", ["--resume", "{tmp}/run2.json", "--checkpoint", "{tmp}/text.txt"]),
    ("tavli-rollout", ["--resume", "{tmp}/tampered.json"]),
    ("tavli-rollout", ["--resume", "{tmp}/nan-old.json"]),              # no checksum, a NaN
    ("tavli-rollout", ["--resume", "{tmp}/nan-signed.json"]),           # a NaN put in by hand
    ("tavli-rollout", ["--resume", "{tmp}/inf-old.json"]),              # no checksum, 1e999
    ("tavli-rollout", ["--resume", "{tmp}/fifo"]),                      # would block a reader
    ("tavli-rollout", ["--resume", "{tmp}/null-link"]),
    ("tavli-rollout", [*PUBEVAL, "--jobs", "100000"]),
    ("tavli-rollout", ["--dice", "-31", *PUBEVAL]),
    # the candidate plays of a roll (tavli-rollout --dice)
    ("tavli-rollout", [*PLAYS, "--plot", "{tmp}/full-link"]),
    ("tavli-rollout", [*PLAYS, "--plot", "{tmp}/empty"]),
    ("tavli-rollout", [*PLAYS, "--checkpoint", "{tmp}/fifo"]),
    ("tavli-rollout", [*PLAYS, "--checkpoint", "{tmp}/run2.json"]),    # a plain rollout's
    # tavli-openings
    ("tavli-openings", [*OPENINGS, "--plot", "{tmp}/full-link"]),
    ("tavli-openings", [*OPENINGS, "--plot", "{tmp}/fifo"]),
    ("tavli-openings", [*OPENINGS, "--csv", "{tmp}/null-link"]),
    ("tavli-openings", [*OPENINGS, "--csv", "{tmp}/empty"]),
    ("tavli-openings", [*OPENINGS, "--checkpoint", "{tmp}/run2.json"]),
    ("tavli-openings", [*OPENINGS, "--checkpoint", "{tmp}/text-link"]),
    ("tavli-openings", [*OPENINGS, "--jobs", "100000"]),
    ("tavli-openings", ["--resume", "{tmp}/fifo"]),
    # tavli-match
    ("tavli-match", [*MATCHES, "--checkpoint", "{tmp}/full-link"]),
    ("tavli-match", [*MATCHES, "--checkpoint", "{tmp}/text.txt"]),
    ("tavli-match", [*MATCHES, "--checkpoint", "{tmp}/run2.json"]),
    ("tavli-match", [*MATCHES, "--jobs", "100000"]),
    # tavli-hint
    ("tavli-hint", ["--position", START, "--dice", "-31"]),
    ("tavli-hint", ["--position", START, "--dice", "3--1"]),
    ("tavli-hint", ["--position", START, "--dice", "31", "--rollout", "10", "--player", "pubeval",
                    "--checkpoint", "{tmp}/null-link"]),
    ("tavli-hint", ["--position", START, "--dice", "31", "--rollout", "10", "--player", "pubeval",
                    "--plot", "{tmp}/full-link"]),
    # tavli-train: checked before any game is played (1e9 games would not end in time)
    ("tavli-train", ["--games", "1e9", "--export", "{tmp}/no/such/dir/x.npz"]),
    ("tavli-train", ["--games", "1e9", "--export", "{tmp}/full-link"]),
    ("tavli-train", ["--games", "1e9", "--checkpoint", "{tmp}/text.txt"]),
    ("tavli-train", ["--games", "1e9", "--checkpoint", "{tmp}/fifo"]),
    ("tavli-train", ["--average", "{tmp}/missing.npz", "--export", "{tmp}/null-link"]),
    ("tavli-train", ["--game", "plakoto", "--games", "1e9", "--export", "{tmp}/empty"]),
    ("tavli-train", ["--game", "plakoto", "--games", "1e9", "--checkpoint", "{tmp}/text.txt"]),
    # input files that are pipes: reading one would wait for a writer forever
    ("tavli-train", ["--games", "10", "--resume", "{tmp}/fifo"]),
    ("tavli-train", ["--games", "10", "--init-from", "{tmp}/fifo"]),
    ("tavli-train", ["--game", "plakoto", "--games", "10", "--resume", "{tmp}/fifo"]),
    ("tavli-rollout", [*PUBEVAL, "--player", "neural", "--weights", "{tmp}/fifo"]),
    ("tavli-eval", ["--position", START, "--weights", "{tmp}/fifo"]),
]

#: Every command with an unknown TAVLI_FAST_SIMD (the core would ignore it).
SIMD_CASES = [("tavli-eval", ["--position", START]), ("tavli-hint", ["--position", START]),
              ("tavli-rollout", PUBEVAL), ("tavli-openings", OPENINGS), ("tavli-match", MATCHES),
              ("tavli-train", ["--games", "10"]), ("tavli-bearoff", ["--position", START])]


@pytest.fixture(scope="module")
def run2_checkpoint(tmp_path_factory) -> Path:
    """A real rollout checkpoint (pubeval, 10 trials, seed 2), written once for the module."""
    path = tmp_path_factory.mktemp("run2") / "run2.json"
    tavli_fast.rollout("start", 10, "pubeval", seed=2, executor=1, checkpoint=path)
    return path


@pytest.fixture
def files(tmp, run2_checkpoint):
    """`tmp` with a pipe, symbolic links to /dev/null, /dev/full and text.txt, another run's
    checkpoint (run2.json) and copies of it changed by hand: its seed (tampered.json), a NaN
    in its work without the checksum (nan-old.json, as an older version wrote) or with it
    (nan-signed.json), an infinity without the checksum (inf-old.json)."""
    os.mkfifo(tmp / "fifo")
    for name, target in (("null-link", "/dev/null"), ("full-link", "/dev/full"),
                         ("text-link", tmp / "text.txt")):
        (tmp / name).symlink_to(target)
    shutil.copy(run2_checkpoint, tmp / "run2.json")
    signed = json.loads(run2_checkpoint.read_text())
    assert signed["request"]["seed"] == 2 and signed["checksum"]
    tampered = json.loads(json.dumps(signed))
    tampered["request"]["seed"] = 1  # a request this rollout's own would match
    (tmp / "tampered.json").write_text(json.dumps(tampered))
    key = next(iter(signed["chunks"]))
    old = {k: v for k, v in signed.items() if k != "checksum"}
    for name, doc, value in (("nan-old.json", old, "NaN"), ("nan-signed.json", signed, "NaN"),
                             ("inf-old.json", old, "1e999")):
        doc = json.loads(json.dumps(doc))
        doc["chunks"][key][0] = "@"
        (tmp / name).write_text(json.dumps(doc).replace('"@"', value))
    return tmp


def _snapshot(directory: Path) -> dict[str, tuple]:
    """Each entry of `directory` (recursively): its type, and its content or link target."""
    out = {}
    for path in sorted(directory.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            out[str(path)] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            out[str(path)] = ("file", path.read_bytes())
        else:
            out[str(path)] = (stat.S_IFMT(mode),)
    for device in DEVICES:
        out[device] = (stat.S_IFMT(os.stat(device).st_mode), os.stat(device).st_rdev)
    return out


def test_there_are_at_least_40_further_bad_inputs_of_files_and_settings():
    assert len(FILE_CASES) + len(SIMD_CASES) >= 40
    assert {command for command, _ in FILE_CASES} | {c for c, _ in SIMD_CASES} == set(MAINS)


@pytest.mark.parametrize("command,argv", FILE_CASES, ids=[f"{c} {' '.join(a)}" for c, a in FILE_CASES])
def test_bad_file_is_one_line_exit_status_2_and_every_file_is_left_as_it_was(command, argv, files,
                                                                            capsys):
    before = _snapshot(files)
    status = _run_in_process(command, _fill(argv, files))
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{command}: error: "), err
    assert _snapshot(files) == before
    for device in DEVICES:
        assert stat.S_ISCHR(os.stat(device).st_mode)


@pytest.mark.parametrize("command,argv", SIMD_CASES, ids=[c for c, _ in SIMD_CASES])
def test_an_unknown_tavli_fast_simd_is_one_line_and_exit_status_2(command, argv, monkeypatch,
                                                                  capsys):
    monkeypatch.setenv("TAVLI_FAST_SIMD", "bogus")
    status = _run_in_process(command, argv)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "TAVLI_FAST_SIMD" in lines[0] and "Traceback" not in err, err
