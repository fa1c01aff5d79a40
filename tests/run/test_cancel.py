"""The cancel API: a ``threading.Event`` set from another thread stops a run within a second,
with the games played so far (units cut short included) and flagged ``interrupted``; the
progress callback is called every second or so whatever the chunk size; a resume after a
stop gives the numbers of the uninterrupted run; runs work from a thread that is not the
main one."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.api import play_matches, read_checkpoint, rollout, rollout_plays
from tavli_fast.jobs.match import read_match_checkpoint
from tavli_fast.jobs.candidates import run_unit
from tavli_fast.jobs.plays import PlaysJob, make_plays_request
from tavli_fast.run.control import RunControl

#: A generous bound on a stop's answer (the target is a second; the machine may be loaded).
ANSWER_S = 10.0

# Three chunks, each far longer than the test waits before it stops the run.
BIG = dict(position="start", trials=1_500_000, players="pubeval", seed=11, chunk_size=500_000)


def cancel_when(event: threading.Event, games: int, calls: list):
    """A progress callback that records its calls and sets ``event`` once ``games`` are done."""

    def progress(p):
        calls.append((time.monotonic(), p.trials_done))
        if p.trials_done >= games:
            event.set()

    return progress


def stop_after_games(control: np.ndarray, games: int) -> threading.Thread:
    """A thread that sets the stop flag of ``control`` once its game count reaches ``games``
    (the way a driver stops a unit, at a point where it has played some games)."""

    def watch() -> None:
        deadline = time.monotonic() + 60
        while control[1] < games and time.monotonic() < deadline:
            time.sleep(0.001)
        control[0] = 1

    thread = threading.Thread(target=watch)
    thread.start()
    return thread


class Canceller(threading.Thread):
    """Sets ``event`` from its own thread ``after_s`` seconds after it starts, once the
    progress reports (``calls``, appended by the run's progress callback) count some games;
    ``set_at`` is when it did."""

    def __init__(self, event: threading.Event, after_s: float, calls: list | None = None):
        super().__init__()
        self.event, self.after_s, self.calls = event, after_s, calls
        self.set_at = math.inf
        self.start()

    def run(self) -> None:
        started = time.monotonic()
        while time.monotonic() < started + 120 and (
                time.monotonic() < started + self.after_s
                or (self.calls is not None and not any(done > 0 for _, done in self.calls))):
            time.sleep(0.01)
        self.set_at = time.monotonic()
        self.event.set()


def recorder(calls: list):
    """A progress callback that records (time, trials done)."""
    return lambda p: calls.append((time.monotonic(), p.trials_done))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_cancel_from_another_thread_stops_the_run_with_its_games(jobs):
    cancel = threading.Event()
    calls: list = []
    started = time.monotonic()
    canceller = Canceller(cancel, 4.0, calls)
    r = rollout(**BIG, jobs=jobs, cancel=cancel, progress=recorder(calls))
    answered = time.monotonic() - canceller.set_at
    canceller.join()
    assert r.interrupted and "INTERRUPTED" in str(r)
    assert answered < ANSWER_S
    # No chunk of 50,000 finished in 4 s: every game counted comes from a chunk cut short.
    assert 0 < r.games < BIG["trials"]
    assert f"{r.games:,} of the games are from chunks cut short" in str(r)
    assert sum(r.counts) + r.truncated == r.games and r.se["equity"] > 0
    # Progress moved while the first chunks played, not only when they ended.
    assert any(0 < done < BIG["chunk_size"] for _, done in calls)
    times = [started] + [t for t, _ in calls]
    assert max(b - a for a, b in zip(times, times[1:])) < 5.0  # every 0.5 s when idle


def test_a_cancel_that_is_not_an_event_is_refused():
    with pytest.raises(TypeError, match="is_set"):
        rollout("start", 100, players="pubeval", seed=1, jobs=1, cancel=True)


def test_a_run_started_from_another_thread_is_cancelled_the_same_way():
    cancel = threading.Event()
    calls: list = []
    out: dict = {}

    def run():
        out["result"] = rollout(**BIG, jobs=2, cancel=cancel, progress=recorder(calls))

    thread = threading.Thread(target=run)
    thread.start()
    Canceller(cancel, 2.0, calls).join()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert out["result"].interrupted and out["result"].games > 0


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_resume_after_a_cancel_gives_the_uninterrupted_numbers(tmp_path, jobs):
    spec = dict(position="start", trials=60_000, players="pubeval", seed=5, chunk_size=20_000)
    reference = rollout(**spec, jobs=1)
    cancel = threading.Event()
    path = tmp_path / "run.json"

    def progress(p):  # stop within a chunk after the first (its games in flight are reported)
        if p.trials_done > 20_000 and p.trials_done % 20_000:
            cancel.set()

    # Stopped in the middle of a chunk: the cut chunk counts in the result, not in the file.
    cut = rollout(**spec, jobs=jobs, checkpoint=path, cancel=cancel, progress=progress)
    assert cut.interrupted and cut.games > 20_000
    whole = [v[0] for v in read_checkpoint(path)["chunks"].values()]
    assert all(n == 20_000 for n in whole) and sum(whole) <= cut.games
    resumed = rollout(**spec, jobs=jobs, resume=path)
    assert not resumed.interrupted and resumed.resumed_games == sum(whole)
    assert (resumed.games, resumed.counts, resumed.plies_sum, resumed.plies_sumsq) == (
        reference.games, reference.counts, reference.plies_sum, reference.plies_sumsq)
    assert resumed.equity == reference.equity and resumed.se == reference.se


def test_cancelled_matches_report_those_played_and_resume_to_the_same_numbers(tmp_path):
    spec = dict(length=3, matches=16_000, players="pubeval", seed=3, chunk_size=8000)
    reference = play_matches(**spec, jobs=1)
    cancel = threading.Event()
    path = tmp_path / "matches.json"
    cut = play_matches(**spec, jobs=1, checkpoint=path, cancel=cancel,
                       progress=cancel_when(cancel, 8001, []))
    assert cut.interrupted and 8000 < cut.matches < 16_000
    assert read_match_checkpoint(path)["chunks"].keys() == {"0"}  # the whole chunk only
    resumed = play_matches(**spec, jobs=1, resume=path)
    assert not resumed.interrupted
    assert resumed.to_dict()["win"] == reference.to_dict()["win"]
    assert resumed.matches == reference.matches and resumed.games == reference.games


# --------------------------------------------------------------------------- candidate plays

@pytest.fixture(scope="module")
def unit():
    """A unit of two candidate plays, luck-adjusted by the net."""
    request = make_plays_request("start", "31", 60, "neural", seed=4, chunk_size=60,
                                 plays="8/5 6/5,24/23 13/10")
    return PlaysJob(request).plan()[0]


def test_a_unit_played_in_blocks_gives_the_numbers_of_one_call(unit):
    control = np.zeros(2, dtype=np.int64)
    assert run_unit(unit, control=control) == run_unit(unit)
    assert control[1] == 2 * unit.n_games  # every game of both plays counted


def test_a_unit_cut_short_holds_the_same_trials_for_every_play(unit):
    control = np.zeros(2, dtype=np.int64)
    stopper = stop_after_games(control, 4)
    cut = run_unit(unit, control=control)
    stopper.join()
    assert 0 < cut.games < unit.n_games
    # Its sums are those of a unit of that many trials: the first trials of the whole unit,
    # on the same dice for both plays (so their paired differences stand).
    assert cut == run_unit(replace(unit, n_games=cut.games))


def test_cancelled_candidate_plays_report_every_play_with_trials(tmp_path):
    cancel = threading.Event()
    path = tmp_path / "plays.json"
    calls: list = []
    reports: list = []
    canceller = Canceller(cancel, 2.0, calls)

    def progress(p):
        reports.append(p)
        calls.append((time.monotonic(), p.trials_done))

    r = rollout_plays("start", "31", 2592, "neural", seed=2, jobs=1, chunk_size=1296,
                      plays="8/5 6/5,24/23 13/10", cancel=cancel, checkpoint=path,
                      progress=progress)
    canceller.join()
    assert r.interrupted
    # The progress carries each play's running figures (none before the first unit merges).
    assert all([q.play for q in p.plays] == ["8/5 6/5", "24/23 13/10"] for p in reports)
    trials = [p.trials for p in r.plays]
    assert trials[0] > 0 and len(set(trials)) == 1  # the same trials for both: paired
    assert "not started" not in str(r)


# --------------------------------------------------------------------------- the core

def test_the_core_plays_no_game_once_the_stop_flag_is_up():
    control = np.array([1, 0], dtype=np.int64)
    counts, _ = _core.run_games(_start_board(), 100, 1, 1, 7, True, True, control=control)
    assert counts[:7].sum() == 0 and control[1] == 0


def test_the_core_counts_its_games_in_the_control_words():
    control = np.zeros(2, dtype=np.int64)
    counts, _ = _core.run_games(_start_board(), 50, 1, 1, 7, True, True, control=control)
    assert counts[:7].sum() == 50 and control[1] == 50


def test_the_generator_state_carries_a_run_over_several_calls():
    one, moments = _core.run_games(_start_board(), 40, 0, 0, 9, True, True)
    state = np.zeros(4, dtype=np.uint64)
    into = np.zeros(12)
    parts = [_core.run_games(_start_board(), n, 0, 0, 9, True, True, rng_state=state,
                             moments_into=into)[0] for n in (15, 1, 24)]
    assert np.array_equal(sum(parts), one) and np.array_equal(into, moments)


def test_run_control_is_shared_with_a_mapped_copy():
    with RunControl(2, shared=True) as control:
        unit = control.unit(1)
        with unit.words() as words:
            words[1] = 17
            control.stop()
            assert unit.stopped(words) and control.games([1]) == 17


def _start_board() -> np.ndarray:
    return np.ascontiguousarray(Position.initial().board, dtype=np.int8)


def test_a_stop_within_a_match_drops_that_match_and_keeps_the_others():
    from tavli_fast.play.cube import default_match_table

    def matches(n, control=None):
        return _core.run_matches(_start_board(), n, 25, 0, 0, False, 1, 1, 13, True, True, 64,
                                 False, default_match_table(), control=control)

    control = np.zeros(2, dtype=np.int64)
    timer = threading.Timer(1.0, control.__setitem__, (0, 1))
    timer.start()
    cut = matches(10_000, control)
    timer.join()
    played = int(control[1])
    assert 0 < played < 10_000
    # The tallies are those of the matches finished: the same as a run of that many matches.
    assert np.array_equal(cut, matches(played))


def test_the_progress_of_candidate_plays_carries_each_play():
    calls: list = []
    r = rollout_plays("start", "31", 600, "pubeval", seed=2, jobs=1, chunk_size=300,
                      plays="8/5 6/5,24/23 13/10", stop_when_decided=None, progress=calls.append)
    last = {q.play: q for q in calls[-1].plays}
    assert {name: q.trials for name, q in last.items()} == {p.play: p.trials for p in r.plays}
    assert all(q.trials == 600 and q.equity_se > 0 and not q.dropped for q in last.values())


def test_a_plakoto_rollout_is_cancelled_with_its_games():
    cancel = threading.Event()
    r = rollout("start", 10**8, rules="plakoto", seed=4, jobs=1, chunk_size=10**6, cancel=cancel,
                progress=cancel_when(cancel, 1, []))
    assert r.interrupted and 0 < r.games < 10**6
    draws = round(r.variant["draw"][0] * r.games)
    assert sum(r.counts) + draws == r.games


def test_a_cancel_is_answered_while_the_databases_are_built():
    from tavli_fast.run.executors.local import LocalExecutor

    cancel = threading.Event()
    ticks: list = []
    canceller = Canceller(cancel, 0.5)
    stopped = LocalExecutor(2).run([1, 2], abs, lambda i, r: None, lambda: False,
                                   lambda unit: time.sleep(30), cancel=cancel, tick=ticks.append)
    canceller.join()
    assert stopped and time.monotonic() - canceller.set_at < ANSWER_S
    assert ticks  # the progress goes on while they are built


def test_without_a_file_for_the_stop_flag_the_pool_still_runs(monkeypatch, caplog):
    from tavli_fast.run import control

    def refused(*args, **kwargs):
        raise PermissionError("no temporary directory")

    spec = dict(position="start", trials=2000, players="pubeval", seed=8, chunk_size=500)
    reference = rollout(**spec, jobs=1)
    monkeypatch.setattr(control.tempfile, "mkstemp", refused)
    r = rollout(**spec, jobs=2)
    assert (r.games, r.counts, r.plies_sum) == (reference.games, reference.counts,
                                                reference.plies_sum)
    assert "cannot share its stop flag" in caplog.text


def test_candidate_plays_cut_within_a_unit_resume_to_the_uninterrupted_numbers(tmp_path):
    spec = dict(position="start", dice="62", trials=40_000, players="pubeval", seed=6,
                chunk_size=20_000, plays="24/18 13/11,13/5", stop_when_decided=None)
    whole = rollout_plays(**spec, jobs=1)
    cancel = threading.Event()
    path = tmp_path / "plays.json"
    # Stopped within the second unit: its whole blocks count, the checkpoint has the first.
    cut = rollout_plays(**spec, jobs=1, checkpoint=path, cancel=cancel,
                        progress=cancel_when(cancel, 2 * 20_000 + 2, []))
    assert cut.interrupted
    trials = {p.trials for p in cut.plays}
    assert len(trials) == 1 and 20_000 < trials.pop() < 40_000
    resumed = rollout_plays(None, resume=path, jobs=1)
    strip = lambda d: {k: v for k, v in d.items() if k not in ("elapsed_s", "checkpoint")}  # noqa: E731
    assert strip(resumed.to_dict()) == {**strip(whole.to_dict()), "interrupted": False}


def test_a_plakoto_unit_played_in_blocks_gives_the_numbers_of_one_call():
    from tavli_fast.jobs.openings import OpeningsJob, make_openings_request

    request = make_openings_request(200, "heuristic", 3, "backgammon", "31", None, None, 200,
                                    True, True, True, None, "plakoto", None)
    unit = OpeningsJob(request).plan()[0]
    control = np.zeros(2, dtype=np.int64)
    assert run_unit(unit, control=control) == run_unit(unit)
    assert control[1] == len(unit.boards) * unit.n_games
    control = np.zeros(2, dtype=np.int64)
    stopper = stop_after_games(control, 10)
    cut = run_unit(replace(unit, n_games=20_000), control=control)
    stopper.join()
    assert 0 < cut.games < 20_000
    assert cut == run_unit(replace(unit, n_games=cut.games))
