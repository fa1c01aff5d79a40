"""Bear-off databases: exact answers for the end of a race, built once and cached on disk.

* One-sided: for every position of up to ``checkers`` checkers on a side's ``points`` lowest
  points (default 15 on 6: C(21, 6) = 54,264 positions), the exact distribution of the number
  of rolls needed to bear everything off under the play that minimises its mean, and, for
  positions with all 15 still on the board, the distribution of the rolls until the first
  checker is off (what saving a gammon needs).
* Two-sided: for every pair of positions of up to ``two_sided_checkers`` checkers a side on 6
  points, the exact cubeless probability that the side on roll wins, both sides playing to win.
* Cubeful two-sided (built when cube decisions first need it): for the same pairs, the
  exact money equities of the side on roll with the cube centred, owned by it, and owned by
  its opponent, both sides playing checkers and cube perfectly (an unlimited cube, as GNU
  Backgammon's database has it). Cube decisions, the players' cube in games and truncated
  cubeful rollouts read it; ``docs/cube.md`` says where and how exact it is.
* Beyond the two-sided database, races are estimated from the two one-sided distributions
  (flagged ``exact=False``).

The dynamic programs run in the compiled core (``_bearoff.pxi``); this module owns the files.
Each file is self-describing: magic bytes, format version, a JSON header (kind, points,
checkers, array names, dtypes, shapes) and the SHA-256 of the payload, all checked on load.
A missing file is built on first use (logged on the ``tavli_fast.bearoff`` logger); a corrupt
or foreign file is never rebuilt silently: the error names the file and the command that
rebuilds it.

Cache directory: the ``cache_dir`` argument, else the environment variable
``TAVLI_FAST_CACHE``, else the user cache directory of platformdirs (``tavli_fast``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import platformdirs

from .. import _core
from .._version import __version__
from ..run.atomic import atomic_file
from ..errors import check_dice
from ..game.position import Position

__all__ = [
    "BearoffDatabase",
    "BearoffDatabaseError",
    "RaceEstimate",
    "bearoff_rolls",
    "bearoff_win_probability",
    "bearoff_best_play",
    "default_database",
    "cache_directory",
    "CubefulEquities",
    "DEFAULT_TWO_SIDED_CHECKERS",
]

logger = logging.getLogger("tavli_fast.play.bearoff")

#: The size of the default cubeful database's file, for the note before its first build.
CUBEFUL_BUILD_SIZE = "about 300 MB"

MAGIC = b"TAVLIBO\x00"
FORMAT_VERSION = 1
ENV_CACHE = "TAVLI_FAST_CACHE"
REBUILD_COMMAND = "tavli-bearoff --rebuild"
DEFAULT_POINTS = 6
DEFAULT_CHECKERS = 15
# 9 checkers a side: C(15, 6)^2 = 25M pairs, a 100 MB float32 table built in ~4 s
# on the 2-core reference machine; 10 would be 256 MB.
DEFAULT_TWO_SIDED_CHECKERS = 9
ROLLS_PER_EPC = 49 / 6  # effective pip count = mean rolls x 49/6 (8.17 pips a roll)

_PREAMBLE = struct.Struct("<8sII")  # magic, format version, header length
_ALIGN = 64


class BearoffDatabaseError(RuntimeError):
    """A database file that cannot be used (corrupt, foreign or of another format version)."""


@dataclass(frozen=True)
class CubefulEquities:
    """Exact money equities of the side on roll, before its roll and before its own cube
    action, per unit of the current cube (an unlimited cube), from the cubeful two-sided
    database: ``centred``, ``owned`` (by the side on roll) and ``opponent_owns``. Doubling
    is worth ``double_take`` = 2 x ``opponent_owns`` when taken, +1 when passed."""

    centred: float
    owned: float
    opponent_owns: float

    @property
    def double_take(self) -> float:
        return 2.0 * self.opponent_owns


@dataclass(frozen=True)
class RaceEstimate:
    """Cubeless race probabilities for the side on roll.

    ``exact`` is True only inside the two-sided database (then no gammon is possible, as both
    sides have borne off checkers); otherwise the figures come from the one-sided
    distributions as if each side played to bear off fastest, independently of the other.
    """

    win: float
    win_gammon: float
    lose_gammon: float
    exact: bool

    @property
    def equity(self) -> float:
        return 2 * self.win - 1 + self.win_gammon - self.lose_gammon


# --------------------------------------------------------------------- cache directory
def cache_directory(cache_dir: str | os.PathLike | None = None) -> Path:
    """The directory the databases live in: `cache_dir`, $TAVLI_FAST_CACHE, or the user cache."""
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir("tavli_fast"))


def _rebuild_hint(directory: Path, options: str = "") -> str:
    default = cache_directory() if not os.environ.get(ENV_CACHE) else None
    where = "" if default is not None and directory == default else f" --cache-dir {directory}"
    return f"{REBUILD_COMMAND}{options}{where}"


# --------------------------------------------------------------------- file format
def write_database(path: Path, kind: str, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write arrays to `path` atomically (a temporary file renamed into place)."""
    entries, offset = [], 0
    for name, array in arrays.items():
        array = np.ascontiguousarray(array)
        entries.append({"name": name, "dtype": array.dtype.str, "shape": list(array.shape),
                        "offset": offset, "nbytes": array.nbytes})
        offset += -(-array.nbytes // _ALIGN) * _ALIGN
    digest = hashlib.sha256()
    for entry, array in zip(entries, arrays.values()):
        digest.update(_padded(np.ascontiguousarray(array).tobytes(), entry["nbytes"]))
    header = {"kind": kind, **meta, "arrays": entries, "payload_bytes": offset,
              "sha256": digest.hexdigest()}
    text = json.dumps(header, sort_keys=True).encode()
    start = -(-(_PREAMBLE.size + len(text)) // _ALIGN) * _ALIGN
    text += b" " * (start - _PREAMBLE.size - len(text))
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, readable=True) as f:  # the cache is plain data anyone may read
        f.write(_PREAMBLE.pack(MAGIC, FORMAT_VERSION, len(text)))
        f.write(text)
        for entry, array in zip(entries, arrays.values()):
            f.write(_padded(np.ascontiguousarray(array).tobytes(), entry["nbytes"]))


def _padded(data: bytes, nbytes: int) -> bytes:
    return data + b"\0" * (-(-nbytes // _ALIGN) * _ALIGN - nbytes)


def read_database(path: Path, kind: str, expect: dict, rebuild: str) -> tuple[dict, dict]:
    """(header, read-only arrays memory-mapped from the file), every check passed."""

    def bad(reason: str) -> BearoffDatabaseError:
        return BearoffDatabaseError(
            f"bear-off database {path} is unusable: {reason}. It is not rebuilt automatically; "
            f"rebuild it with: {rebuild}"
        )

    size = path.stat().st_size
    with open(path, "rb") as f:
        preamble = f.read(_PREAMBLE.size)
        if len(preamble) < _PREAMBLE.size:
            raise bad("the file is truncated")
        magic, version, header_len = _PREAMBLE.unpack(preamble)
        if magic != MAGIC:
            raise bad("wrong magic bytes (not a tavli_fast bear-off database)")
        if version != FORMAT_VERSION:
            raise bad(f"format version {version}, this tavli_fast reads version {FORMAT_VERSION}")
        try:
            header = json.loads(f.read(header_len))
        except (ValueError, UnicodeDecodeError):
            raise bad("its header is not valid JSON") from None
    if not isinstance(header, dict) or header.get("kind") != kind:
        raise bad(f"it is not a {kind} database")
    for key, value in expect.items():
        if header.get(key) != value:
            raise bad(f"{key} is {header.get(key)!r}, expected {value!r}")
    start = -(-(_PREAMBLE.size + header_len) // _ALIGN) * _ALIGN
    try:
        payload_bytes = int(header["payload_bytes"])
        entries = list(header["arrays"])
    except (KeyError, TypeError, ValueError):
        raise bad("its header lacks the array table") from None
    if size != start + payload_bytes:
        raise bad(f"the file has {size} bytes, its header announces {start + payload_bytes}")
    payload = np.memmap(path, dtype=np.uint8, mode="r", offset=start, shape=(payload_bytes,))
    digest = hashlib.sha256()
    for lo in range(0, payload_bytes, 1 << 24):
        digest.update(payload[lo:lo + (1 << 24)])
    if digest.hexdigest() != header.get("sha256"):
        raise bad("its checksum (SHA-256 of the payload) does not match: the file is corrupt")
    arrays = {}
    try:
        for e in entries:
            raw = payload[e["offset"]:e["offset"] + e["nbytes"]]
            arrays[e["name"]] = raw.view(np.dtype(e["dtype"])).reshape(e["shape"])
    except (KeyError, TypeError, ValueError):
        raise bad("its array table does not match its payload") from None
    return header, arrays


# --------------------------------------------------------------------- building
def _one_sided_path(directory: Path, points: int, checkers: int) -> Path:
    return directory / f"bearoff1-p{points}-c{checkers}.tfdb"


def _two_sided_path(directory: Path, checkers: int) -> Path:
    return directory / f"bearoff2-p6-c{checkers}.tfdb"


def _cubeful_path(directory: Path, checkers: int) -> Path:
    return directory / f"bearoff2cf-p6-c{checkers}.tfdb"


def build_one_sided(points: int = DEFAULT_POINTS, checkers: int = DEFAULT_CHECKERS) -> dict:
    """Solve the one-sided database in memory: arrays rolls, mean (+ first, first_mean)."""
    # Every die can be played in a race without contact and moves a checker >= 1 pip, so a
    # roll that does not finish removes >= 2 pips: at most pips/2 + 1 rolls.
    k_cols = points * checkers // 2 + 2
    rolls, mean, first, first_mean = _core.bearoff_build_one_sided(points, checkers, k_cols)
    used = int(np.flatnonzero(rolls.any(axis=0)).max()) + 1
    arrays = {"rolls": rolls[:, :used], "mean": mean}
    if checkers == 15:
        arrays["first"] = first[:, :used]
        arrays["first_mean"] = first_mean
    return arrays


def _build_and_write(path: Path, kind: str, meta: dict, build) -> None:
    logger.info("building the %s bear-off database (%s) into %s", kind,
                ", ".join(f"{k} {v}" for k, v in meta.items()), path)
    t0 = time.perf_counter()
    arrays = build()
    seconds = time.perf_counter() - t0
    write_database(path, kind, {**meta, "build_seconds": round(seconds, 3),
                                "created_by": _version()}, arrays)
    logger.info("built %s in %.1f s (%.1f MB)", path.name, seconds, path.stat().st_size / 1e6)


def _version() -> str:
    return f"tavli_fast {__version__}"


def _ensure_one_sided(directory: Path, points: int, checkers: int, build: bool) -> Path:
    """The file's path, after building it if it is missing (and `build`)."""
    path = _one_sided_path(directory, points, checkers)
    if not path.exists():
        if not build:
            raise FileNotFoundError(f"no one-sided bear-off database at {path}")
        _build_and_write(path, "one-sided", {"points": points, "checkers": checkers},
                         lambda: build_one_sided(points, checkers))
    return path


def _ensure_two_sided(directory: Path, checkers: int, build: bool) -> Path:
    """The file's path, after building it if it is missing (and `build`)."""
    path = _two_sided_path(directory, checkers)
    if not path.exists():
        if not build:
            raise FileNotFoundError(f"no two-sided bear-off database at {path}")
        _build_and_write(path, "two-sided", {"points": 6, "checkers": checkers},
                         lambda: {"win_by_opponent": _core.bearoff_build_two_sided(checkers)})
    return path


def _ensure_cubeful(directory: Path, checkers: int, build: bool) -> Path:
    """The cubeful file's path, after building it if it is missing (and `build`)."""
    path = _cubeful_path(directory, checkers)
    if not path.exists():
        if not build:
            raise FileNotFoundError(f"no cubeful two-sided bear-off database at {path}")
        # A long first-use build that would look like a hang: say so first (one line).
        logger.warning("building the cubeful bear-off database once, into %s (%s; it takes "
                       "15-60 s, later runs read it)", path, CUBEFUL_BUILD_SIZE)
        _build_and_write(path, "cubeful two-sided", {"points": 6, "checkers": checkers},
                         lambda: {"nd_by_opponent": _core.bearoff_build_two_sided_cubeful(checkers)})
    return path


def load_one_sided(directory: Path, points: int, checkers: int, build: bool) -> dict:
    path = _ensure_one_sided(directory, points, checkers, build)
    meta = {"points": points, "checkers": checkers}
    options = "" if (points, checkers) == (DEFAULT_POINTS, DEFAULT_CHECKERS) else (
        f" --points {points} --checkers {checkers}")
    return read_database(path, "one-sided", meta, _rebuild_hint(directory, options))[1]


def load_two_sided(directory: Path, checkers: int, build: bool) -> np.ndarray:
    path = _ensure_two_sided(directory, checkers, build)
    meta = {"points": 6, "checkers": checkers}
    options = "" if checkers == DEFAULT_TWO_SIDED_CHECKERS else f" --two-sided {checkers}"
    return read_database(path, "two-sided", meta, _rebuild_hint(directory, options))[1][
        "win_by_opponent"]


def load_cubeful(directory: Path, checkers: int, build: bool) -> np.ndarray:
    path = _ensure_cubeful(directory, checkers, build)
    options = " --cubeful" + ("" if checkers == DEFAULT_TWO_SIDED_CHECKERS
                              else f" --two-sided {checkers}")
    return read_database(path, "cubeful two-sided", {"points": 6, "checkers": checkers},
                         _rebuild_hint(directory, options))[1]["nd_by_opponent"]


# --------------------------------------------------------------------- the database object
class BearoffDatabase:
    """The loaded bear-off databases (read-only; memory-mapped, so processes share the pages).

    ``two_sided_checkers=0`` leaves the two-sided database out; ``cubeful`` adds the
    cubeful two-sided database (what cube decisions need).  Pass ``tables`` (a
    ``_core.BearoffTables``) into compiled code: ``&tables.db`` is a ``const BearoffDB*``.
    """

    def __init__(
        self,
        cache_dir: str | os.PathLike | None = None,
        points: int = DEFAULT_POINTS,
        checkers: int = DEFAULT_CHECKERS,
        two_sided_checkers: int = DEFAULT_TWO_SIDED_CHECKERS,
        build: bool = True,
        cubeful: bool = False,
    ) -> None:
        _check_config(points, checkers, two_sided_checkers)
        if cubeful and not two_sided_checkers:
            raise ValueError("the cubeful database is a two-sided one: two_sided_checkers "
                             "must be at least 1")
        self.directory = cache_directory(cache_dir)
        self.points = points
        self.checkers = checkers
        self.two_sided_checkers = two_sided_checkers
        self._build = build
        one = load_one_sided(self.directory, points, checkers, build)
        self._rolls = one["rolls"]
        self._mean = one["mean"]
        self._first = one.get("first")
        self._win = (load_two_sided(self.directory, two_sided_checkers, build)
                     if two_sided_checkers else None)
        self.cubeful = bool(cubeful)
        self._cubeful = (load_cubeful(self.directory, two_sided_checkers, build)
                         if cubeful else None)
        self.tables = _core.BearoffTables(points, checkers, self._rolls, self._mean,
                                          self._first, self._win, self._cubeful)

    def __reduce__(self):
        # Workers reopen the files (and share their pages) instead of pickling 100 MB.
        return (BearoffDatabase, (self.directory, self.points, self.checkers,
                                  self.two_sided_checkers, False, self.cubeful))

    def __repr__(self) -> str:
        return (f"BearoffDatabase({str(self.directory)!r}, points={self.points}, "
                f"checkers={self.checkers}, two_sided_checkers={self.two_sided_checkers}, "
                f"cubeful={self.cubeful})")

    @property
    def max_rolls(self) -> int:
        """The largest number of rolls any position can need."""
        return self._rolls.shape[1] - 1

    # ----------------------------------------------------------------- one-sided
    def index(self, points: Sequence[int]) -> int:
        """The one-sided index of a side: ``points[i]`` checkers on point i + 1."""
        return int(_core.bearoff_index(self._counts(points)))

    def rolls(self, points: Sequence[int]) -> np.ndarray:
        """``p[k]`` = P(exactly k rolls to bear off), k = 0 .. max_rolls (a new array)."""
        return np.array(self._rolls[self.index(points)])

    def mean_rolls(self, points: Sequence[int]) -> float:
        return float(self._mean[self.index(points)])

    def first_off(self, points: Sequence[int]) -> np.ndarray:
        """``p[k]`` = P(the first checker is off after exactly k rolls), for 15 on the board."""
        counts = self._counts(points)
        if self._first is None or int(counts.sum()) != 15:
            raise ValueError("rolls until the first checker is off exist only for a side with "
                             "all 15 checkers on the board (in a 15-checker database)")
        return np.array(self._first[self.index(counts)])

    def _counts(self, points: Sequence[int]) -> np.ndarray:
        return _side_counts(points, self.points, self.checkers)

    # ----------------------------------------------------------------- two sides
    def win_probability(self, position: str | Position) -> float:
        """Exact P(the side on roll wins); ValueError with the reason outside the database."""
        pos = _as_position(position)
        if self._win is None:
            raise ValueError("this BearoffDatabase was loaded without its two-sided part")
        for side, who in ((0, "the side on roll"), (1, "the opponent")):
            row = pos.board[side]
            if row[7:26].any():
                raise ValueError(f"not a bear-off: {who} has checkers outside its home board")
            left = int(row[1:7].sum())
            if left > self.two_sided_checkers:
                raise ValueError(
                    f"{who} has {left} checkers left; the two-sided database holds up to "
                    f"{self.two_sided_checkers} a side")
        return float(self.tables.win(pos.board))

    def cubeful_equities(self, position: str | Position) -> CubefulEquities:
        """The exact money equities of the side on roll (see CubefulEquities); ValueError
        with the reason outside the cubeful database."""
        pos = _as_position(position)
        if self._cubeful is None:
            raise ValueError("this BearoffDatabase was loaded without its cubeful part "
                             "(BearoffDatabase(cubeful=True))")
        self.win_probability(pos)          # the same checks, the same messages
        return CubefulEquities(*map(float, self.tables.cubeful_equities(pos.board)))

    def race(self, position: str | Position) -> RaceEstimate:
        """Race probabilities for the side on roll: exact in the two-sided database, else
        estimated from the one-sided distributions (ValueError if a side is outside them)."""
        pos = _as_position(position)
        exact = self.tables.win(pos.board) if self._win is not None else None
        if exact is not None:
            return RaceEstimate(float(exact), 0.0, 0.0, True)
        if not pos.is_race():
            raise ValueError("not a race: the sides are still in contact")
        probs = self.tables.race(pos.board)
        if probs is None:
            raise ValueError(f"a side has checkers above point {self.points} or more than "
                             f"{self.checkers}: outside the one-sided database")
        return RaceEstimate(*map(float, probs), exact=False)

    def best_play(self, position: str | Position, die1: int, die2: int) -> Position:
        """The play the databases prefer (sides not switched): the best exact win probability
        inside the two-sided database, else the best race equity estimated from the one-sided
        distributions (gammons included), else the fewest expected rolls."""
        pos = _as_position(position)
        d1, d2 = check_dice(die1, die2)
        board = self.tables.choose(pos.board, d1, d2)
        if board is None:
            raise ValueError(f"not a pure bear-off: the side on roll must have all its checkers "
                             f"on points 1-{self.points} and no contact with the opponent")
        return Position.from_board(board)


def in_two_sided(board: np.ndarray, checkers: int = DEFAULT_TWO_SIDED_CHECKERS) -> bool:
    """Are both sides of `board` inside a two-sided database of `checkers` a side (every
    checker left on points 1-6, at most `checkers` of them)?"""
    return all(not row[7:26].any() and int(row[1:7].sum()) <= checkers for row in board)


def _check_config(points: int, checkers: int, two_sided: int) -> None:
    for name, value, lo, hi in (("points", points, 1, 23), ("checkers", checkers, 1, 15),
                                ("two_sided_checkers", two_sided, 0, 15)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
            raise ValueError(f"{name} must be a whole number from {lo} to {hi}, got {value!r}")


def _side_counts(points: Sequence[int], n_points: int, checkers: int) -> np.ndarray:
    values = list(points)
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in values):
        raise ValueError(f"checker counts must be non-negative whole numbers, got {values!r}")
    if any(values[n_points:]):
        raise ValueError(f"checkers above point {n_points}: outside this {n_points}-point database")
    counts = np.zeros(n_points, dtype=np.int8)
    counts[:min(len(values), n_points)] = values[:n_points]
    if int(sum(values)) > checkers:
        raise ValueError(f"{sum(values)} checkers: the database holds up to {checkers}")
    return counts


def _as_position(position: str | Position) -> Position:
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_id(position)
    raise TypeError(f"a position is a Position ID, an XGID or a Position, "
                    f"not {type(position).__name__}")


# --------------------------------------------------------------------- module-level API
@functools.lru_cache(maxsize=4)
def _cached_database(directory: Path, two_sided_checkers: int, cubeful: bool) -> BearoffDatabase:
    return BearoffDatabase(directory, two_sided_checkers=two_sided_checkers, cubeful=cubeful)


def default_database(cache_dir: str | os.PathLike | None = None,
                     two_sided: bool = True, cubeful: bool = False) -> BearoffDatabase:
    """The default databases in the cache directory, built on first use; `cubeful` adds
    the cubeful two-sided database (cube decisions).

    Memoised per directory: the files are read-only data, so this holds no mutable state.
    """
    return _cached_database(cache_directory(cache_dir),
                            DEFAULT_TWO_SIDED_CHECKERS if two_sided or cubeful else 0,
                            bool(cubeful))


def build_missing_databases(cache_dir: str | os.PathLike | None = None,
                            cubeful: bool = False) -> None:
    """Build the default database files that do not exist yet, without reading any.

    For a parent process about to start workers: each worker loads (and verifies) the
    files itself, so the parent need not map 100 MB it never reads.
    """
    directory = cache_directory(cache_dir)
    _ensure_one_sided(directory, DEFAULT_POINTS, DEFAULT_CHECKERS, build=True)
    _ensure_two_sided(directory, DEFAULT_TWO_SIDED_CHECKERS, build=True)
    if cubeful:
        _ensure_cubeful(directory, DEFAULT_TWO_SIDED_CHECKERS, build=True)


def bearoff_rolls(points: Sequence[int], db: BearoffDatabase | None = None) -> np.ndarray:
    """``p[k]`` = P(exactly k rolls to bear off the side with ``points[i]`` on point i + 1).

    ``p[0]`` is 1 only for no checkers at all.
    """
    return (db or default_database(two_sided=False)).rolls(points)


def bearoff_win_probability(position_id: str | Position, db: BearoffDatabase | None = None) -> float:
    """Exact probability that the side on roll wins (ValueError, with the reason, outside the
    two-sided database)."""
    return (db or default_database()).win_probability(position_id)


def bearoff_best_play(position: str | Position, die1: int, die2: int,
                      db: BearoffDatabase | None = None) -> Position:
    """The play optimal by the databases (sides not switched); see BearoffDatabase.best_play."""
    return (db or default_database()).best_play(position, die1, die2)
