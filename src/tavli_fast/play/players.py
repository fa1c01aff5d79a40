"""The players the engine knows, by name.

- ``random``: picks uniformly among the distinct resulting positions of the
  roll (each distinct position once, however many move orders reach it).
- ``pubeval``: Tesauro's public evaluation function (1993), the field's
  standard benchmark player: the play whose resulting position scores highest
  with the race or contact weights.
- ``greedy``: our own hand-written heuristic (see ``_greedy.pxi``): hit, make
  points and primes, avoid exposed blots, and run and bear off efficiently once
  contact is broken.
- ``bearoff``: pubeval, except that in a pure bear-off it always plays the
  play that is best by the exact bear-off databases (``bearoff.py``).

- ``neural``: the play with the best cubeless equity by the shipped neural
  net (``neural.py``, ``_neural.pxi``) at 0 ply: each resulting position is
  evaluated once.
- ``neural-1ply``: the few best plays by 0 ply (at most 5, within 0.16 of the
  best) are looked at one ply deeper: the mean over the opponent's 21 rolls of
  the opponent's best 0-ply reply.  About 60 times slower than ``neural``.
- ``neural-2ply``: of the plays ``neural-1ply`` looks at, the best by 1 ply (at
  most 3, within 0.10 of the best) are looked at two rolls ahead: the mean over
  the opponent's 21 rolls of the position after his best 0-ply reply, valued at
  1 ply (gnubg's 2-ply; ``_nn_search.pxi``, with a cache of the positions it
  values kept through each chunk of games).  Slow: about 15 times
  ``neural-1ply`` (about half a second of CPU a game); +0.024 +- 0.005 points a game
  against ``neural-1ply`` over 44,000 paired games (docs/performance.md).
  In a match with the cube all three value gammons at the score's prices, and the
  look-ahead picks the opponent's replies at his.

pubeval, greedy and the neural players also play pure bear-offs by the
databases unless that is turned off (``bearoff=False`` in simulate and
rollout, ``--no-bearoff``); with them, the neural evaluator also values every
bear-off by the databases (cube decisions, luck, the 1-ply look).

Every player is deterministic given the dice except ``random``, which draws
from the game's random number generator.

With the doubling cube (cubeful rollouts, matches), the neural players make cube
decisions by ``cube.py``'s 0-ply model on the net's probabilities; the others by a
pip-count rule: no cube action in contact (always take), and in a race double with a
lead of 8 % of their pip count (9 % to redouble), take while at most 12 % behind; the
post-Crawford trailer doubles at once (``_game.pxi``, ``cube_view``). Checker play never
depends on the cube.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .. import _core
from ..checks import player_names
from ..errors import check_dice
from ..game.movegen import require_game_in_progress
from ..game.position import Position
from .bearoff import build_missing_databases, default_database
from .neural import net_of_choice, with_bearoff

if TYPE_CHECKING:
    from .neural import NetChoice

__all__ = ["PLAYERS", "player_id", "player_kinds", "needs_bearoff", "needs_net", "game_resources",
           "choose"]

PLAYERS: dict[str, int] = {
    "random": int(_core.PlayerKind.PLAYER_RANDOM),
    "pubeval": int(_core.PlayerKind.PLAYER_PUBEVAL),
    "greedy": int(_core.PlayerKind.PLAYER_GREEDY),
    "bearoff": int(_core.PlayerKind.PLAYER_BEAROFF),
    "neural": int(_core.PlayerKind.PLAYER_NEURAL),
    "neural-1ply": int(_core.PlayerKind.PLAYER_NEURAL_1PLY),
    "neural-2ply": int(_core.PlayerKind.PLAYER_NEURAL_2PLY),
}

#: The neural players by search depth.
NEURAL_BY_PLY: tuple[str, ...] = ("neural", "neural-1ply", "neural-2ply")

_NEURAL = tuple(PLAYERS[name] for name in NEURAL_BY_PLY)


def player_id(name: str) -> int:
    """The core's number for the player called `name`."""
    try:
        return PLAYERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown player {name!r}: choose one of {', '.join(PLAYERS)}"
        ) from None


def needs_bearoff(kinds: tuple[int, int], bearoff_play: bool) -> bool:
    """Whether games between these players use the bear-off databases."""
    if int(_core.PlayerKind.PLAYER_BEAROFF) in kinds:
        return True
    return bearoff_play and any(k != int(_core.PlayerKind.PLAYER_RANDOM) for k in kinds)


def needs_net(kinds: tuple[int, ...]) -> bool:
    """Whether one of these players evaluates positions with the neural net."""
    return any(k in _NEURAL for k in kinds)


def game_resources(kinds: tuple[int, ...], bearoff_play: bool, truncate: bool = False,
                   cache_dir: str | os.PathLike | None = None, *,
                   load: bool = True, net: bool = False,
                   weights: NetChoice | None = None, cubeful: bool = False) -> dict[str, Any]:
    """Keyword arguments ``bearoff`` and ``net`` for ``_core.run_games`` / ``_core.choose``:
    the bear-off tables and the neural net that games between these players need (`net`:
    the net is needed anyway, for variance reduction or truncation after N plies; `weights`:
    which net, None for the shipped one, see ``neural.choose_net``; `cubeful`: games with
    the cube, whose money bear-offs the cubeful database decides, and truncates).

    Both are loaded once per process (memory-mapped databases, the weights), so a
    worker pays for them on its first chunk only. With ``load=False`` nothing is loaded:
    missing database files are only built (for a parent about to start workers, which load
    them themselves), and both entries stay None.
    """
    resources: dict[str, Any] = {"bearoff": None, "net": None}
    if cubeful or truncate or needs_bearoff(tuple(kinds) * (2 if len(kinds) == 1 else 1),
                                            bearoff_play):
        if not load:
            build_missing_databases(cache_dir, cubeful=cubeful)
            return resources
        resources["bearoff"] = default_database(cache_dir, cubeful=cubeful).tables
    if load and (net or needs_net(tuple(kinds))):
        # With the databases loaded, they also value the bear-offs the net would estimate.
        plain = net_of_choice(weights)
        tables = resources["bearoff"]
        resources["net"] = plain if tables is None else with_bearoff(plain, tables)
    return resources


def choose(position_id: str, die1: int, die2: int, player: str = "neural", *, seed: int = 0,
           bearoff: bool = True) -> str:
    """The Position ID of the position `player` moves to from `position_id` with (die1, die2),
    seen from the mover (sides not switched), as ``legal_positions`` returns them.

    `position_id` may be a gnubg Position ID or an XGID (its own dice are ignored: the dice
    given are played).  `seed` only matters for ``random``.  With `bearoff`, pure bear-offs
    are played by the bear-off databases (as in games).  Raises InvalidDiceError,
    InvalidPositionError or ValueError (unknown player, finished game).
    """
    kind = player_id(player)
    d1, d2 = check_dice(die1, die2)
    pos = Position.from_id(position_id)
    require_game_in_progress(pos)
    board = _core.choose(pos.board, d1, d2, kind, seed, bearoff_play=bearoff,
                         **game_resources((kind,), bearoff))
    return _core.encode_position_id(board)


def player_kinds(players: object) -> tuple[tuple[str, str], tuple[int, int]]:
    """(names, core player numbers) of the two players, the side on roll first."""
    names = player_names(players)
    return names, (player_id(names[0]), player_id(names[1]))
