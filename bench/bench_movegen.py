"""Move-generation throughput: resulting positions per second, and calls per second.

Run with ``python -m pytest bench --benchmark-only`` from the repository root.

The workload is a fixed mix of positions x the 36 rolls as dice fall:

- ``contact``: the 1,000 contact positions of ../shared/data/positions/contact.csv,
- ``race``: the 1,000 race positions of ../shared/data/positions/race.csv,
- ``bar``: 1,000 distinct positions in which the player on roll has checkers on the
  bar, taken from random games (fixed seed, see `bar_heavy_boards`),
- ``mix``: the three sets together (3,000 positions).

"As dice fall": every position is given all 36 ordered rolls, so a non-double such as
6-1 is played twice (as 6-1 and as 1-6) and a double once, exactly their frequencies
in a game (2/36 and 1/36).  The published counts (data/positions/README.md) count each
non-double once, so the expected totals are ``doubles + 2 * non-doubles``.

Every benchmark first asserts its workload (the number of resulting positions it
produces equals the published or pinned total), then times it, and asserts again on
the timed result.  The same inputs go through `count_plays_batch`,
`generate_plays_batch`, `legal_positions` (one call per position and roll) and GNU
Backgammon's generator ``gnubg_nn.moves`` (test-only dependency, imported here only).

The functions above the benchmarks build the workloads and run them; perf_table.py
imports them so that the README's table measures exactly the same work.
"""

from __future__ import annotations

import functools
import os
import random
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from tavli_fast import Position, count_plays_batch, generate_plays_batch, legal_positions

REPO = Path(__file__).resolve().parents[1]
# ../shared/data/positions relative to the repository root; TAVLI_BENCH_POSITIONS overrides.
POSITIONS_DIR = Path(
    os.environ.get("TAVLI_BENCH_POSITIONS", REPO.parent / "shared" / "data" / "positions")
)

# All 36 ordered rolls: a non-double appears in both orders, as often as it falls.
ROLLS_AS_DICE_FALL: tuple[tuple[int, int], ...] = tuple(
    (d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)
)

# Published totals (data/positions/README.md): (the 6 doubles, the 15 non-doubles once
# each), a roll without a legal play counted as one "pass" position.
PUBLISHED = {"contact": (218_356, 185_957), "race": (140_720, 122_570)}
# GNU Backgammon lists no move for a pass: its totals for the contact set are
# 217,143 and 184,045 (the race set has no pass).
PUBLISHED_GNUBG = {"contact": (217_143, 184_045), "race": (140_720, 122_570)}

BAR_SEED = 20240602
BAR_POSITIONS = 1_000
# The bar set as built by `bar_heavy_boards` (the seed above), over the 36 rolls:
# GNU Backgammon (gnubg_nn.moves, gnubg-nn 1.1.0a11) lists 260,630 resulting positions
# and no move at all for 5,507 (position, roll) pairs, so 266,137 with a pass counted as
# one (117,171 for the doubles + 2 x 74,483 for the non-doubles).  The gnubg_nn.moves
# benchmark on the bar set checks the gnubg figure again.
BAR_EXPECTED_PLAYS = 266_137
BAR_EXPECTED_GNUBG_PLAYS = 260_630


def weighted(doubles: int, non_doubles: int) -> int:
    """Resulting positions over the 36 rolls from totals over the 21 distinct rolls."""
    return doubles + 2 * non_doubles


class Workload(NamedTuple):
    """One benchmark input: positions (as ids, boards and gnubg boards) x rolls."""

    name: str
    ids: list[str]
    boards: np.ndarray  # int8[m, 2, 26]
    gnubg_boards: list[list[list[int]]]
    rolls: tuple[tuple[int, int], ...]
    expected_plays: int  # distinct resulting positions, a pass counted as one
    expected_gnubg_plays: int  # the same, a pass counted as none (GNU Backgammon)

    @property
    def calls(self) -> int:
        return len(self.ids) * len(self.rolls)


def gnubg_board(board: np.ndarray) -> list[list[int]]:
    """Our (2, 26) board as gnubg_nn wants it: [opponent's 25 entries, on-roll's 25]."""
    return [[int(c) for c in board[1, 1:26]], [int(c) for c in board[0, 1:26]]]


def read_ids(name: str) -> list[str]:
    path = POSITIONS_DIR / f"{name}.csv"
    if not path.exists():
        raise FileNotFoundError(
            f"benchmark positions not found at {path}; set TAVLI_BENCH_POSITIONS to the "
            "directory holding contact.csv and race.csv"
        )
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


@functools.cache
def bar_heavy_boards(n: int = BAR_POSITIONS, seed: int = BAR_SEED) -> np.ndarray:
    """`n` distinct boards, the player on roll with checkers on the bar, from random games.

    Games start at the starting position; each turn rolls two dice with
    ``random.Random(seed)`` and picks uniformly among the distinct resulting positions,
    sorted first (by their bytes) so that the choice does not depend on the order in
    which the generator lists them.  Every position met with the side on roll on the bar
    is kept, in order of appearance, until `n` distinct ones are found.
    """
    rng = random.Random(seed)
    start = Position.initial().board
    found: dict[bytes, np.ndarray] = {}
    while len(found) < n:
        board = start
        while True:
            if board[0, 25] > 0:
                found.setdefault(board.tobytes(), board)
                if len(found) == n:
                    break
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            results, _ = generate_plays_batch(board[np.newaxis], [(d1, d2)])
            after = rng.choice(sorted(results, key=lambda b: b.tobytes()))
            if after[0, 0] == 15:  # the mover bore off its last checker
                break
            board = np.ascontiguousarray(after[::-1])  # the opponent is on roll next
    return np.ascontiguousarray(np.stack(list(found.values())), dtype=np.int8)


def _workload(name: str, boards: np.ndarray, ids: list[str], plays: int, gnubg_plays: int):
    return Workload(
        name=name,
        ids=ids,
        boards=boards,
        gnubg_boards=[gnubg_board(b) for b in boards],
        rolls=ROLLS_AS_DICE_FALL,
        expected_plays=plays,
        expected_gnubg_plays=gnubg_plays,
    )


@functools.cache
def workloads() -> dict[str, Workload]:
    """The ``contact``, ``race``, ``bar`` sets and their union ``mix``, x 36 rolls."""
    sets: dict[str, Workload] = {}
    for name in ("contact", "race"):
        ids = read_ids(name)
        boards = np.stack([Position.from_id(i).board for i in ids]).astype(np.int8)
        sets[name] = _workload(
            name, boards, ids, weighted(*PUBLISHED[name]), weighted(*PUBLISHED_GNUBG[name])
        )
    bar = bar_heavy_boards()
    assert len(bar) == BAR_POSITIONS and (bar[:, 0, 25] > 0).all()
    sets["bar"] = _workload(
        "bar",
        bar,
        [Position.from_board(b).position_id() for b in bar],
        BAR_EXPECTED_PLAYS,
        BAR_EXPECTED_GNUBG_PLAYS,
    )
    parts = [sets[name] for name in ("contact", "race", "bar")]
    sets["mix"] = Workload(
        name="mix",
        ids=[i for w in parts for i in w.ids],
        boards=np.ascontiguousarray(np.concatenate([w.boards for w in parts])),
        gnubg_boards=[b for w in parts for b in w.gnubg_boards],
        rolls=ROLLS_AS_DICE_FALL,
        expected_plays=sum(w.expected_plays for w in parts),
        expected_gnubg_plays=sum(w.expected_gnubg_plays for w in parts),
    )
    return sets


# ---------------------------------------------------------------- the timed runs
# Each returns the number of resulting positions it produced.


def run_count_batch(w: Workload) -> int:
    return int(count_plays_batch(w.boards, w.rolls).sum())


def run_generate_batch(w: Workload) -> int:
    results, offsets = generate_plays_batch(w.boards, w.rolls)
    assert offsets[-1] == len(results)
    return len(results)


def run_legal_positions(w: Workload) -> int:
    total = 0
    lp = legal_positions
    rolls = w.rolls
    for position_id in w.ids:
        for d1, d2 in rolls:
            total += len(lp(position_id, d1, d2))
    return total


def run_gnubg_moves(w: Workload) -> int:
    import gnubg_nn

    total = 0
    moves = gnubg_nn.moves
    rolls = w.rolls
    for board in w.gnubg_boards:
        for d1, d2 in rolls:
            total += len(moves(board, d1, d2))
    return total


RUNNERS = {
    "count_plays_batch": (run_count_batch, "expected_plays"),
    "generate_plays_batch": (run_generate_batch, "expected_plays"),
    "legal_positions": (run_legal_positions, "expected_plays"),
    "gnubg_nn.moves": (run_gnubg_moves, "expected_gnubg_plays"),
}


# ---------------------------------------------------------------- benchmarks
SETS = ("contact", "race", "bar", "mix")


@pytest.fixture(scope="module")
def sets() -> dict[str, Workload]:
    return workloads()


@pytest.mark.parametrize("set_name", SETS)
@pytest.mark.parametrize("api", list(RUNNERS))
def test_movegen(benchmark, report_rate, sets, set_name, api):
    if api == "gnubg_nn.moves":
        pytest.importorskip("gnubg_nn")
    workload = sets[set_name]
    run, expected = RUNNERS[api]
    expected_plays = getattr(workload, expected)
    # The workload first: every resulting position is there, no more, no fewer.
    assert run(workload) == expected_plays
    benchmark.group = f"movegen {set_name}: {len(workload.ids):,} positions x 36 rolls"
    benchmark.extra_info["resulting_positions"] = expected_plays
    benchmark.extra_info["calls"] = workload.calls
    assert benchmark(run, workload) == expected_plays
    report_rate(expected_plays, "resulting positions")
    if api in ("legal_positions", "gnubg_nn.moves"):
        report_rate(workload.calls, "calls")
