"""Match equity tables: the chance of winning a match from a score, before a game starts.

A table is package data, ``data/met/<name>.json``, holding its ``name``, ``source``,
``pre_crawford`` (n x n) and ``post_crawford`` (n) arrays. ``pre_crawford[i][j]`` is the
match-winning chance (MWC) of a player who needs ``i + 1`` points against one who needs
``j + 1``, before or at the Crawford game: row or column 0 is the Crawford game itself.
``post_crawford[j]`` is the MWC of the trailer who needs ``j + 1`` points against a 1-away
leader after the Crawford game has been played. A player who needs 0 points has won.

The default table is Kazaross-XG2, the default of GNU Backgammon and eXtreme Gammon. No code
here assumes its 25 points: every bound comes from the table loaded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources

import numpy as np

from .. import _core

__all__ = ["MatchEquityTable", "load_met", "match_equity", "DEFAULT_MET"]

DEFAULT_MET = "kazaross-xg2"


def _away_count(name: str, value: object) -> int:
    # bool is an int subclass and 2.0 is not a count of points: both are refused.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int (points needed), got {value!r}")
    return int(value)


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A match equity table (read-only arrays); see the module docstring for the layout.

    ``max_away`` is the largest away count it covers (n). ``mwc`` answers for any score.
    """

    name: str
    source: str
    pre_crawford: np.ndarray
    post_crawford: np.ndarray

    def __post_init__(self) -> None:
        pre = np.array(self.pre_crawford, dtype=np.float64)
        post = np.array(self.post_crawford, dtype=np.float64)
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise ValueError(f"match equity table {self.name!r}: pre_crawford must be n x n, "
                             f"got shape {pre.shape}")
        if post.shape != (pre.shape[0],):
            raise ValueError(f"match equity table {self.name!r}: post_crawford must have "
                             f"{pre.shape[0]} entries, got shape {post.shape}")
        for label, values in (("pre_crawford", pre), ("post_crawford", post)):
            if not np.all((values >= 0) & (values <= 1)):
                raise ValueError(f"match equity table {self.name!r}: {label} holds values "
                                 f"outside [0, 1]")
        pre.flags.writeable = False
        post.flags.writeable = False
        object.__setattr__(self, "pre_crawford", pre)
        object.__setattr__(self, "post_crawford", post)

    @cached_property
    def kernel(self) -> _core.MatchTableC:
        """The table as the cube kernels read it (``_cube.pxi``: one lookup for all callers)."""
        return _core.MatchTableC(self.pre_crawford, self.post_crawford)

    @property
    def max_away(self) -> int:
        """The largest away count the table covers."""
        return int(self.pre_crawford.shape[0])

    def mwc(self, away_me: int, away_opponent: int, post_crawford: bool = False) -> float:
        """MWC of the player who needs ``away_me`` points against ``away_opponent``.

        0 (or fewer) away has already won. With one side 1-away, ``post_crawford=False`` is
        the Crawford game and ``True`` a game after it (read from ``post_crawford``).
        """
        me = _away_count("away_me", away_me)
        opponent = _away_count("away_opponent", away_opponent)
        if not isinstance(post_crawford, (bool, np.bool_)):
            raise ValueError(f"post_crawford must be a bool, got {post_crawford!r}")
        for name, away in (("away_me", me), ("away_opponent", opponent)):
            if away > self.max_away:
                raise ValueError(
                    f"{name} = {away} is beyond the {self.max_away}-point match equity table "
                    f"{self.name!r}"
                )
        if me <= 0 and opponent <= 0:
            raise ValueError(
                f"both players have already won ({me} and {opponent} away): no such score"
            )
        if post_crawford and 1 not in (me, opponent) and me > 0 and opponent > 0:
            raise ValueError(
                f"post-Crawford needs a player 1-away, the score is {me}-away, "
                f"{opponent}-away"
            )
        return float(_core.match_mwc(self.kernel, me, opponent, bool(post_crawford)))


@lru_cache(maxsize=None)
def load_met(name: str = DEFAULT_MET) -> MatchEquityTable:
    """The match equity table shipped as ``data/met/<name>.json`` (loaded once, cached)."""
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name[0] == ".":
        raise ValueError(f"a match equity table name is a plain file stem, got {name!r}")
    folder = resources.files("tavli_fast") / "data" / "met"
    entry = folder / f"{name}.json"
    if not entry.is_file():
        known = sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))
        raise ValueError(f"no match equity table {name!r}; shipped: {', '.join(known)}")
    data = json.loads(entry.read_text(encoding="utf-8"))
    return MatchEquityTable(
        name=data["name"],
        source=data["source"],
        pre_crawford=np.asarray(data["pre_crawford"], dtype=np.float64),
        post_crawford=np.asarray(data["post_crawford"], dtype=np.float64),
    )


def match_equity(away_me: int, away_opponent: int, post_crawford: bool = False) -> float:
    """MWC of the first player by the default table (Kazaross-XG2); see MatchEquityTable.mwc."""
    return load_met().mwc(away_me, away_opponent, post_crawford)
