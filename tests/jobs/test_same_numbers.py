"""The package's move into game/, play/, run/ and jobs/ changed no number: each job kind, run
with the same seed, gives what the flat package gave before the move (commit acf2e87).

The expected figures in ``tests/data/same_numbers.json`` were written by that older package
running this file as a script (``python tests/jobs/test_same_numbers.py --record``, with the
old package installed); nothing here computes them with the code under test. Cases use
players whose play has not changed since on purpose: the Plakoto and Fevga nets were retrained
after the move (those games use the heuristic player), and the neural players now choose their
plays by cubeful equity when the cube is in play (so neural matches here play without it).
The cubeful rollout is played out (``truncate=False``): truncated, the flat package's
cubeless table was wrong (issue 51); its figures were written again by that package
(acf2e87) with the keywords below.
Worker counts differ between cases on purpose: results do not depend on them.
The luck-adjusted figures (``vr``, and the openings' figures, which are luck-adjusted) of
"openings", "rollout neural", "rollout neural vr" and "rollout neural-1ply truncated" were
written again when the luck tables' pre-filter became the default (issue 54: a luck table
values only the best plays of a roll by a first-order estimate): built with exact tables
(``LUCK_FILTER`` (0, 0)) the new code gave every recorded figure bit for bit, and with the
pre-filter only those luck-adjusted figures changed.
The figures of "rollout neural-1ply truncated" were written again when the 1-ply look-ahead's
replies became pre-filtered by default (issue 54: the best 8 of a roll by the pruning net):
with the exact replies every case gave its recorded figures bit for bit, and with the new
default only that case, the one 1-ply player here, changed.
The luck-adjusted figures of the same four cases were written again when the luck tables'
default became the best 8 plays of a roll by the pruning net (issue 54, instead of 12 by the
first-order estimate): only those figures changed (every other figure of the four cases, and
every other case, gave its recorded figures bit for bit).
The luck-adjusted figures of "rollout neural-1ply truncated" were written again when the
1-ply player's later looks began to value the analogues of the best candidate's best replies
(issue 54): its games are the same, but a luck table from a later candidate's look can hold
an analogue the pre-filter would not keep; with the analogues off (run_games'
``reply_analogues`` default set to False for the check) it gave its recorded figures bit for
bit, and no other case changed.
The cases with the net name the float32 evaluator: the figures are float32's, and the default
evaluator became int16 where the processor has AVX2 (issue 54).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

import tavli_fast

DATA = Path(__file__).resolve().parents[1] / "data" / "same_numbers.json"

# Keys that describe the run, not its numbers.
_RUN_KEYS = {"elapsed_s", "games_per_second", "jobs", "checkpoint", "notes", "worker_restarts",
             "interrupted", "resumed_trials", "resumed_matches", "net", "request"}

# name -> (public function, keywords in today's spelling)
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "rollout neural": ("rollout", dict(position="start", trials=400, players="neural",
                                       seed=11, jobs=2, evaluator="float32")),
    "rollout neural vr": ("rollout", dict(position="4HPwATDgc/ABMA", trials=200,
                                          players="neural", seed=12, jobs=1, vr=True,
                                          evaluator="float32")),
    # Played out: truncated, the flat package counted a game whose cube branches had all
    # passed as stopped in the bear-off database wherever it was (issue 51, item 1).
    "rollout pubeval cubeful": ("rollout", dict(position="4HPwATDgc/ABMA", trials=2000,
                                                players="pubeval", seed=13, jobs=2,
                                                cubeful=True, truncate=False)),
    "rollout neural-1ply truncated": ("rollout", dict(position="start", trials=200,
                                                      players="neural-1ply", seed=14, jobs=2,
                                                      truncate_plies=8,
                                                      evaluator="float32")),
    "rollout portes": ("rollout", dict(position="start", trials=2000, players="greedy",
                                       seed=15, jobs=1, rules="portes")),
    "rollout plakoto": ("rollout", dict(position="start", trials=2000, players="heuristic",
                                        seed=16, jobs=2, rules="plakoto")),
    "rollout fevga": ("rollout", dict(position="start", trials=2000, players="heuristic",
                                      seed=17, jobs=1, rules="fevga")),
    "openings": ("openings", dict(trials=36, players="neural", seed=18, jobs=2,
                                  rolls=["31"], evaluator="float32")),
    "replies": ("replies", dict(roll="31", play="8/5 6/5", trials=36, players="pubeval", seed=19, jobs=2)),
    "match": ("play_matches", dict(length=3, matches=60, players=("pubeval", "neural"),
                                   seed=20, jobs=2, cube=False, evaluator="float32")),
    "match portes": ("play_matches", dict(length=3, matches=60, players=("pubeval", "greedy"),
                                          seed=21, jobs=1, rules="portes")),
    "tavli match": ("play_matches", dict(length=3, matches=40,
                                         players=("pubeval", "greedy"), seed=22, jobs=2,
                                         rules="tavli", cube=False)),
    "simulate plakoto": ("simulate", dict(games=500, players=("heuristic", "random"), seed=23,
                                          rules="plakoto")),
}


def _old_spelling(function: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The same call as the flat package spelled it (game=, tavli=)."""
    kwargs = dict(kwargs)
    rules = kwargs.get("rules")
    if rules in ("plakoto", "fevga"):
        kwargs["game"] = rules
        if function == "simulate":
            kwargs["rules"] = None
        else:
            del kwargs["rules"]
    elif rules == "tavli":
        kwargs["tavli"] = True
        del kwargs["rules"]
    return kwargs


def run_case(name: str, old: bool = False) -> dict[str, Any]:
    function, kwargs = CASES[name]
    if old:
        kwargs = _old_spelling(function, kwargs)
    result = getattr(tavli_fast, function)(**kwargs)
    return json.loads(json.dumps(result.to_dict()))


def _differences(expected: Any, actual: Any, where: str) -> list[str]:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {actual!r} is not a mapping"]
        out = []
        for key, value in expected.items():
            if key in _RUN_KEYS:
                continue
            if key not in actual:
                out.append(f"{where}.{key}: missing")
            else:
                out += _differences(value, actual[key], f"{where}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: {actual!r} != {expected!r}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual))
                for d in _differences(e, a, f"{where}[{i}]")]
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        # Same arithmetic, same order: equal to the last bits but for float summation order.
        return [] if math.isclose(expected, actual, rel_tol=1e-12, abs_tol=1e-15) else [
            f"{where}: {actual!r} != {expected!r}"]
    return [] if expected == actual else [f"{where}: {actual!r} != {expected!r}"]


def _record() -> None:
    old = not hasattr(tavli_fast, "api")
    figures = {name: run_case(name, old=old) for name in CASES}
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps({"recorded_with": tavli_fast.__version__, "cases": figures},
                               indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(figures)} cases to {DATA}")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_move_changed_no_number(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    expected = json.loads(DATA.read_text())["cases"][name]
    assert expected, "nothing was recorded"
    problems = _differences(expected, run_case(name), name)
    assert not problems, "\n".join(problems[:20])


def test_the_comparison_can_fail():
    """A changed digit anywhere in the figures is reported, run keys are ignored."""
    expected = {"win": 0.5, "se": {"win": 0.01}, "counts": [1, 2], "elapsed_s": 3.0}
    assert _differences(expected, {**expected, "elapsed_s": 9.0}, "x") == []
    assert _differences(expected, {**expected, "win": 0.5000001}, "x")
    assert _differences(expected, {**expected, "se": {"win": 0.02}}, "x")
    assert _differences(expected, {**expected, "counts": [1, 3]}, "x")
    assert _differences(expected, {k: v for k, v in expected.items() if k != "win"}, "x")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/jobs/test_same_numbers.py --record")
    _record()
