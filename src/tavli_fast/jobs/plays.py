"""The candidate plays of one roll from any position, rolled out side by side on common dice.

The question after "double or take?": which play is best here, and by how much? The plays of
the roll are screened by the net (``play/hint.py``: every play at 0 ply, the best few at 1
ply; the candidates are those within a window of the best at 1 ply) or named by the user.
Each candidate is the position after its play with the opponent on roll; all of them are
played on the same dice (``candidates.py``: the same seeds, the same stratified first two
rolls of the opponent, the same later rolls), so the difference between two plays and its
standard error are measured trial by trial (paired).

The run goes in rounds of ``check_every`` chunks. After each round the stop rule may drop the
plays that trail the best by more than ``stop`` paired standard errors (gnubg's "stop when
decided"); the run ends when one play is left or every play has ``trials`` trials. Rounds,
like chunks, do not depend on the number of workers, so neither do the numbers.

With the cube (``cubeful``) each candidate's games follow the position's cube from the
opponent's first turn on (he may double at once), the neural players pick their plays by
cubeful equity, and the plays are ranked by their cubeful results: money points per unit of
the cube, or in a match the mover's match winning chance (also shown as a normalised
equity). Without it the plays are ranked by cubeless equity (luck-adjusted with ``vr``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace
from functools import partial
from numbers import Real
from typing import Any, Sequence

import numpy as np

from .. import _core
from ..checks import check_count, check_seed, player_names
from ..errors import InvalidDiceError, check_dice
from ..game.position import Play, Position
from ..game.resolve import resolve_position
from ..play.bearoff import default_database
from ..play.cube import default_match_table
from ..play.hint import hint
from ..play.match_bearoff import REGION_CHECKERS
from ..play.neural import (NetChoice, choose_net, evaluator as shipped_evaluator,
                           net_of_choice, with_bearoff)
from ..play.players import needs_net, player_kinds
from ..rules import Rules, get_rules
from ..run.checkpoint import read_checkpoint as _read_checkpoint
from ..run.plans import UnitPlan, part_size, parts
from ..run.progress import PlayProgress, RolloutProgress
from .candidates import (CandidateTally, CandidateUnit, UnitResult, check_same_run, prepare_unit,
                         run_unit)
from .cubeful import DEFAULT_MAX_CUBE, check_max_cube, cube_of
from .openings import default_player
from .rollout_chunks import DEFAULT_REPLY_FILTER, chunk_seed
from .rollout_request import (apply_ply, check_reply_filter, evaluator_notes,
                              reply_filter_identity, reply_filter_notes, resumed_evaluator,
                              saved_reply_filter)

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_WINDOW",
    "DEFAULT_STOP",
    "DEFAULT_TRIALS",
    "DEFAULT_CHUNK_SIZE",
    "InvalidPlayError",
    "Candidate",
    "PlaysRequest",
    "PlaysJob",
    "parse_dice",
    "parse_play",
    "make_plays_request",
    "read_checkpoint",
    "request_from_checkpoint",
    "CHECKPOINT_FORMAT",
]

#: Candidates screened by the net: at most this many, within DEFAULT_WINDOW of the best at 1 ply
#: (the 1-ply move filter's own settings).
DEFAULT_CANDIDATES = int(_core.FILTER_CANDIDATES)
DEFAULT_WINDOW = float(_core.FILTER_WINDOW)
#: Stop rolling out a play once it trails the best by more than this many paired SEs (gnubg's
#: "stop when decided" default).
DEFAULT_STOP = 2.33
#: Trials per chunk: a whole block of stratified first two rolls (36 x 36).
DEFAULT_CHUNK_SIZE = 1296
#: Trials per play at most: 4 blocks (gnubg's default is one). With the default players (the net
#: at 0 ply, luck-adjusted) a paired difference then has an SE of about 0.004, five candidates
#: take about 3 minutes on 2 idle cores, and the stop rule ends a clear decision sooner.
DEFAULT_TRIALS = 4 * DEFAULT_CHUNK_SIZE
#: Chunks per round (the stop rule looks after each round).
DEFAULT_CHECK_EVERY = 2


class InvalidPlayError(ValueError):
    """A play that cannot be read, or that is not a legal play of the roll in the position."""


# ---------------------------------------------------------------------------------------------
# Dice and plays as users write them
# ---------------------------------------------------------------------------------------------


def parse_dice(dice: object) -> tuple[int, int]:
    """(die1, die2) from ``"31"``, ``"3-1"``, ``"3 1"`` or a pair; InvalidDiceError if not."""
    if isinstance(dice, str):
        digits = re.fullmatch(r"\s*([0-9])\s*[-, ]?\s*([0-9])\s*", dice)
        if digits is None:
            raise InvalidDiceError(f"dice are two digits from 1 to 6 such as 31, got {dice!r}")
        return check_dice(int(digits.group(1)), int(digits.group(2)))
    try:
        first, second = dice  # type: ignore[misc]
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice are two numbers from 1 to 6 such as (3, 1), got {dice!r}") from None
    return check_dice(first, second)


_STEP = re.compile(r"(bar|off|\d{1,2})(\*?)", re.IGNORECASE)


def _place(text: str) -> int:
    """A point of a play's notation as a board index: bar 25, off 0, else the point."""
    word = text.lower()
    return 25 if word == "bar" else 0 if word == "off" else int(word)


def parse_play(text: str) -> list[tuple[int, int]]:
    """The checker moves (from, to) of a play in gnubg notation, e.g. ``"8/5 6/5"``,
    ``"8/5(2)"``, ``"bar/22* 13/9"``, ``"24/18/13"`` (one checker through 18), ``"6/off"``;
    hits (``*``) are marked or not. InvalidPlayError if it cannot be read."""
    moves: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        count = 1
        repeat = re.fullmatch(r"(.*)\((\d)\)", token)
        if repeat:
            token, count = repeat.group(1), int(repeat.group(2))
        parts_ = token.split("/")
        steps = [_STEP.fullmatch(p) for p in parts_]
        if len(parts_) < 2 or any(s is None for s in steps) or not 1 <= count <= 4:
            raise InvalidPlayError(f"cannot read the play {text!r} (gnubg notation such as "
                                   "'8/5 6/5', '13/9(2)' or 'bar/22*')")
        places = [_place(s.group(1)) for s in steps]  # type: ignore[union-attr]
        if any(p > 25 for p in places) or places[-1] == 25 or 0 in places[:-1]:
            raise InvalidPlayError(f"cannot read the play {text!r}: points run from bar (25) "
                                   "down to off (0)")
        moves += [(a, b) for a, b in zip(places, places[1:])] * count
    if not moves:
        raise InvalidPlayError(f"no play given in {text!r}")
    return moves


def _apply(board: np.ndarray, moves: Sequence[tuple[int, int]], text: str) -> bytes:
    """The board (sides not switched) after moving the mover's checkers as ``moves`` say,
    hitting lone opposing checkers on the way; InvalidPlayError if a move has no checker to
    move or lands on a made point."""
    b = board.astype(np.int16)
    for a, c in moves:
        if a <= c or b[0, a] <= 0:
            raise InvalidPlayError(f"{text!r}: no checker of the mover moves from "
                                   f"{'the bar' if a == 25 else a} to {'off' if c == 0 else c}")
        b[0, a] -= 1
        b[0, c] += 1
        if c > 0:
            theirs = 25 - c
            if b[1, theirs] > 1:
                raise InvalidPlayError(f"{text!r}: point {c} is held by the opponent")
            if b[1, theirs] == 1:
                b[1, theirs] = 0
                b[1, 25] += 1
    return b.astype(np.int8).tobytes()


def named_plays(position: Position, dice: tuple[int, int], texts: object) -> list[Play]:
    """The legal plays named by ``texts`` (``"8/5 6/5,24/21 13/12"`` or a list of plays), in
    the order given. InvalidPlayError names a play that is not legal with these dice."""
    items = [t.strip() for t in texts.split(",")] if isinstance(texts, str) else list(texts)  # type: ignore[call-overload]
    if not items or not all(isinstance(t, str) and t.strip() for t in items):
        raise InvalidPlayError(f"plays are given in gnubg notation, e.g. '8/5 6/5,24/21 13/12', got {texts!r}")
    legal = {p.position.board.tobytes(): p for p in position.plays(*dice)}
    chosen: list[Play] = []
    for text in items:
        after = _apply(position.board, parse_play(text), text)
        if after not in legal:
            raise InvalidPlayError(f"{text!r} is not a legal play of {dice[0]}{dice[1]} here "
                                   f"(R7-R18: every die is played that can be)")
        if legal[after] in chosen:
            raise InvalidPlayError(f"{text!r} is the same play as {legal[after].notation!r}, named twice")
        chosen.append(legal[after])
    return chosen


# ---------------------------------------------------------------------------------------------
# The request
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One candidate play: its notation, the position rolled out (after the play, the opponent
    on roll: its board and Position ID) and the net's 1-ply equity that chose it (None for a
    play the user named that the net did not look at)."""

    play: str
    board: bytes  # int8 (2, 26), sides switched
    position_id: str
    screen_equity: float | None = None


@dataclass(frozen=True)
class PlaysRequest:
    """Everything that fixes the numbers of a candidate-play rollout (validated)."""

    position: Position
    position_text: str  # its XGID (with the dice)
    dice: tuple[int, int]
    candidates: tuple[Candidate, ...]
    legal_plays: int  # of the roll, distinct
    named: bool  # the user named the plays (no screening)
    players: tuple[str, str]  # the mover's, the opponent's
    player_ids: tuple[int, int]
    rules: Rules
    seed: int
    trials: int  # per play, at most
    chunk_size: int
    check_every: int  # chunks per round
    stop: float | None  # the stop rule's paired SEs, or None: every play gets every trial
    min_trials: int  # no play is dropped before it has these
    stratify: bool
    bearoff_play: bool
    truncate: bool
    cache_dir: str | None
    vr: bool
    cube: tuple | None  # cubeful: the kernels' cube tuple seen by the opponent after the play
    max_cube: int
    net: NetChoice | None
    notes: tuple[str, ...] = ()
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER  # the 1-ply look-ahead's pre-filter

    @property
    def cubeful(self) -> bool:
        return self.cube is not None

    @property
    def match(self) -> bool:
        return bool(self.position.context.match_length)

    @property
    def n_chunks(self) -> int:
        return parts(self.trials, self.chunk_size)

    def identity(self) -> dict[str, Any]:
        """The settings that fix the numbers (a checkpoint must match them to be resumed)."""
        return {
            "position": self.position_text,
            "dice": list(self.dice),
            "plays": [c.play for c in self.candidates],
            "players": list(self.players),
            "rules": self.rules.name,
            "seed": self.seed,
            "trials": self.trials,
            "chunk_size": self.chunk_size,
            "check_every": self.check_every,
            "stop": self.stop,
            "min_trials": self.min_trials,
            "stratify": self.stratify,
            "bearoff": self.bearoff_play,
            "truncate": self.truncate,
            "vr": self.vr,
            "cubeful": self.cubeful,
            "max_cube": self.max_cube,
            **reply_filter_identity(self.reply_filter, self.players),
            **(self.net.checkpoint_keys()[0] if self.net else {}),
        }

    def to_checkpoint(self) -> dict[str, Any]:
        """What a checkpoint saves of the request: its identity and where its files are."""
        return {**self.identity(), "named": self.named,
                "screen_equities": [c.screen_equity for c in self.candidates],
                "cache_dir": self.cache_dir, **(self.net.checkpoint_keys()[1] if self.net else {})}


def _stop_setting(value: object) -> float | None:
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            float(value) > 0 and math.isfinite(float(value))):
        raise ValueError(f"stop_when_decided is a number of standard errors > 0 (or None), got {value!r}")
    return float(value)


def _window(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            float(value) >= 0 and math.isfinite(float(value))):
        raise ValueError(f"window must be an equity >= 0, got {value!r}")
    return float(value)


def _screened(position: Position, dice: tuple[int, int], count: int | None, window: float,
              net: NetChoice | None) -> list[tuple[Play, float | None]]:
    """The candidates the net picks: ``count`` given, the best ``count`` by 1 ply; else the
    best two and the others within ``window`` of the best at 1 ply, DEFAULT_CANDIDATES at most
    (a play is always compared with the runner-up, however clear the net thinks it is)."""
    top = DEFAULT_CANDIDATES if count is None else count
    ranked = hint(position, *dice, top=max(top, DEFAULT_CANDIDATES), net=_screening_net(net))
    plays = {p.position.sides_switched().position_id(): p for p in position.plays(*dice)}
    best = ranked[0].equity_1ply
    chosen = []
    for r in ranked[:top]:
        if count is None and len(chosen) >= 2 and best is not None and (
                r.equity_1ply is None or r.equity_1ply < best - window):
            break
        chosen.append((plays[r.position_id], r.equity_1ply))
    return chosen


def _screening_net(net: NetChoice | None) -> _core.NeuralNet:
    """The net that screens the candidates for a run whose net is ``net``, with the bear-off
    databases as the commands' hint values positions: the shipped net by ``net``'s evaluator
    (None: by the default one, as ``tavli-hint``), else the chosen net (a weights file's, by
    its evaluator) with them (memoised per choice, as ``net_of_choice`` is)."""
    if net is None or net.file is None:
        return shipped_evaluator(None, kind=None if net is None else net.evaluator)
    return with_bearoff(net_of_choice(net), default_database().tables)


def make_plays_request(
    position: object,
    dice: object = None,
    trials: object = DEFAULT_TRIALS,
    players: object = None,
    seed: object = None,
    rules: object = "backgammon",
    *,
    candidates: object = None,
    plays: object = None,
    window: object = DEFAULT_WINDOW,
    stop_when_decided: object = DEFAULT_STOP,
    min_trials: object = None,
    chunk_size: object = DEFAULT_CHUNK_SIZE,
    check_every: object = DEFAULT_CHECK_EVERY,
    stratify: bool = True,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
    cubeful: bool = False,
    max_cube: object = DEFAULT_MAX_CUBE,
    ply: object = None,
    vr: bool | None = None,
    weights: str | os.PathLike | None = None,
    reply_filter: object = None,
    evaluator: str | None = None,
) -> PlaysRequest:
    """Validate the arguments of a candidate-play rollout; raise ValueError (InvalidDiceError,
    InvalidPlayError, InvalidPositionError, InvalidCountError) precisely. ``reply_filter``:
    the 1-ply players' pre-filter of replies (``check_reply_filter``; None: the default).
    ``evaluator``: how the net values positions, in the games and in the screening of the
    candidates (``neural.EVALUATORS``; None: ``neural.default_evaluator()``; ``"float32"``: the
    reference; ``"int16"``: faster)."""
    pos, _ = resolve_position(position)  # type: ignore[arg-type]
    if dice is None:
        if pos.context.dice is None:
            raise InvalidDiceError("the candidate plays need a roll: give dice (e.g. 31) or a "
                                   "position with its dice (an XGID)")
        rolled = tuple(pos.context.dice)
    else:
        rolled = parse_dice(dice)
        if pos.context.dice is not None and sorted(pos.context.dice) != sorted(rolled):
            raise InvalidDiceError(f"the position has the dice {pos.context.dice[0]}{pos.context.dice[1]} "
                                   f"rolled, not {rolled[0]}{rolled[1]}")
    rolled = (max(rolled), min(rolled))
    n = check_count(trials)
    rule_set = get_rules(rules)
    if cubeful and not rule_set.cube:
        raise ValueError(f"the {rule_set.name} rules are played without the doubling cube: "
                         "cubeful candidates need the backgammon rules")
    names, ids = player_kinds(apply_ply(player_names(players if players is not None
                                                     else default_player()), ply))
    seed_value = check_seed(seed)
    size = check_count(chunk_size, "chunk_size")
    rounds = check_count(check_every, "check_every")
    stop = _stop_setting(stop_when_decided)
    least = min(n, size) if min_trials is None else check_count(min_trials, "min_trials", minimum=0)
    cap = check_max_cube(max_cube)
    replies = check_reply_filter(reply_filter)
    neural = needs_net(ids)
    # Luck adjustment is the default with the net: at 0 ply it costs about 25 times the games'
    # time and cuts the variance of a paired difference about 30 times (bench/plays_variance.py).
    use_vr = (neural and not cubeful) if vr is None else bool(vr)
    # The net screens the candidates too: weights given for that alone are used there.
    net = choose_net(weights, evaluator=evaluator, needed=neural or use_vr or (
        (weights is not None or evaluator not in (None, "float32")) and plays is None))
    if plays is not None and candidates is not None:
        raise ValueError("name the plays or say how many candidates, not both")
    legal = pos.plays(*rolled)
    if not legal or (len(legal) == 1 and not legal[0].notation):
        raise InvalidPlayError(f"{rolled[0]}{rolled[1]} cannot be played here: there is no play to compare")
    if plays is not None:
        chosen: list[tuple[Play, float | None]] = [(p, None) for p in named_plays(pos, rolled, plays)]
    else:
        count = None if candidates is None else check_count(candidates, "candidates")
        chosen = _screened(pos, rolled, count, _window(window), net)
    cube = None
    notes = []
    if cubeful:
        cube = cube_of(pos.sides_switched(), cap)  # the opponent's, on roll after the play
        if pos.context.match_length and truncate:
            notes.append(f"cubeful in a match: games stop once both sides have at most "
                         f"{REGION_CHECKERS} checkers left, all on points 1-6, and count the "
                         "exact MWC of the game solved at the score there")
    elif pos.context.cube_value != 1 or pos.context.match_length:
        notes.append("the cube and score are not used: the equities are cubeless money "
                     "(--cubeful plays the cube)")
    if use_vr and cubeful:
        notes.append("cubeful: the plays are ranked by their cubeful results, which are not "
                     "luck-adjusted; the cubeless figures are")
    notes += reply_filter_notes(replies)
    notes += evaluator_notes(net)
    with_dice = Position(pos.board, replace(pos.context, dice=rolled))
    return PlaysRequest(
        position=with_dice,
        position_text=with_dice.xgid(),
        dice=rolled,
        candidates=tuple(_candidate(p, eq) for p, eq in chosen),
        legal_plays=len(legal),
        named=plays is not None,
        players=names,
        player_ids=ids,
        rules=rule_set,
        seed=seed_value,
        trials=n,
        chunk_size=size,
        check_every=rounds,
        stop=stop,
        min_trials=least,
        stratify=bool(stratify),
        bearoff_play=bool(bearoff),
        truncate=bool(truncate),
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        vr=use_vr,
        cube=cube,
        max_cube=cap,
        net=net,
        notes=tuple(notes),
        reply_filter=replies,
    )


def _candidate(play: Play, screen_equity: float | None) -> Candidate:
    after = play.position.sides_switched()
    return Candidate(play.notation, np.ascontiguousarray(after.board, dtype=np.int8).tobytes(),
                     after.position_id(), screen_equity)


def match_scale(position: Position) -> tuple[float, float] | None:
    """In a match, the mover's match winning chances if he wins, and if he loses, the cube's
    value: normalised equity = (2 MWC - (won + lost)) / (won - lost), as gnubg shows it."""
    ctx = position.context
    if not ctx.match_length:
        return None
    met = default_match_table()
    a, b = ctx.match_length - ctx.score[0], ctx.match_length - ctx.score[1]
    post = (a == 1 or b == 1) and not ctx.crawford
    c = ctx.cube_value
    return _core.match_mwc(met, a - c, b, post), _core.match_mwc(met, a, b - c, post)


# ---------------------------------------------------------------------------------------------
# The job kind
# ---------------------------------------------------------------------------------------------

CHECKPOINT_FORMAT = "tavli_fast plays checkpoint"
CHECKPOINT_VERSION = 1
_REQUEST_KEYS = ("position", "dice", "plays", "players", "seed", "trials", "chunk_size",
                 "check_every", "stop", "min_trials")


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Load and check a candidate-play checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "candidate plays",
                            {"request": dict, "tally": dict, "dropped": dict}, _REQUEST_KEYS)


def request_from_checkpoint(doc: dict[str, Any], reply_filter: object = None,
                            evaluator: str | None = None,
                            path: str | os.PathLike | None = None) -> PlaysRequest:
    """The request saved in a checkpoint: the same candidates, without screening them again.
    ``reply_filter``: the pre-filter asked for (None: the one saved; ``PlaysJob.from_checkpoint``
    refuses another). ``evaluator``: the one asked for (None: the one saved; another is
    refused, ``resumed_evaluator``; ``path`` names the checkpoint in that message)."""
    saved = doc["request"]
    kind = resumed_evaluator(saved, evaluator, path)
    request = make_plays_request(
        saved["position"], saved["dice"], saved["trials"], tuple(saved["players"]), saved["seed"],
        saved["rules"], plays=saved["plays"], stop_when_decided=saved["stop"],
        min_trials=saved["min_trials"], chunk_size=saved["chunk_size"],
        check_every=saved["check_every"], stratify=saved["stratify"], bearoff=saved["bearoff"],
        truncate=saved["truncate"], cache_dir=saved.get("cache_dir"), cubeful=saved["cubeful"],
        max_cube=saved["max_cube"], vr=saved["vr"], weights=saved.get("weights"),
        reply_filter=saved_reply_filter(saved) if reply_filter is None else reply_filter,
        evaluator=kind,
    )
    equities = saved.get("screen_equities") or [None] * len(request.candidates)
    candidates = tuple(Candidate(c.play, c.board, c.position_id, e)
                       for c, e in zip(request.candidates, equities))
    return PlaysRequest(**{**request.__dict__, "candidates": candidates,
                           "named": bool(saved.get("named"))})


class PlaysJob:
    """Candidate plays as a job of the driver: rounds of ``check_every`` chunks for the plays
    still in the running; after each round the stop rule drops those decided against."""

    worker = staticmethod(run_unit)
    prepare = staticmethod(prepare_unit)

    def __init__(self, request: PlaysRequest, tally: CandidateTally | None = None,
                 dropped: dict[int, int] | None = None):
        self.request = request
        self.tally = tally if tally is not None else CandidateTally(len(request.candidates))
        self.dropped: dict[int, int] = dict(dropped or {})  # play -> the chunk it stopped at
        self.resumed_games = int(self.tally.games.sum())

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: PlaysRequest, path: str) -> "PlaysJob":
        """The job with the tally of checkpoint ``doc``; ValueError if the request rebuilt from
        it differs from the one saved (e.g. its weights file has changed since)."""
        check_same_run(doc["request"], request.identity(), path)
        tally = CandidateTally.from_dict(len(request.candidates), doc["tally"])
        return cls(request, tally, {int(k): int(v) for k, v in doc["dropped"].items()})

    @property
    def alive(self) -> list[int]:
        return [i for i in range(len(self.request.candidates)) if i not in self.dropped]

    @property
    def done(self) -> bool:
        """Every chunk played, or one play left of several (a lone play is simply rolled out)."""
        return self.tally.next_chunk >= self.request.n_chunks or (
            len(self.request.candidates) > 1 and len(self.alive) <= 1)

    def best(self) -> int:
        """The play with the best mean score among those still in the running (all, at the end)."""
        pool = self.alive or list(range(len(self.request.candidates)))
        return max(pool, key=lambda i: self.tally.mean_score(i)[0])

    def _apply_stop_rule(self) -> None:
        """Drop the plays decided against, at a round's end only (a run resumed from a
        checkpoint taken within a round finishes that round first): the same decisions
        whatever the interruptions."""
        request = self.request
        at = self.tally.next_chunk
        if request.stop is None or at == 0 or at % request.check_every:
            return
        best = self.best()
        for i in self.alive:
            if i == best or self.tally.games[i] < request.min_trials:
                continue
            d, se, _ = self.tally.paired_difference(i, best)
            if se > 0 and -d > request.stop * se:
                self.dropped[i] = self.tally.next_chunk

    def plan(self) -> Sequence[CandidateUnit]:
        self._apply_stop_rule()
        if self.done:
            return ()
        first = self.tally.next_chunk
        every = self.request.check_every
        last = min((first // every + 1) * every, self.request.n_chunks)
        return UnitPlan(range(first, last), partial(_unit, self.request, tuple(self.alive)))

    def add(self, result: UnitResult) -> None:
        self.tally.add(result)

    def add_partial(self, result: UnitResult) -> None:
        """A unit cut short by a stop (``run/driver.py``): reported, never saved."""
        self.tally.add_partial(result)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        request = self.request
        # Trials a dropped play will never play count as done.
        skipped = sum(request.trials - int(self.tally.games[i]) for i in self.dropped)
        total = request.trials * len(request.candidates)
        done = int(self.tally.games.sum()) + skipped
        rate = (done - self.resumed_games) / session_s if session_s > 0 else 0.0
        best = self.best()
        equity, se = self.tally.mean_score(best)
        plays = tuple(PlayProgress(c.play, int(self.tally.games[i]), *self.tally.mean_score(i),
                                   i in self.dropped)
                      for i, c in enumerate(request.candidates))
        return RolloutProgress(done, total, elapsed_s, rate, equity, se,
                               (total - done) / rate if rate > 0 else math.inf, plays)

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "request": self.request.to_checkpoint(),
            "elapsed_s": elapsed_s,
            "tally": self.tally.to_dict(),
            "dropped": {str(k): v for k, v in self.dropped.items()},
        }


def _unit(request: PlaysRequest, alive: tuple[int, ...], c: int) -> CandidateUnit:
    """Chunk ``c`` of the plays ``alive``."""
    n = part_size(request.trials, request.chunk_size, c)
    if n is None:
        raise IndexError(f"the run has {request.n_chunks} chunks, not a chunk {c}")
    return CandidateUnit(
        roll_index=0, chunk=c, first_trial=c * request.chunk_size, n_games=n, candidates=alive,
        boards=tuple(request.candidates[i].board for i in alive),
        roll_seed=chunk_seed(request.seed, 10 * request.dice[0] + request.dice[1]),
        player_on_roll=request.player_ids[1], first_mover=request.player_ids[0],
        backgammons=bool(request.rules.backgammons), stratify=request.stratify,
        bearoff_play=request.bearoff_play, truncate=request.truncate,
        cache_dir=request.cache_dir, vr=request.vr, net=request.net, cube=request.cube,
        reply_filter=request.reply_filter,
    )


__all__ += ["match_scale", "named_plays"]
