"""What to roll out: ``make_request`` checks a rollout's arguments once and gives a
``RolloutRequest`` (the position, players, rules, cube, variance reduction, seed, chunks),
and ``make_chunk`` / ``plan_chunks`` cut it into the chunks of ``rollout_chunks.py``.

A rollout of ``trials`` games is cut into chunks of ``chunk_size`` trials (chunk ``c`` holds
the global trials ``c * chunk_size ...``), whatever the number of workers.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from functools import partial
from numbers import Integral, Real
from typing import Any, Iterable, Sequence

import numpy as np

from .. import _core
from ..checks import check_count, check_seed, player_names
from ..play.players import NEURAL_BY_PLY, player_kinds
from ..game.resolve import resolve_position
from ..run.plans import MissingIndices, UnitPlan, part_size, parts
from ..play.players import needs_net
from .cubeful import DEFAULT_MAX_CUBE, check_max_cube, cube_branches
from ..play.match_bearoff import REGION_CHECKERS
from ..play.neural import NetChoice, check_evaluator, choose_net
from ..game.position import GameContext, Position
from ..rules import Rules, game_rules, get_rules, option_names
from ..variants.games import uses_variant_net, variant_player_ids
from ..variants.movegen import GAME_CODES, core_options, require_variant_in_progress
from ..variants.neural import check_variant_evaluator, choose_variant_net
from ..variants.position import GAMES, variant_position
from .rollout_chunks import DEFAULT_CHUNK_SIZE, DEFAULT_MOVE_FILTER, DEFAULT_REPLY_FILTER, EXACT_REPLIES, RolloutChunk, chunk_seed, money_branches


def _context_notes(position: Position, cubeful: bool) -> list[str]:
    """What the position's context holds that a cubeless money rollout does not use."""
    notes = []
    context = position.context
    if cubeful:
        if context.match_length:
            notes.append(
                f"match to {context.match_length} at {context.score[0]}-{context.score[1]}"
                + (" (Crawford game)" if context.crawford else "")
                + ": the cubeful figures are match winning chances; the cubeless ones are money"
            )
        return notes
    if context.cube_value != 1:
        notes.append(f"cube value {context.cube_value} ignored: the rollout is cubeless (--cubeful uses it)")
    if context.match_length:
        notes.append(
            f"match to {context.match_length} ignored: equities are cubeless money (--cubeful gives "
            "match winning chances)"
        )
    return notes


@dataclass(frozen=True)
class RolloutRequest:
    """Everything that fixes a rollout's numbers (validated); jobs and progress are not here."""

    position: Position
    position_text: str  # how to rebuild it: its XGID when dice are rolled, else its Position ID
    board: bytes
    players: tuple[str, str]
    player_ids: tuple[int, int]
    rules: Rules
    seed: int
    trials: int
    chunk_size: int
    stratify: bool
    first_roll_no_doubles: bool
    forced_dice: tuple[int, int] | None
    target_se: float | None = None
    min_trials: int = 0
    notes: tuple[str, ...] = ()
    bearoff_play: bool = True
    truncate: bool = False
    cache_dir: str | None = None
    cube_branches: tuple[tuple, ...] | None = None  # cubeful: the branches' starting cubes
    max_cube: int = DEFAULT_MAX_CUBE
    vr: bool = False
    truncate_plies: int = 0
    move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER  # the 1-ply look-ahead's pre-filter
    game: str | None = None  # "plakoto" / "fevga"; None: Portes by ``rules``
    pinned: int = 0  # Plakoto: the pinned mask of the side on roll
    game_rules: tuple[str, ...] = ()  # Plakoto / Fevga: the options set (rules.game_rules)
    variant_options: int = 0  # ... as the core's option bits
    net: NetChoice | None = None  # the net the rollout uses (None: it uses none)

    @property
    def cubeful(self) -> bool:
        return self.cube_branches is not None

    @property
    def n_chunks(self) -> int:
        return parts(self.trials, self.chunk_size)

    @property
    def strata(self) -> tuple[int, ...]:
        """Numbers of strata of the stratified rolls (e.g. (15, 36) for the R5 opening)."""
        if not self.stratify:
            return ()
        opening = self.first_roll_no_doubles and self.forced_dice is None
        return (15 if opening else 36, 36)

    @property
    def looks_ahead(self) -> bool:
        """Whether a player's 1-ply look-ahead uses the replies' pre-filter."""
        return looks_ahead(self.players, self.game)

    def identity(self) -> dict[str, Any]:
        """The parameters that must match for a checkpoint to be resumed."""
        return {
            "board": list(self.board),
            "forced_dice": list(self.forced_dice) if self.forced_dice else None,
            "players": list(self.players),
            "rules": self.rules.name,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "stratify": self.stratify,
            "bearoff": self.bearoff_play,
            "truncate": self.truncate,
            # Only requests that use these carry them, so that older checkpoints still match.
            **({"cubeful": True, "max_cube": self.max_cube, "checker_play": "cubeful"}
               if self.cubeful else {}),
            **({"vr": True} if self.vr else {}),
            **({"truncate_plies": self.truncate_plies} if self.truncate_plies else {}),
            **({"move_filter": list(self.move_filter)}
               if tuple(self.move_filter) != DEFAULT_MOVE_FILTER else {}),
            **reply_filter_identity(self.reply_filter, self.players, self.game),
            **({"game": self.game} if self.game else {}),
            **({"game_rules": list(self.game_rules)} if self.game_rules else {}),
            **(self.net.checkpoint_keys()[0] if self.net else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position_text,
            **self.identity(),
            "trials": self.trials,
            "target_se": self.target_se,
            "min_trials": self.min_trials,
            "cache_dir": self.cache_dir,
            **(self.net.checkpoint_keys()[1] if self.net else {}),
        }


def make_request(
    position: object = "start",
    trials: object = 10_000,
    players: object = None,
    seed: object = None,
    rules: object = "backgammon",
    stratify: bool = True,
    chunk_size: object = DEFAULT_CHUNK_SIZE,
    target_se: object = None,
    min_trials: object = None,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
    cubeful: bool = False,
    max_cube: object = DEFAULT_MAX_CUBE,
    game: object = None,
    game_rules: object = None,
    *,
    ply: object = None,
    vr: bool | None = None,
    truncate_plies: object = None,
    move_filter: object = None,
    weights: str | os.PathLike | None = None,
    reply_filter: object = None,
    evaluator: str | None = None,
) -> RolloutRequest:
    """Validate the arguments of a rollout; raise ValueError / InvalidPositionError precisely.

    ``players``: None means pubeval for Portes and heuristic for Plakoto / Fevga.
    ``cubeful``: follow the doubling cube too (``cubeful.py``); games are then played to the
    end (no truncation), and ``max_cube`` caps the cube (R23: 64). ``game``: "plakoto" or
    "fevga" rolls out that game (``position``: "start", a text id or a position of it), by
    ``game_rules`` (a PlakotoRules / FevgaRules, or option names; None: the defaults).
    ``ply``, ``vr``, ``truncate_plies``, ``move_filter`` and ``reply_filter`` are the expert settings of the
    neural players described in ``parallel.rollout`` (Plakoto and Fevga take ``ply`` and
    ``weights`` only); ``weights``, a weights file for their net instead of the shipped one
    (a Plakoto / Fevga net for those games; ValueError if the rollout uses no net);
    ``evaluator``: how the net values positions, ``"float32"`` (the reference) or ``"int16"``
    (faster; ``neural.EVALUATORS``; None: ``neural.default_evaluator()``), kept in the
    checkpoint and noted in the result (not for Plakoto / Fevga, whose nets have no int16
    evaluator).
    """
    if game is None and game_rules is not None:
        raise ValueError("game_rules are the options of Plakoto or Fevga: give game too")
    if game is not None:
        check_variant_evaluator(game, evaluator)
        given = [k for k, v in (("vr", vr), ("truncate_plies", truncate_plies),
                                ("move_filter", move_filter),
                                ("reply_filter", reply_filter is not None))  # 0: the exact search
                 if v]
        if given:
            raise ValueError(f"{', '.join(given)}: settings of the Portes neural players, not "
                             f"of {game}'s")
        if ply is not None:  # the variants' neural players have the first two depths
            players = apply_ply(player_names(players if players is not None else "heuristic"), ply,
                                deepest=1)
        return _variant_request(game, position, players, cubeful, game_rules, weights,
                                make_request("start", trials, "pubeval", seed, rules, stratify,
                                             chunk_size, target_se, min_trials, False, False))
    if players is None:
        players = ("pubeval", "pubeval")
    pos, is_start = resolve_position(position)
    n = check_count(trials)
    names, ids = player_kinds(apply_ply(player_names(players), ply))
    rule_set = get_rules(rules)
    seed_value = check_seed(seed)
    size = check_count(chunk_size, "chunk_size")
    target = None
    if target_se is not None:
        if isinstance(target_se, bool) or not isinstance(target_se, Real):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
        target = float(target_se)
        if not (target > 0 and math.isfinite(target)):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
    minimum = min(n, 1296) if min_trials is None else check_count(min_trials, "min_trials", minimum=0)
    forced = pos.context.dice
    cap = check_max_cube(max_cube)
    if cubeful and not rule_set.cube:
        raise ValueError(f"the {rule_set.name} rules are played without the doubling cube: "
                         "a cubeful rollout needs the backgammon rules")
    branches = cube_branches(pos, cap) if cubeful else None
    notes = list(_context_notes(pos, bool(cubeful)))
    neural = needs_net(ids)
    use_vr = (neural and not cubeful) if vr is None else bool(vr)
    if use_vr and cubeful:
        notes.append("cubeful: only the cubeless figures are luck-adjusted, the cube figures are not")
    cut = check_truncate_plies(truncate_plies)
    if cut and cubeful:
        raise ValueError("truncate_plies cannot be combined with a cubeful rollout (the cube is "
                         "played to the end of the game)")
    if cut:
        notes.append(f"truncated after {cut} plies: the net's cubeless estimate is counted there "
                     "(fast but biased by the net's errors)")
    filt = check_move_filter(move_filter)
    replies = check_reply_filter(reply_filter)
    notes += reply_filter_notes(replies)
    net = choose_net(weights, needed=neural or use_vr or bool(cut), evaluator=evaluator)
    notes += evaluator_notes(net)
    if branches is not None and truncate and not money_branches(branches):
        notes.append(f"cubeful in a match: games stop once both sides have at most "
                     f"{REGION_CHECKERS} checkers left, all on points 1-6, and count the exact "
                     "MWC of the game solved at the score there (perfect checker and cube play)")
    elif branches is not None and truncate:
        notes.append("cubeful: games stop in the cubeful bear-off database and count its exact "
                     "equity there (perfect checker and cube play from then on)")
    if forced is not None:
        notes.insert(0, f"every trial's first roll is {forced[0]}-{forced[1]} (the dice in the position)")
    elif rule_set.first_roll_no_doubles and is_start:
        # gnubg and XG roll out this Position ID with any first roll: say why the side on
        # roll's equity here is lower (about +0.04 against +0.08 by the shipped net).
        notes.insert(0, "the starting position's first roll is the R5 opening roll, never a "
                        "double (a game's first play; a rollout of the position with any "
                        "first roll gives the side on roll more)")
    # The XGID keeps what the Position ID cannot: dice, cube and score.
    text = pos.xgid() if forced is not None or pos.context != GameContext() else pos.position_id()
    return RolloutRequest(
        position=pos,
        position_text=text,
        board=np.ascontiguousarray(pos.board, dtype=np.int8).tobytes(),
        players=names,
        player_ids=ids,
        rules=rule_set,
        seed=seed_value,
        trials=n,
        chunk_size=size,
        stratify=bool(stratify),
        first_roll_no_doubles=bool(rule_set.first_roll_no_doubles and is_start),
        forced_dice=forced,
        target_se=target,
        min_trials=minimum,
        notes=tuple(notes),
        bearoff_play=bool(bearoff),
        truncate=bool(truncate),
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        cube_branches=branches,
        max_cube=cap,
        vr=use_vr,
        truncate_plies=cut,
        move_filter=filt,
        reply_filter=replies,
        net=net,
    )


def _variant_request(game: object, position: object, players: object, cubeful: bool,
                     options: object, weights: str | os.PathLike | None,
                     checked: RolloutRequest) -> RolloutRequest:
    """A Plakoto / Fevga request: ``checked`` holds the validated settings the games share
    with Portes (trials, seed, chunks, stratification, the stop rule); ``weights`` a file
    of the game's net for its neural players (None: the shipped net)."""
    if game not in GAME_CODES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    if cubeful:
        raise ValueError(f"{game} is played without the doubling cube (T1): no cubeful rollout")
    if isinstance(position, str) and position.strip().lower() == "start":
        position = None
    pos = variant_position(str(game), position)  # type: ignore[arg-type]
    require_variant_in_progress(pos)
    chosen = game_rules(str(game), options)
    names, ids = variant_player_ids(str(game), players if players is not None else "heuristic")
    net = choose_variant_net(str(game), weights, needed=uses_variant_net(ids))
    notes = ("the first roll may be a double (T3: the starter rolls both dice again)",) if (
        pos == type(pos).initial()) else ()
    if option_names(chosen):
        notes += (f"{game} options: {', '.join(option_names(chosen))}",)
    return replace(
        checked, position=pos, position_text=pos.variant_id(),  # type: ignore[arg-type]
        board=np.ascontiguousarray(pos.core_board(), dtype=np.int8).tobytes(),
        players=names, player_ids=ids, first_roll_no_doubles=False, forced_dice=None,
        notes=notes, bearoff_play=False, truncate=False, game=str(game), pinned=pos.pinned_mask(),
        game_rules=option_names(chosen), variant_options=core_options(str(game), chosen),
        net=net,
    )


def apply_ply(names: tuple[str, str], ply: object, deepest: int = 2) -> tuple[str, str]:
    """The players' names with the neural players set to the search depth `ply`: None (as
    named), 0 to `deepest` (2: ``neural-2ply``; the Plakoto and Fevga players stop at 1) for
    both sides, or a pair (the side on roll first).  A depth for a player that has no
    search (pubeval, ...) must be 0."""
    if ply is None:
        return names
    depths = ", ".join(map(str, range(deepest))) + f" or {deepest}"
    pair = (ply, ply) if not isinstance(ply, (tuple, list)) else tuple(ply)
    if len(pair) != 2:
        raise ValueError(f"ply must be {depths}, or a pair of them, got {ply!r}")
    out = []
    for name, depth in zip(names, pair):
        if isinstance(depth, bool) or depth not in range(deepest + 1):
            raise ValueError(f"ply must be {depths}, got {depth!r}")
        if name in NEURAL_BY_PLY:
            out.append(NEURAL_BY_PLY[depth])
        elif depth:
            raise ValueError(f"ply {depth} is for the neural players; {name!r} has no search depth")
        else:
            out.append(name)
    return out[0], out[1]


def check_truncate_plies(value: object) -> int:
    """Plies after which each game stops (0 or None: played out)."""
    if value is None or value == 0:
        return 0
    return check_count(value, "truncate_plies")


def check_move_filter(value: object) -> tuple[int, float]:
    """The 1-ply move filter (candidates, window): at most `candidates` plays, 1 to
    MAX_FILTER_CANDIDATES, whose 0-ply equity is within `window` (>= 0) of the best play's.
    None gives DEFAULT_MOVE_FILTER."""
    if value is None:
        return DEFAULT_MOVE_FILTER
    try:
        count, window = value  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ValueError(f"move_filter must be (candidates, window), got {value!r}") from None
    return _filter_pair("the move filter", count, window, least=1, least_text="1",
                        unit="candidates", window_name="window")


def _filter_pair(name: str, count: object, window: object, *, least: int, least_text: str,
                 unit: str, window_name: str) -> tuple[int, float]:
    """A filter's (count, window), checked: count a whole number from `least` to
    MAX_FILTER_CANDIDATES, window a finite equity >= 0 (the move filter's and the replies'
    pre-filter's rule alike, in their own words)."""
    top = int(_core.MAX_FILTER_CANDIDATES)
    if isinstance(count, bool) or not isinstance(count, Integral) or not least <= int(count) <= top:
        raise ValueError(f"{name} keeps {least_text} to {top} {unit}, got {count!r}")
    if isinstance(window, bool) or not isinstance(window, Real) or not (
            float(window) >= 0 and math.isfinite(float(window))):
        raise ValueError(f"{name}'s {window_name} must be an equity >= 0, got {window!r}")
    return int(count), float(window)


def looks_ahead(players: Sequence[str], game: str | None = None) -> bool:
    """Whether one of a backgammon rollout's players looks 1 ply ahead through the replies'
    pre-filter (``neural-1ply``; the 2-ply player values every reply)."""
    return game is None and "neural-1ply" in players


def check_reply_filter(value: object) -> tuple[int, float]:
    """The 1-ply look-ahead's pre-filter of replies (keep, margin), or keep alone (margin 0):
    only the best `keep` plays of each of the opponent's rolls by the pruning net (the net's
    own, else the first-order estimate), and those within `margin` of the keep-th, are valued
    by the net (``_nn_prefilter.pxi``); keep 0: every play (the exact search); None: the
    default, DEFAULT_REPLY_FILTER (keep 8)."""
    if value is None:
        return DEFAULT_REPLY_FILTER
    if isinstance(value, Integral) and not isinstance(value, bool):
        value = (value, 0.0)
    try:
        keep, margin = value  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ValueError(f"reply_filter must be keep or (keep, margin), got {value!r}") from None
    keep, margin = _filter_pair("the reply filter", keep, margin, least=0, least_text="0 (all)",
                                unit="plays a roll", window_name="margin")
    return EXACT_REPLIES if keep == 0 else (keep, margin)


def reply_filter_notes(replies: tuple[int, float]) -> list[str]:
    """The notes of a run whose replies' pre-filter (checked by ``check_reply_filter``) is
    not the default: none for the default."""
    if replies == DEFAULT_REPLY_FILTER:
        return []
    if replies == EXACT_REPLIES:
        return ["the 1-ply players value every reply with the net (the exact 1-ply search, "
                "slower than the default pre-filter)"]
    return [f"the 1-ply players' replies pre-filtered: the best {replies[0]} plays of each roll "
            f"by the pruning net valued by the net (not the default {DEFAULT_REPLY_FILTER[0]})"]


#: The note of a run whose net values positions by the int16 evaluator.
INT16_NOTE = ("positions valued by the int16 evaluator (faster), whose probabilities differ "
              "from the float32 reference by about 1e-3 (docs/performance.md)")


def evaluator_notes(net: NetChoice | None) -> list[str]:
    """The notes of a run whose net (``choose_net``'s choice) values positions by the int16
    evaluator; none for the float32 one (the default, the reference) or a run without a net."""
    return [INT16_NOTE] if net is not None and net.evaluator == "int16" else []


def saved_evaluator(saved: dict[str, Any]) -> str:
    """The evaluator a checkpoint's saved request valued positions by: its ``evaluator``
    (saved only when not float32, ``NetChoice.checkpoint_keys``), else float32 (checkpoints
    of float32 runs, and those from before the int16 evaluator, carry none)."""
    return str(saved.get("evaluator") or "float32")


def resumed_evaluator(saved: dict[str, Any], asked: object = None,
                      path: str | os.PathLike | None = None) -> str:
    """The evaluator a run resumed from a checkpoint (its saved request ``saved``, read from
    ``path``) values positions by: the saved one (``saved_evaluator``) when ``asked`` is None;
    ValueError if another is asked for (the numbers would not be the run's). One rule for
    rollouts, candidate plays, openings and matches."""
    kept = saved_evaluator(saved)
    if asked is None:
        return kept
    kind = check_evaluator(asked)
    if kind != kept:
        where = f"checkpoint {os.fspath(path)}" if path is not None else "the checkpoint"
        raise ValueError(f"{where} is of a run valued by the {kept} evaluator, not {kind}: "
                         f"resume it with evaluator {kept} (or none, which keeps it)")
    return kind


def reply_filter_identity(replies: Sequence[Any], players: Sequence[str],
                          game: str | None = None) -> dict[str, list[Any]]:
    """A run's identity entry for its replies' pre-filter: ``{"reply_filter": [keep, margin]}``
    whenever a player looks ahead (default included: a checkpoint without it is from before the
    pre-filter became the default, and played the exact search, ``saved_reply_filter``) or the
    filter is not the default; else none, so that the checkpoints of other runs stay as they
    were."""
    if looks_ahead(players, game) or tuple(replies) != DEFAULT_REPLY_FILTER:
        return {"reply_filter": list(replies)}
    return {}


def saved_reply_filter(saved: dict[str, Any]) -> Any:
    """The replies' pre-filter a checkpoint's saved request played: its saved setting; else,
    where a player looks ahead, the exact search (keep 0: checkpoints from before the
    pre-filter became the default carry none); else None (the default, which no player uses).
    One rule for rollouts, candidate plays and openings."""
    if "reply_filter" in saved:
        return saved["reply_filter"]
    return 0 if looks_ahead(saved.get("players", ()), saved.get("game")) else None


def saved_identity(saved: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint's saved request as a request of today would write it: an older one whose
    players look ahead gets the exact search it played as its ``reply_filter`` (so that it
    matches a request of the exact search, and no other)."""
    if "reply_filter" in saved or saved_reply_filter(saved) is None:
        return saved
    return {**saved, "reply_filter": list(EXACT_REPLIES)}


def plan_chunks(request: RolloutRequest, done: Iterable[int] = ()) -> UnitPlan:
    """The chunks of the request not in ``done`` (their indices), in index order: made one
    at a time when asked for, so a plan of any size costs no memory."""
    return UnitPlan(MissingIndices(request.n_chunks, done), partial(make_chunk, request))


def make_chunk(request: RolloutRequest, c: int) -> RolloutChunk:
    """Chunk ``c`` of the request."""
    first = c * request.chunk_size
    return RolloutChunk(
        index=c,
        first_trial=first,
        n_games=chunk_games(request, c),
        board=request.board,
        player0=request.player_ids[0],
        player1=request.player_ids[1],
        seed=chunk_seed(request.seed, c),
        master_seed=request.seed,
        first_roll_no_doubles=request.first_roll_no_doubles,
        backgammons=bool(request.rules.backgammons),
        stratify=request.stratify,
        forced_dice=request.forced_dice,
        bearoff_play=request.bearoff_play,
        truncate=request.truncate,
        cache_dir=request.cache_dir,
        cube_branches=request.cube_branches,
        vr=request.vr,
        truncate_plies=request.truncate_plies,
        move_filter=request.move_filter,
        reply_filter=request.reply_filter,
        game=_game_code(request.game),
        pinned=request.pinned,
        variant_options=request.variant_options,
        net=request.net,
    )


def chunk_games(request: RolloutRequest, c: int) -> int | None:
    """The trials of chunk ``c`` of the request (None: the request has no such chunk)."""
    return part_size(request.trials, request.chunk_size, c)


def _game_code(game: str | None) -> int:
    """The core's number of a Plakoto / Fevga game; -1 for Portes."""
    return -1 if game is None else GAME_CODES[game]
