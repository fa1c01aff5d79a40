"""Opening statistics: every legal play of every opening roll, rolled out with common dice.

For each opening roll (the 15 non-doubles of R5, or the 21 rolls of the Portes variant, where
the first player re-rolls both dice) every distinct legal play from the starting position is
rolled out: the position after the play, sides switched (the opponent on roll, rolling
normally), with the players swapped accordingly. Every figure is then turned back to the first
mover's view (win <-> lose, gammons swap, equity negated).

Common random numbers: all the candidate plays of one roll are played on the same dice, and
the difference between two plays is computed trial by trial (a paired difference), with a far
smaller standard error than either play's equity (``candidates.py`` holds the unit of work,
``CandidateUnit``, one roll x one chunk of trials, and the merged state of a roll,
``CandidateTally``). Units are merged in chunk order per roll, so the numbers depend on the
seed, the trials, the chunk size and the screening settings, never on the number of worker
processes. This module knows nothing of processes (``run/driver.py`` runs the jobs).

Plakoto and Fevga (``game=``) use the same job: the 21 rolls (T3: the starter rolls both dice
again, so the first play may be a double), every distinct play of each from the game's start,
the variants' players, and the same common dice. A 2-point win (by bearing off or by the
mother rule) counts as a gammon; a draw (P6) counts 0 in every figure.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from functools import partial
from numbers import Real
from typing import Any, Sequence

import numpy as np

from ..checks import check_count, check_seed
from ..game.position import Position
from ..play.neural import NetChoice, choose_net, default_net
from ..play.players import PLAYERS, needs_net, player_kinds
from ..run.checkpoint import read_checkpoint as _read_checkpoint
from ..run.plans import ChainedPlan, UnitPlan, part_size, parts
from ..run.progress import RolloutProgress
from .rollout_chunks import DEFAULT_REPLY_FILTER, FIGURES, chunk_seed
from .rollout_request import (check_reply_filter, evaluator_notes,
                              reply_filter_identity, reply_filter_notes, resumed_evaluator,
                              saved_reply_filter)
from ..rules import Rules, game_rules as make_rules, get_rules, option_names
from ..variants.games import uses_variant_net, variant_player_ids
from ..variants.movegen import GAME_CODES, core_options, variant_play_notation
from ..variants.neural import check_variant_evaluator, choose_variant_net
from .candidates import (FORCED_ROLLS, CandidateTally, CandidateUnit, UnitResult,
                         check_same_run, prepare_unit, run_unit)

__all__ = [
    "OPENING_FIGURES",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_TRIALS",
    "DEFAULT_SCREEN",
    "DEFAULT_SCREEN_TRIALS",
    "FORCED_ROLLS",
    "OpeningsRequest",
    "OpeningUnit",
    "UnitResult",
    "RollTally",
    "CandidateUnit",
    "CandidateTally",
    "default_player",
    "opening_rolls",
    "parse_rolls",
    "play_trials",
    "make_openings_request",
    "plan_units",
    "run_unit",
    "OpeningsJob",
    "RepliesJob",
    "CHECKPOINT_FORMAT",
    "read_checkpoint",
    "request_from_checkpoint",
]

log = logging.getLogger(__name__)

#: The figures reported for each play, for the first mover (gammons include backgammons).
OPENING_FIGURES = FIGURES  # the same six figures, in the order of the core's moments

#: Trials per unit of work (one roll x one chunk): a whole block of stratified first two rolls.
DEFAULT_CHUNK_SIZE = 1296

#: ``tavli-openings``' defaults (issues 10 and 51): every play gets a short run of
#: SCREEN_TRIALS, the plays within SCREEN of their roll's best get TRIALS in all, luck-adjusted
#: (the net's default, bench/vr_default.py), so each roll's best play ends with an equity SE of
#: about 0.004 (a luck-adjusted game's equity has a standard deviation of about 0.21 at 0 ply,
#: against 1.31 plain). 0.06 is about 4 SEs of the short run's paired difference, so a play
#: worth running is practically never screened out.
DEFAULT_TRIALS = 2 * DEFAULT_CHUNK_SIZE
DEFAULT_SCREEN = 0.06
DEFAULT_SCREEN_TRIALS = DEFAULT_CHUNK_SIZE

#: The names the openings' unit and tally had before the plays of any roll shared them.
OpeningUnit = CandidateUnit
RollTally = CandidateTally

#: Preference order of the default player: the strongest the engine has.
PREFERRED_PLAYERS = ("neural", "pubeval")


def default_player() -> str:
    """The strongest player available: ``neural`` if the engine has it and its weights load,
    else ``pubeval``."""
    for name in PREFERRED_PLAYERS:
        if name not in PLAYERS:
            continue
        if name == "neural":
            try:
                default_net()
            except Exception as e:  # noqa: BLE001 - any failure to load means "not available"
                log.warning("the neural player is not usable (%s); using pubeval", e)
                continue
        return name
    return "pubeval"


def roll_text(roll: tuple[int, int]) -> str:
    """``(3, 1)`` -> ``"31"`` (the higher die first)."""
    return f"{max(roll)}{min(roll)}"


def opening_rolls(rules: Rules) -> tuple[tuple[tuple[int, int], float], ...]:
    """The first plays of a game and their probabilities, higher die first.

    R5: the 15 non-double rolls, each 1/15. Portes variant (the first player re-rolls both
    dice): the 21 rolls, doubles 1/36 and the others 2/36.
    """
    rolls = []
    for high in range(1, 7):
        for low in range(1, high + 1):
            if low == high:
                if rules.first_roll_no_doubles:
                    continue
                rolls.append(((high, low), 1 / 36))
            else:
                rolls.append(((high, low), 1 / 15 if rules.first_roll_no_doubles else 2 / 36))
    return tuple(rolls)


def parse_rolls(text: object, rules: Rules) -> tuple[tuple[int, int], ...]:
    """Rolls from ``"31,62"`` (or a sequence of such strings / pairs), checked against the rules."""
    if isinstance(text, str):
        items: list[Any] = [t.strip() for t in text.split(",")]
    else:
        items = list(text)  # type: ignore[call-overload]
    allowed = {r for r, _ in opening_rolls(rules)}
    out: list[tuple[int, int]] = []
    for item in items:
        if isinstance(item, str):
            if len(item) != 2 or not item.isdigit():
                raise ValueError(f"a roll is two digits from 1 to 6 such as 31, got {item!r}")
            a, b = int(item[0]), int(item[1])
        else:
            try:
                a, b = (int(v) for v in item)
            except (TypeError, ValueError):
                raise ValueError(f"a roll is two dice such as (3, 1), got {item!r}") from None
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError(f"dice run from 1 to 6, got {a}{b}")
        roll = (max(a, b), min(a, b))
        if roll not in allowed:
            raise ValueError(
                f"{roll_text(roll)} is not an opening roll under the {rules.name} rules "
                "(R5: the first play is never a double; use --rules portes for doubles)"
            )
        if roll in out:
            raise ValueError(f"roll {roll_text(roll)} is given twice")
        out.append(roll)
    if not out:
        raise ValueError("no rolls given")
    order = {r: i for i, (r, _) in enumerate(opening_rolls(rules))}
    return tuple(sorted(out, key=order.__getitem__))


def play_trials(trials: object, rules: object = "backgammon", rolls: object = None,
                game: str | None = None, game_rules: object = None) -> int:
    """Trials over all plays of the rolls (the size of an openings run before any screening)."""
    rule_set = get_rules("portes" if game else rules)
    chosen = [r for r, _ in opening_rolls(rule_set)] if rolls is None else parse_rolls(rolls, rule_set)
    return check_count(trials) * sum(len(roll_plays(r, game=game, game_rules=game_rules).notations)
                                     for r in chosen)


def _roll_seed(master_seed: int, roll: tuple[int, int]) -> int:
    """The 64-bit seed of one roll's trials: the rolls are independent of each other, and a
    roll's numbers do not depend on which other rolls are analysed."""
    return chunk_seed(master_seed, 10 * roll[0] + roll[1])


# ---------------------------------------------------------------------------------------------
# The request and the plan
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollPlays:
    """The distinct legal plays of one roll from the start, and the positions rolled out."""

    roll: tuple[int, int]
    weight: float  # probability of the roll as the first play
    notations: tuple[str, ...]
    boards: tuple[bytes, ...]  # after the play, sides switched (opponent on roll), int8 (2, 26)
    position_ids: tuple[str, ...]  # of those positions
    pinned: tuple[int, ...] = ()  # Plakoto: the pinned mask of the side on roll in each


def roll_plays(roll: tuple[int, int], weight: float = 1.0, game: str | None = None,
               game_rules: object = None) -> RollPlays:
    """Every distinct legal play of ``roll`` from the starting position (sorted by notation),
    of Portes or of ``game`` ("plakoto", "fevga", by ``game_rules``: see rules.game_rules);
    for those the ids are the variant text ids."""
    if game is not None:
        vplays = variant_play_notation(game, None, *roll, make_rules(game, game_rules))  # sorted
        vafter = [p.position.sides_switched() for p in vplays]
        return RollPlays(
            roll=roll, weight=weight, notations=tuple(p.notation for p in vplays),
            boards=tuple(np.ascontiguousarray(a.core_board(), dtype=np.int8).tobytes() for a in vafter),
            position_ids=tuple(a.variant_id() for a in vafter),
            pinned=tuple(a.pinned_mask() for a in vafter),
        )
    plays = sorted(Position.initial().plays(*roll), key=lambda p: p.notation)
    after = [p.position.sides_switched() for p in plays]
    return RollPlays(
        roll=roll,
        weight=weight,
        notations=tuple(p.notation for p in plays),
        boards=tuple(np.ascontiguousarray(a.board, dtype=np.int8).tobytes() for a in after),
        position_ids=tuple(a.position_id() for a in after),
    )


@dataclass(frozen=True)
class OpeningsRequest:
    """Everything that fixes the numbers of an openings run (validated)."""

    rolls: tuple[RollPlays, ...]
    players: tuple[str, str]  # first mover, opponent
    player_ids: tuple[int, int]
    rules: Rules
    seed: int
    trials: int
    chunk_size: int
    screen: float | None  # equity threshold of the screening, or None
    screen_trials: int  # trials of the short run when screening (== trials without screening)
    stratify: bool = True
    bearoff_play: bool = True
    truncate: bool = True
    cache_dir: str | None = None
    vr: bool = False  # the figures are luck-adjusted (variance reduction by the net)
    game: str | None = None  # "plakoto" / "fevga"; None: Portes by ``rules``
    game_rules: tuple[str, ...] = ()  # Plakoto / Fevga: the options set (rules.game_rules)
    variant_options: int = 0  # ... as the core's option bits
    net: NetChoice | None = None  # the net the run uses (None: it uses none)
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER  # the 1-ply look-ahead's pre-filter
    notes: tuple[str, ...] = ()

    def chunk_bounds(self, c: int) -> tuple[int, int]:
        """(first trial, trials) of chunk ``c``; the screening boundary is a chunk boundary."""
        first, total, index = 0, self.screen_trials, c
        if c >= self.screen_chunks:
            first, total, index = self.screen_trials, self.trials - self.screen_trials, c - self.screen_chunks
        n = part_size(total, self.chunk_size, index)
        if n is None:
            raise IndexError(f"the run has {self.n_chunks} chunks, not a chunk {c}")
        return first + index * self.chunk_size, n

    @property
    def screen_chunks(self) -> int:
        """Chunks of the short run (all candidates); the later chunks run the survivors."""
        return parts(self.screen_trials, self.chunk_size)

    @property
    def n_chunks(self) -> int:
        """Chunks of the whole run: the short run's, then the rest's."""
        return self.screen_chunks + parts(self.trials - self.screen_trials, self.chunk_size)

    @property
    def total_play_trials(self) -> int:
        """Trials over all plays of all rolls if no play were screened out (progress total)."""
        return self.trials * sum(len(r.notations) for r in self.rolls)

    def identity(self) -> dict[str, Any]:
        """The parameters that fix the numbers (a checkpoint must match them to be resumed)."""
        return {
            "rolls": [roll_text(r.roll) for r in self.rolls],
            "players": list(self.players),
            "rules": self.rules.name,
            "seed": self.seed,
            "trials": self.trials,
            "chunk_size": self.chunk_size,
            "screen": self.screen,
            "screen_trials": self.screen_trials,
            "stratify": self.stratify,
            "bearoff": self.bearoff_play,
            "truncate": self.truncate,
            **({"vr": True} if self.vr else {}),  # only when on: older checkpoints still match
            **({"game": self.game} if self.game else {}),  # older checkpoints still match
            **({"game_rules": list(self.game_rules)} if self.game_rules else {}),
            **reply_filter_identity(self.reply_filter, self.players, self.game),
            **(self.net.checkpoint_keys()[0] if self.net else {}),
        }

    def to_checkpoint(self) -> dict[str, Any]:
        """What a checkpoint saves of the request: its identity and where its files are."""
        return {**self.identity(), "cache_dir": self.cache_dir,
                **(self.net.checkpoint_keys()[1] if self.net else {})}


def make_openings_request(
    trials: object = DEFAULT_CHUNK_SIZE,
    players: object = None,
    seed: object = None,
    rules: object = "backgammon",
    rolls: object = None,
    screen: object = None,
    screen_trials: object = None,
    chunk_size: object = DEFAULT_CHUNK_SIZE,
    stratify: bool = True,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | None = None,
    game: str | None = None,
    game_rules: object = None,
    *,
    vr: bool | None = None,
    weights: str | os.PathLike | None = None,
    reply_filter: object = None,
    evaluator: str | None = None,
) -> OpeningsRequest:
    """Validate the arguments of an openings run; raise ValueError precisely.

    ``game``: "plakoto" or "fevga" (the 21 rolls of T3, the variants' players, default
    ``neural``, the game's net, as for Portes; ``rules`` must then be left at backgammon / portes, which it replaces), by
    ``game_rules`` (a PlakotoRules / FevgaRules or option names; None: the defaults).
    ``vr``: variance reduction (see ``parallel.rollout``), on top of the common dice; every
    figure is then luck-adjusted. None: on when a neural player plays (never for Plakoto /
    Fevga). ``weights``: a weights file for the net of the neural players and variance
    reduction instead of the shipped one (``parallel.rollout``); for Plakoto / Fevga, a file
    of that game's net. ``reply_filter``: the 1-ply players' pre-filter of replies
    (``check_reply_filter``; None: the default); not for Plakoto / Fevga. ``evaluator``: how
    the net values positions (``neural.EVALUATORS``; None: ``neural.default_evaluator()``;
    float32: the reference; ``"int16"``: faster); not for Plakoto / Fevga (their nets are
    valued by float32)."""
    n = check_count(trials)
    options: tuple[str, ...] = ()
    bits = 0
    if game is None and game_rules is not None:
        raise ValueError("game_rules are the options of Plakoto or Fevga: give game too")
    if game is not None:
        if game not in GAME_CODES:
            raise ValueError(f"game must be one of {', '.join(GAME_CODES)}, not {game!r}")
        chosen_rules = make_rules(game, game_rules)
        options, bits = option_names(chosen_rules), core_options(game, chosen_rules)
        get_rules(rules)  # still a known name
        if vr:
            raise ValueError(f"variance reduction: the luck is measured by the backgammon / "
                             f"Portes net, not in {game}")
        if reply_filter is not None:
            raise ValueError(f"reply_filter: a setting of the Portes neural players, not of {game}'s")
        check_variant_evaluator(game, evaluator)
        names, ids = variant_player_ids(game, players if players is not None else "neural")
        rules, bearoff, truncate = "portes", False, False  # T3 rolls; no databases there
    else:
        names, ids = player_kinds(players if players is not None else default_player())
    rule_set = get_rules(rules)
    seed_value = check_seed(seed)
    size = check_count(chunk_size, "chunk_size")
    replies = check_reply_filter(reply_filter)
    probabilities = dict(opening_rolls(rule_set))
    chosen = tuple(probabilities) if rolls is None else parse_rolls(rolls, rule_set)
    threshold = None
    short = n
    if screen is not None:
        if isinstance(screen, bool) or not isinstance(screen, Real) or not (
            float(screen) >= 0 and math.isfinite(float(screen))
        ):
            raise ValueError(f"screen must be an equity difference >= 0, got {screen!r}")
        threshold = float(screen)
        short = min(n, max(DEFAULT_CHUNK_SIZE, n // 7)) if screen_trials is None else check_count(
            screen_trials, "screen_trials"
        )
        if short > n:
            raise ValueError(f"screen_trials ({short}) must not exceed trials ({n})")
    elif screen_trials is not None:
        raise ValueError("screen_trials needs screen (the equity threshold)")
    use_vr = game is None and (needs_net(ids) if vr is None else bool(vr))
    if game is None:
        net = choose_net(weights, needed=needs_net(ids) or use_vr, evaluator=evaluator)
    else:
        net = choose_variant_net(game, weights, needed=uses_variant_net(ids))
    return OpeningsRequest(
        rolls=tuple(roll_plays(r, probabilities[r], game, options) for r in chosen),
        players=names,
        player_ids=ids,
        rules=rule_set,
        seed=seed_value,
        trials=n,
        chunk_size=size,
        screen=threshold,
        screen_trials=short,
        stratify=bool(stratify),
        bearoff_play=bool(bearoff),
        truncate=bool(truncate),
        cache_dir=cache_dir,
        vr=use_vr,
        game=game,
        game_rules=options,
        variant_options=bits,
        net=net,
        reply_filter=replies,
        notes=tuple(reply_filter_notes(replies) + evaluator_notes(net)),
    )


def plan_units(request: OpeningsRequest, phase: int, survivors: Sequence[Sequence[int]] | None = None,
               done: Sequence[int] | None = None) -> ChainedPlan:
    """The units of phase 0 (the short run of every play; the whole run without screening) or
    phase 1 (the remaining chunks, for the survivors of each roll), roll by roll, chunk order,
    made when asked for. ``done[ri]``: roll ri's chunks before it are done already."""
    first, last = (0, request.screen_chunks) if phase == 0 else (request.screen_chunks, request.n_chunks)
    plans = []
    for ri, rp in enumerate(request.rolls):
        cands = tuple(range(len(rp.notations))) if phase == 0 else tuple(survivors[ri])  # type: ignore[index]
        start = first if done is None else max(first, done[ri])
        plans.append(UnitPlan(range(start, last), partial(_opening_unit, request, ri, cands)))
    return ChainedPlan(plans)


def _opening_unit(request: OpeningsRequest, ri: int, cands: tuple[int, ...], c: int) -> CandidateUnit:
    """Chunk ``c`` of roll ``ri``'s candidate plays ``cands``."""
    rp = request.rolls[ri]
    t0, n = request.chunk_bounds(c)
    return CandidateUnit(
        roll_index=ri, chunk=c, first_trial=t0, n_games=n, candidates=cands,
        boards=tuple(rp.boards[i] for i in cands), roll_seed=_roll_seed(request.seed, rp.roll),
        player_on_roll=request.player_ids[1], first_mover=request.player_ids[0],
        backgammons=bool(request.rules.backgammons), stratify=request.stratify,
        bearoff_play=request.bearoff_play, truncate=request.truncate,
        cache_dir=request.cache_dir, vr=request.vr, net=request.net,
        reply_filter=request.reply_filter,
        **(_variant_fields(request, rp, cands) if request.game else {}),
    )


def _variant_fields(request: OpeningsRequest, rp: RollPlays, cands: Sequence[int]) -> dict[str, Any]:
    """The CandidateUnit fields of a Plakoto / Fevga run."""
    return {"game": GAME_CODES[request.game], "pinned": tuple(rp.pinned[i] for i in cands),  # type: ignore[index]
            "variant_options": request.variant_options}


# ---------------------------------------------------------------------------------------------
# The job kinds: plan, merge, progress and checkpoints (the driver runs them; see driver.Job)
# ---------------------------------------------------------------------------------------------

CHECKPOINT_FORMAT = "tavli_fast openings checkpoint"
CHECKPOINT_VERSION = 1


#: The settings a checkpoint's request must hold to be resumed.
_REQUEST_KEYS = ("trials", "players", "seed", "rules", "rolls", "screen", "screen_trials",
                 "chunk_size", "stratify", "bearoff", "truncate")


def read_checkpoint(path: str | Any) -> dict[str, Any]:
    """Load and check an openings checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "openings",
                            {"request": dict, "rolls": list}, _REQUEST_KEYS)


def request_from_checkpoint(doc: dict[str, Any], reply_filter: object = None,
                            evaluator: str | None = None,
                            path: str | os.PathLike | None = None) -> OpeningsRequest:
    """The request saved in an openings checkpoint document; ``reply_filter``: the pre-filter
    asked for (None: the one saved; ``OpeningsJob.from_checkpoint`` refuses another);
    ``evaluator``: the one asked for (None: the one saved; another is refused,
    ``resumed_evaluator``; ``path`` names the checkpoint in that message)."""
    saved = doc["request"]
    kind = resumed_evaluator(saved, evaluator, path)
    return make_openings_request(
        trials=saved["trials"], players=tuple(saved["players"]), seed=saved["seed"],
        rules=saved["rules"], rolls=",".join(saved["rolls"]), screen=saved["screen"],
        screen_trials=saved["screen_trials"] if saved["screen"] is not None else None,
        chunk_size=saved["chunk_size"], stratify=saved["stratify"], bearoff=saved["bearoff"],
        truncate=saved["truncate"], cache_dir=saved.get("cache_dir"), game=saved.get("game"),
        game_rules=saved.get("game_rules"),
        vr=saved.get("vr", False),  # checkpoints from before variance reduction have none
        weights=saved.get("weights"),
        reply_filter=saved_reply_filter(saved) if reply_filter is None else reply_filter,
        evaluator=kind,
    )


class OpeningsJob:
    """Opening statistics as a job of the driver: round 0 runs every play of every roll (the
    short run when screening, else the whole run); with screening, round 1 runs the remaining
    chunks for the plays within the threshold of each roll's best. One ``CandidateTally`` per roll.
    """

    worker = staticmethod(run_unit)

    def __init__(self, request: OpeningsRequest, tallies: Sequence[CandidateTally] | None = None):
        self.request = request
        self.tallies = (list(tallies) if tallies is not None
                        else [CandidateTally(len(rp.notations)) for rp in request.rolls])
        self.resumed_games = self._games()
        self._round = 0

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: OpeningsRequest, path: str) -> "OpeningsJob":
        """The job with the tallies saved in checkpoint ``doc``; ValueError if they do not fit
        or the request differs from the one saved (e.g. its reply filter or weights file)."""
        check_same_run(doc["request"], request.identity(), path)
        if len(doc["rolls"]) != len(request.rolls):
            raise ValueError(f"checkpoint {path}: wrong number of rolls")
        return cls(request, [CandidateTally.from_dict(len(rp.notations), d)
                             for rp, d in zip(request.rolls, doc["rolls"])])

    def _games(self) -> int:
        return sum(int(t.games.sum()) for t in self.tallies)

    def plan(self) -> Sequence[CandidateUnit]:
        request = self.request
        done = [t.next_chunk for t in self.tallies]
        while self._round < 2:
            phase = self._round
            self._round += 1
            if phase == 0:
                units = plan_units(request, 0, done=done)
            elif request.screen is None:
                return ()
            else:
                for t in self.tallies:
                    if t.survivors is None:
                        t.choose_survivors(request.screen)
                units = plan_units(request, 1, [t.survivors for t in self.tallies],  # type: ignore[misc]
                                   done=done)
            if units:
                return units
        return ()

    def add(self, result: UnitResult) -> None:
        self.tallies[result.roll_index].add(result)

    def add_partial(self, result: UnitResult) -> None:
        """A unit cut short by a stop (``run/driver.py``): reported, never saved."""
        self.tallies[result.roll_index].add_partial(result)

    done = False

    prepare = staticmethod(prepare_unit)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        request = self.request
        # Trials that screened-out plays will never play count as done.
        skipped = sum((len(rp.notations) - len(t.survivors)) * (request.trials - request.screen_trials)
                      for rp, t in zip(request.rolls, self.tallies) if t.survivors is not None)
        done = self._games() + skipped
        rate = (done - self.resumed_games) / session_s if session_s > 0 else 0.0
        left = request.total_play_trials - done
        return RolloutProgress(
            trials_done=done, trials_total=request.total_play_trials, elapsed_s=elapsed_s,
            games_per_second=rate, equity=math.nan, equity_se=math.nan,
            eta_s=left / rate if rate > 0 else math.inf,
        )

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "request": self.request.to_checkpoint(),
            "elapsed_s": elapsed_s,
            "rolls": [t.to_dict() for t in self.tallies],
        }


class RepliesJob:
    """One opening play against each reply roll of the opponent, as a job of the driver: one
    round, one ``CandidateTally`` (of one play) per reply roll. No checkpoints."""

    worker = staticmethod(run_unit)

    def __init__(self, request: OpeningsRequest, board: bytes,
                 reply_rolls: Sequence[tuple[int, int]]):
        self.request = request
        self.board = board
        self.reply_rolls = tuple(reply_rolls)
        self.tallies = [CandidateTally(1) for _ in self.reply_rolls]
        self._planned = False

    def plan(self) -> Sequence[CandidateUnit]:
        if self._planned:
            return ()
        self._planned = True
        return ChainedPlan(UnitPlan(range(self.request.n_chunks), partial(self._unit, ri))
                           for ri in range(len(self.reply_rolls)))

    def _unit(self, ri: int, c: int) -> CandidateUnit:
        """Chunk ``c`` of the games against reply ``ri``."""
        request = self.request
        reply = self.reply_rolls[ri]
        base = _roll_seed(request.seed, request.rolls[0].roll)
        seed_r = int(np.random.SeedSequence(base, spawn_key=(10 * reply[0] + reply[1],))
                     .generate_state(1, np.uint64)[0])
        t0, n = request.chunk_bounds(c)
        return CandidateUnit(
            roll_index=ri, chunk=c, first_trial=t0, n_games=n, candidates=(0,),
            boards=(self.board,), roll_seed=seed_r, player_on_roll=request.player_ids[1],
            first_mover=request.player_ids[0], backgammons=bool(request.rules.backgammons),
            stratify=request.stratify, bearoff_play=request.bearoff_play,
            truncate=request.truncate, cache_dir=request.cache_dir, reply=reply,
            vr=request.vr, net=request.net, reply_filter=request.reply_filter,
        )

    def add(self, result: UnitResult) -> None:
        self.tallies[result.roll_index].add(result)

    def add_partial(self, result: UnitResult) -> None:
        """A unit cut short by a stop (``run/driver.py``): reported, never saved."""
        self.tallies[result.roll_index].add_partial(result)

    done = False

    prepare = staticmethod(prepare_unit)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        total = self.request.trials * len(self.reply_rolls)
        done = sum(int(t.games[0]) for t in self.tallies)
        rate = done / session_s if session_s > 0 else 0.0
        return RolloutProgress(done, total, elapsed_s, rate, math.nan, math.nan,
                               (total - done) / rate if rate > 0 else math.inf)

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        raise NotImplementedError("reply statistics have no checkpoints")
