"""Ctrl-C (SIGINT) to a command in every mode: answered at once (the game loops look at the
stop flag before every game, so a unit of 10,000 luck-adjusted games no longer has to end
first), exit status 130, and the games played so far reported, partial units included."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

# The run is a subprocess, as a user runs it; each mode has units that last far longer than
# the test waits, so that only the stop flag can end them in time.
ROLLOUT = [sys.executable, "-m", "tavli_fast"]
OPENINGS = [sys.executable, "-c",
            "import sys; from tavli_fast.cli.openings import main; sys.exit(main())"]
MATCH = [sys.executable, "-c", "import sys; from tavli_fast.cli.match import main; sys.exit(main())"]

# (command, the games the JSON document reports as played)
MODES = {
    "rollout-neural-vr-jobs1": (
        [*ROLLOUT, "--player", "neural", "--vr", "--trials", "100000", "--chunk-size", "10000",
         "-j", "1"], lambda doc: doc["trials"]),
    "rollout-neural-vr-jobs2": (
        [*ROLLOUT, "--player", "neural", "--vr", "--trials", "100000", "--chunk-size", "10000",
         "-j", "2"], lambda doc: doc["trials"]),
    "rollout-pubeval-big-chunks-jobs2": (
        [*ROLLOUT, "--player", "pubeval", "--trials", "1e8", "--chunk-size", "1e6", "-j", "2"],
        lambda doc: doc["trials"]),
    "candidate-plays-jobs1": (
        [*ROLLOUT, "--dice", "31", "--trials", "20000", "--chunk-size", "10000", "-j", "1"],
        lambda doc: doc["trials_played"]),
    "openings-jobs2": (
        [*OPENINGS, "--rolls", "31", "--trials", "20000", "--chunk-size", "10000", "-j", "2"],
        lambda doc: doc["trials_played"]),
    "plakoto-openings-jobs1": (
        [*OPENINGS, "--game", "plakoto", "--rolls", "31", "--trials", "1e6", "--chunk-size",
         "1e6", "-j", "1"], lambda doc: doc["trials_played"]),
    "match-jobs1": (
        [*MATCH, "--player", "pubeval", "--matches", "1e6", "--chunk-size", "1e6", "-j", "1"],
        lambda doc: doc["matches"]),
}

#: Seconds the run plays before the signal: enough to start and play some games.
PLAY_S = 8.0
#: A generous bound on the answer (the target is a second or two; the machine may be loaded).
ANSWER_S = 10.0


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_ctrl_c_is_answered_at_once_with_the_games_played(mode):
    command, played = MODES[mode]
    # Ctrl-C as at a terminal, even when the tests run in a background shell (SIGINT ignored).
    proc = subprocess.Popen([*command, "--seed", "7", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(PLAY_S)
        assert proc.poll() is None, proc.communicate()[1]
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        answered = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert answered < ANSWER_S, f"Ctrl-C answered after {answered:.1f} s"
    doc = json.loads(out)
    assert doc["interrupted"] is True
    # Not one unit had finished: every game reported comes from a unit cut short.
    assert played(doc) > 0
