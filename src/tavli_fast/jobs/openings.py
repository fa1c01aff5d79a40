"""Opening statistics: every legal play of every opening roll, rolled out with common dice.

For each opening roll (the 15 non-doubles of R5, or the 21 rolls of the Portes variant, where
the first player re-rolls both dice) every distinct legal play from the starting position is
rolled out: the position after the play, sides switched (the opponent on roll, rolling
normally), with the players swapped accordingly. Every figure is then turned back to the first
mover's view (win <-> lose, gammons swap, equity negated).

Common random numbers: all the candidate plays of one roll are played on the same dice. Trial
``t`` of every candidate uses the same chunk seed, the same stratified first two rolls of the
opponent and the same forced dice for its first ``FORCED_ROLLS`` turns (games are far shorter,
so in practice every game is played on identical dice). The per-trial equities of the
candidates are then strongly correlated and the difference between two plays, computed trial by
trial (a paired difference), has a far smaller standard error than either play's equity.

The unit of work (``OpeningUnit``) is one roll x one chunk of trials, running the candidate
plays of that roll; it returns plain numbers (``UnitResult``): per candidate the sums and sums
of squares of the figures, and the sums of products of the candidates' per-trial equities, so
the parent's memory does not grow with the trials. Units are merged in chunk order per roll,
so the numbers depend on the seed, the trials, the chunk size and the screening settings, never
on the number of worker processes. This module knows nothing of processes (``parallel.run_units``
runs the units).

Plakoto and Fevga (``game=``) use the same job: the 21 rolls (T3: the starter rolls both dice
again, so the first play may be a double), every distinct play of each from the game's start,
the variants' players, and the same common dice. A 2-point win (by bearing off or by the
mother rule) counts as a gammon; a draw (P6) counts 0 in every figure.
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass
from functools import partial
from numbers import Real
from typing import Any, Sequence

import numpy as np

from .. import _core
from ..run.checkpoint import read_checkpoint as _read_checkpoint
from ..checks import check_count, check_seed
from ..play.players import player_kinds
from ..play.neural import NetChoice, choose_net
from ..run.plans import ChainedPlan, UnitPlan, part_size, parts
from ..play.players import PLAYERS, game_resources, needs_net
from ..game.position import Position
from ..run.progress import RolloutProgress
from .rollout import FIGURES, chunk_seed, figures_from_moments
from ..rules import Rules, get_rules
from .stratify import stratified_dice

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
_K = len(OPENING_FIGURES)
_EQ = OPENING_FIGURES.index("equity")

#: Trials per unit of work (one roll x one chunk): a whole block of stratified first two rolls.
DEFAULT_CHUNK_SIZE = 1296

#: ``tavli-openings``' defaults (issue 10): every play gets a short run of SCREEN_TRIALS, the
#: plays within SCREEN of their roll's best get TRIALS in all, so each roll's best play ends with
#: an equity SE of about 0.0045 (neural 0 ply: a game's equity has a standard deviation of about
#: 1.31), and all 15 rolls take about 25 minutes on 2 cores. 0.06 is 4 SEs of the short run's
#: paired difference (about 0.015), so a play worth running is practically never screened out.
DEFAULT_TRIALS = 70 * DEFAULT_CHUNK_SIZE
DEFAULT_SCREEN = 0.06
DEFAULT_SCREEN_TRIALS = 10 * DEFAULT_CHUNK_SIZE

#: Turns whose dice are fixed per trial (identical for every candidate play): the common dice.
#: Games from the start last about 61 +- 18 turns, so 200 covers practically every game.
FORCED_ROLLS = 200

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
                from ..play.neural import default_net

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
        from ..rules import game_rules as make_rules
        from ..variants.movegen import variant_play_notation

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
) -> OpeningsRequest:
    """Validate the arguments of an openings run; raise ValueError precisely.

    ``game``: "plakoto" or "fevga" (the 21 rolls of T3, the variants' players, default
    ``neural``, the game's net, as for Portes; ``rules`` must then be left at backgammon / portes, which it replaces), by
    ``game_rules`` (a PlakotoRules / FevgaRules or option names; None: the defaults).
    ``vr``: variance reduction (see ``parallel.rollout``), on top of the common dice; every
    figure is then luck-adjusted. None: on when a neural player plays (never for Plakoto /
    Fevga, whose players have no net). ``weights``: a weights file for the net of the neural
    players and variance reduction instead of the shipped one (``parallel.rollout``)."""
    n = check_count(trials)
    options: tuple[str, ...] = ()
    bits = 0
    if game is None and game_rules is not None:
        raise ValueError("game_rules are the options of Plakoto or Fevga: give game too")
    if game is not None:
        from ..rules import game_rules as make_rules, option_names
        from ..variants.games import variant_player_ids
        from ..variants.movegen import GAME_CODES, core_options

        if game not in GAME_CODES:
            raise ValueError(f"game must be one of {', '.join(GAME_CODES)}, not {game!r}")
        chosen_rules = make_rules(game, game_rules)
        options, bits = option_names(chosen_rules), core_options(game, chosen_rules)
        get_rules(rules)  # still a known name
        if vr or weights is not None:
            raise ValueError(f"{'variance reduction' if vr else 'weights'}: the neural net "
                             f"plays backgammon / Portes, not {game}")
        names, ids = variant_player_ids(game, players if players is not None else "neural")
        rules, bearoff, truncate = "portes", False, False  # T3 rolls; no databases there
    else:
        names, ids = player_kinds(players if players is not None else default_player())
    rule_set = get_rules(rules)
    seed_value = check_seed(seed)
    size = check_count(chunk_size, "chunk_size")
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
    net = choose_net(weights, needed=game is None and (needs_net(ids) or use_vr))
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
    )


@dataclass(frozen=True)
class OpeningUnit:
    """One roll x one chunk of trials, for some of the roll's candidate plays: plain data."""

    roll_index: int  # index of the roll in the request
    chunk: int
    first_trial: int
    n_games: int
    candidates: tuple[int, ...]  # indices of the plays in the roll's list
    boards: tuple[bytes, ...]  # their positions after the play, sides switched
    roll_seed: int
    player_on_roll: int  # the opponent of the first mover: on roll in the rolled-out positions
    first_mover: int
    backgammons: bool
    stratify: bool
    bearoff_play: bool
    truncate: bool
    cache_dir: str | None
    reply: tuple[int, int] | None = None  # the opponent's first roll, forced (reply statistics)
    vr: bool = False  # luck-adjusted figures
    game: int = -1  # Portes (-1), or the core's Plakoto / Fevga number
    pinned: tuple[int, ...] = ()  # Plakoto: the pinned mask of the side on roll, per board
    variant_options: int = 0  # Plakoto / Fevga: the core's option bits
    net: NetChoice | None = None  # the net of the neural players and vr (None: the shipped one)


@dataclass(frozen=True)
class UnitResult:
    """What one unit produced, for the first mover: plain numbers.

    ``moments[i]``: the sums, then the sums of squares, of candidate i's OPENING_FIGURES;
    ``cross[i][j]``: the sum over the trials of equity_i * equity_j.
    """

    roll_index: int
    chunk: int
    games: int
    candidates: tuple[int, ...]
    moments: tuple[tuple[float, ...], ...]
    cross: tuple[tuple[float, ...], ...]
    truncated: tuple[int, ...]
    plies: tuple[int, ...]


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


def _opening_unit(request: OpeningsRequest, ri: int, cands: tuple[int, ...], c: int) -> OpeningUnit:
    """Chunk ``c`` of roll ``ri``'s candidate plays ``cands``."""
    rp = request.rolls[ri]
    t0, n = request.chunk_bounds(c)
    return OpeningUnit(
        roll_index=ri, chunk=c, first_trial=t0, n_games=n, candidates=cands,
        boards=tuple(rp.boards[i] for i in cands), roll_seed=_roll_seed(request.seed, rp.roll),
        player_on_roll=request.player_ids[1], first_mover=request.player_ids[0],
        backgammons=bool(request.rules.backgammons), stratify=request.stratify,
        bearoff_play=request.bearoff_play, truncate=request.truncate,
        cache_dir=request.cache_dir, vr=request.vr, net=request.net,
        **(_variant_fields(request, rp, cands) if request.game else {}),
    )


def _variant_fields(request: OpeningsRequest, rp: RollPlays, cands: Sequence[int]) -> dict[str, Any]:
    """The OpeningUnit fields of a Plakoto / Fevga run."""
    from ..variants.movegen import GAME_CODES

    return {"game": GAME_CODES[request.game], "pinned": tuple(rp.pinned[i] for i in cands),  # type: ignore[index]
            "variant_options": request.variant_options}


def common_dice(unit: OpeningUnit) -> np.ndarray:
    """The forced dice (int8 [n_games, 2*FORCED_ROLLS]) shared by every candidate of the unit:
    the opponent's first two rolls stratified, the later ones drawn from the chunk's seed."""
    n = unit.n_games
    rng = np.random.default_rng(np.random.SeedSequence(unit.roll_seed, spawn_key=(unit.chunk, 1)))
    later = rng.integers(1, 7, size=(n, 2 * FORCED_ROLLS), dtype=np.int8)
    if unit.stratify:
        later[:, :4] = stratified_dice(unit.roll_seed, unit.first_trial, n)
    if unit.reply is not None:  # the reply is forced; the next two rolls are stratified
        later[:, 2:] = later[:, :-2].copy()
        later[:, :2] = unit.reply
    return np.ascontiguousarray(later)


def _first_mover_moments(opp: np.ndarray, n: int) -> tuple[float, ...]:
    """Sums and sums of squares of the figures for the first mover, from the opponent's."""
    s, q = opp[:_K], opp[_K:]
    # opponent's order: win, wg, wbg, lg, lbg, equity
    sums = [n - s[0], s[3], s[4], s[1], s[2], -s[5]]
    sq = [n - 2 * s[0] + q[0], q[3], q[4], q[1], q[2], q[5]]
    return tuple(float(v) for v in (*sums, *sq))


# Each Plakoto / Fevga outcome of the side on roll (variant_games.OUTCOMES: his win single,
# double, mother, loss single, double, mother, draw) as the six figures of the FIRST MOVER,
# his opponent: win, 2-point win, -, 2-point loss, -, points. A draw (P6) is 0 in all, so
# win + loss is not 1 and the Portes conversion (_first_mover_moments) does not apply.
_VARIANT_FIGURES = np.array(
    [[0, 0, 0, 0, 0, -1], [0, 0, 0, 1, 0, -2], [0, 0, 0, 1, 0, -2],
     [1, 0, 0, 0, 0, 1], [1, 1, 0, 0, 0, 2], [1, 1, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0]],
    dtype=np.float64,
)


def _variant_figures(unit: OpeningUnit, i: int, board: np.ndarray, seed: int,
                     players: tuple[int, int], dice: np.ndarray) -> tuple[np.ndarray, int]:
    """Candidate i's games of a Plakoto / Fevga unit: per game the first mover's figures
    (float64[n_games, 6]) and the sum of the plies."""
    from ..variants.games import play_variant_trials

    counts, outcomes = play_variant_trials(board, unit.pinned[i], unit.game, unit.variant_options,
                                           unit.n_games, players, seed, dice)
    return _VARIANT_FIGURES[outcomes], int(counts[7])


def unit_resources(unit: OpeningUnit, load: bool = True) -> dict:
    """The bear-off tables and net the unit's games need (see players.game_resources)."""
    if unit.game >= 0:
        return {}  # the Plakoto / Fevga players need neither
    return game_resources((unit.player_on_roll, unit.first_mover), unit.bearoff_play,
                          unit.truncate, unit.cache_dir, load=load, net=unit.vr,
                          weights=unit.net)


def prepare_unit(unit: OpeningUnit) -> None:
    """Build the bear-off databases the unit's games need, if missing, without loading them
    (once per machine, before its workers start)."""
    unit_resources(unit, load=False)


def run_unit(unit: OpeningUnit) -> UnitResult:
    """Play the unit's trials for each candidate on the same dice (C game loop, GIL released).
    With ``unit.vr`` every figure, and the per-trial equities of the paired differences, are
    luck-adjusted."""
    start = time.perf_counter()
    dice = common_dice(unit)
    seed = chunk_seed(unit.roll_seed, unit.chunk)
    players = (unit.player_on_roll, unit.first_mover)
    resources = unit_resources(unit)
    k = len(unit.candidates)
    equities = np.empty((k, unit.n_games), dtype=np.float64)
    luck = np.zeros((k, unit.n_games), dtype=np.float64)
    moments, truncated, plies = [], [], []
    for i, raw in enumerate(unit.boards):
        board = np.frombuffer(raw, dtype=np.int8).reshape(2, 26).copy()
        vr = np.zeros(2 * _K) if unit.vr else None
        if unit.game >= 0:
            figs, n_plies = _variant_figures(unit, i, board, seed, players, dice)
            equities[i] = -figs[:, _EQ]  # the side on roll's, as run_games gives them
            moments.append(tuple(float(v) for v in (*figs.sum(axis=0), *(figs**2).sum(axis=0))))
            truncated.append(0)
            plies.append(n_plies)
            continue
        counts, m = _core.run_games(
            board, unit.n_games, players[0], players[1], seed, False, unit.backgammons, dice,
            bearoff_play=unit.bearoff_play, truncate=unit.truncate,
            given_plies=0 if unit.reply is None else 1, per_game_equity=equities[i],
            vr_moments=vr, per_game_luck=luck[i] if unit.vr else None, **resources,
        )
        if vr is not None:
            m = vr
        if int(counts[:7].sum()) != unit.n_games:
            raise RuntimeError(f"roll {unit.roll_index} chunk {unit.chunk}: wrong number of games")
        moments.append(_first_mover_moments(np.asarray(m, dtype=np.float64), unit.n_games))
        truncated.append(int(counts[6]))
        plies.append(int(counts[7]))
    equities -= luck
    equities *= -1.0  # the first mover's equity
    cross = equities @ equities.T
    log.debug("roll %d chunk %d: %d x %d games in %.3f s", unit.roll_index, unit.chunk, k,
              unit.n_games, time.perf_counter() - start)
    return UnitResult(
        roll_index=unit.roll_index, chunk=unit.chunk, games=unit.n_games,
        candidates=unit.candidates, moments=tuple(moments),
        cross=tuple(tuple(float(v) for v in row) for row in cross),
        truncated=tuple(truncated), plies=tuple(plies),
    )


# ---------------------------------------------------------------------------------------------
# Merging: per roll, in chunk order (fixed-size state)
# ---------------------------------------------------------------------------------------------


class RollTally:
    """The merged state of one roll: per play sums, and per pair of plays the sums over the
    trials both played (so screened-out plays still get a paired difference to the best).

    Units are applied in chunk order (out-of-order results wait in a small buffer), so the sums
    do not depend on the order in which workers finish.
    """

    def __init__(self, n_plays: int):
        k = n_plays
        self.n_plays = k
        self.games = np.zeros(k, dtype=np.int64)
        self.moments = np.zeros((k, 2 * _K), dtype=np.float64)
        self.truncated = np.zeros(k, dtype=np.int64)
        self.plies = np.zeros(k, dtype=np.int64)
        self.pair_n = np.zeros((k, k), dtype=np.int64)  # trials played by both i and j
        self.pair_sum = np.zeros((k, k), dtype=np.float64)  # sum of equity_i over those trials
        self.pair_sq = np.zeros((k, k), dtype=np.float64)  # sum of equity_i**2 over those trials
        self.cross = np.zeros((k, k), dtype=np.float64)  # sum of equity_i * equity_j
        self.next_chunk = 0
        self.buffer: dict[int, UnitResult] = {}
        self.survivors: list[int] | None = None

    def add(self, result: UnitResult) -> None:
        if result.chunk < self.next_chunk or result.chunk in self.buffer:
            raise RuntimeError(f"chunk {result.chunk} counted twice")
        self.buffer[result.chunk] = result
        while self.next_chunk in self.buffer:
            self._apply(self.buffer.pop(self.next_chunk))
            self.next_chunk += 1

    def _apply(self, r: UnitResult) -> None:
        c = np.asarray(r.candidates, dtype=np.intp)
        m = np.asarray(r.moments, dtype=np.float64)
        ix = np.ix_(c, c)
        self.games[c] += r.games
        self.moments[c] += m
        self.truncated[c] += np.asarray(r.truncated, dtype=np.int64)
        self.plies[c] += np.asarray(r.plies, dtype=np.int64)
        self.pair_n[ix] += r.games
        self.pair_sum[ix] += m[:, _EQ][:, None]
        self.pair_sq[ix] += m[:, _K + _EQ][:, None]
        self.cross[ix] += np.asarray(r.cross, dtype=np.float64)

    def figures(self, i: int) -> tuple[dict[str, float], dict[str, float]]:
        """Play i's figures and their standard errors (trials independent)."""
        n = int(self.games[i])
        if n == 0:
            nan = {k: math.nan for k in OPENING_FIGURES}
            return nan, dict(nan)
        return figures_from_moments(self.moments[i], n)

    def paired_difference(self, i: int, best: int) -> tuple[float, float, int]:
        """Mean of equity_i - equity_best over the trials both played, its SE, and those trials."""
        n = int(self.pair_n[i, best])
        if n == 0:
            return math.nan, math.nan, 0
        if i == best:
            return 0.0, 0.0, n
        d = (self.pair_sum[i, best] - self.pair_sum[best, i]) / n
        sq = (self.pair_sq[i, best] + self.pair_sq[best, i] - 2.0 * self.cross[i, best]) / n
        return float(d), math.sqrt(max(sq - d * d, 0.0) / n), n

    def choose_survivors(self, threshold: float) -> list[int]:
        """The plays within ``threshold`` of the best equity of the short run."""
        eq = self.moments[:, _EQ] / np.maximum(self.games, 1)
        best = float(eq.max())
        self.survivors = [i for i in range(self.n_plays) if eq[i] >= best - threshold]
        return self.survivors

    # Checkpoints ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "next_chunk": self.next_chunk,
            "survivors": self.survivors,
            **{name: getattr(self, name).tolist() for name in _ARRAYS},
        }

    @classmethod
    def from_dict(cls, n_plays: int, doc: dict[str, Any]) -> "RollTally":
        t = cls(n_plays)
        t.next_chunk = int(doc["next_chunk"])
        t.survivors = None if doc.get("survivors") is None else [int(i) for i in doc["survivors"]]
        for name in _ARRAYS:
            old = getattr(t, name)
            new = np.asarray(doc[name], dtype=old.dtype)
            if new.shape != old.shape:
                raise ValueError(f"checkpoint: {name} has shape {new.shape}, expected {old.shape}")
            setattr(t, name, new)
        return t


_ARRAYS = ("games", "moments", "truncated", "plies", "pair_n", "pair_sum", "pair_sq", "cross")



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


def request_from_checkpoint(doc: dict[str, Any]) -> OpeningsRequest:
    """The request saved in an openings checkpoint document."""
    saved = doc["request"]
    return make_openings_request(
        trials=saved["trials"], players=tuple(saved["players"]), seed=saved["seed"],
        rules=saved["rules"], rolls=",".join(saved["rolls"]), screen=saved["screen"],
        screen_trials=saved["screen_trials"] if saved["screen"] is not None else None,
        chunk_size=saved["chunk_size"], stratify=saved["stratify"], bearoff=saved["bearoff"],
        truncate=saved["truncate"], cache_dir=saved.get("cache_dir"), game=saved.get("game"),
        game_rules=saved.get("game_rules"),
        vr=saved.get("vr", False),  # checkpoints from before variance reduction have none
        weights=saved.get("weights"),
    )


class OpeningsJob:
    """Opening statistics as a job of the driver: round 0 runs every play of every roll (the
    short run when screening, else the whole run); with screening, round 1 runs the remaining
    chunks for the plays within the threshold of each roll's best. One ``RollTally`` per roll.
    """

    worker = staticmethod(run_unit)

    def __init__(self, request: OpeningsRequest, tallies: Sequence[RollTally] | None = None):
        self.request = request
        self.tallies = (list(tallies) if tallies is not None
                        else [RollTally(len(rp.notations)) for rp in request.rolls])
        self.resumed_games = self._games()
        self._round = 0

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: OpeningsRequest, path: str) -> "OpeningsJob":
        """The job with the tallies saved in checkpoint ``doc``; ValueError if they do not fit."""
        if len(doc["rolls"]) != len(request.rolls):
            raise ValueError(f"checkpoint {path}: wrong number of rolls")
        return cls(request, [RollTally.from_dict(len(rp.notations), d)
                             for rp, d in zip(request.rolls, doc["rolls"])])

    def _games(self) -> int:
        return sum(int(t.games.sum()) for t in self.tallies)

    def plan(self) -> Sequence[OpeningUnit]:
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
    round, one ``RollTally`` (of one play) per reply roll. No checkpoints."""

    worker = staticmethod(run_unit)

    def __init__(self, request: OpeningsRequest, board: bytes,
                 reply_rolls: Sequence[tuple[int, int]]):
        self.request = request
        self.board = board
        self.reply_rolls = tuple(reply_rolls)
        self.tallies = [RollTally(1) for _ in self.reply_rolls]
        self._planned = False

    def plan(self) -> Sequence[OpeningUnit]:
        if self._planned:
            return ()
        self._planned = True
        return ChainedPlan(UnitPlan(range(self.request.n_chunks), partial(self._unit, ri))
                           for ri in range(len(self.reply_rolls)))

    def _unit(self, ri: int, c: int) -> OpeningUnit:
        """Chunk ``c`` of the games against reply ``ri``."""
        request = self.request
        reply = self.reply_rolls[ri]
        base = _roll_seed(request.seed, request.rolls[0].roll)
        seed_r = int(np.random.SeedSequence(base, spawn_key=(10 * reply[0] + reply[1],))
                     .generate_state(1, np.uint64)[0])
        t0, n = request.chunk_bounds(c)
        return OpeningUnit(
            roll_index=ri, chunk=c, first_trial=t0, n_games=n, candidates=(0,),
            boards=(self.board,), roll_seed=seed_r, player_on_roll=request.player_ids[1],
            first_mover=request.player_ids[0], backgammons=bool(request.rules.backgammons),
            stratify=request.stratify, bearoff_play=request.bearoff_play,
            truncate=request.truncate, cache_dir=request.cache_dir, reply=reply,
            vr=request.vr, net=request.net,
        )

    def add(self, result: UnitResult) -> None:
        self.tallies[result.roll_index].add(result)

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
