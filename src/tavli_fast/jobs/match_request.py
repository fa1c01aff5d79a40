"""A match run's request (``match.py``): everything that fixes its numbers, validated.

``make_match_request`` checks the arguments of ``play_matches`` and says precisely what is
wrong; ``variant_player`` gives the Plakoto / Fevga player of a Portes player in a tavli
match; ``check_names`` the players' names of recorded matches (``tavli-match --save``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..checks import check_count, check_seed
from ..play.cube import default_match_table
from ..play.neural import NetChoice, choose_net
from ..play.players import needs_net, player_kinds
from ..rules import FevgaRules, PlakotoRules, Rules, game_rules, get_rules, option_names
from ..run.plans import parts
from ..variants.games import NEURAL_VARIANT_PLAYERS, VARIANT_PLAYERS
from .cubeful import DEFAULT_MAX_CUBE, check_max_cube
from .match_record import DEFAULT_NAMES
from .rollout_chunks import DEFAULT_REPLY_FILTER
from .rollout_request import (check_reply_filter, evaluator_notes, reply_filter_identity,
                              reply_filter_notes)

__all__ = ["DEFAULT_MATCH_CHUNK", "MAX_RECORDED_MATCHES", "MatchRequest", "make_match_request",
           "check_names", "tavli_rules", "variant_player", "variant_player_name"]

#: Matches per chunk (a chunk of 7-point matches between neural players takes a few seconds).
DEFAULT_MATCH_CHUNK = 200

#: The most matches one run records (``record`` / ``save``): their .mat text is kept in memory
#: until the run ends, a few kB a match (about 6 kB a 7-point match).
MAX_RECORDED_MATCHES = 10_000

@dataclass(frozen=True)
class MatchRequest:
    """Everything that fixes a match run's numbers (validated)."""

    length: int
    matches: int
    players: tuple[str, str]  # A, B
    player_ids: tuple[int, int]
    score: tuple[int, int]  # points A and B have already won
    post_crawford: bool
    rules: Rules
    cube: bool
    max_cube: int
    seed: int
    chunk_size: int
    bearoff_play: bool = True
    cache_dir: str | None = None
    tavli: bool = False  # T1-T3: games rotate Portes, Plakoto, Fevga
    variant_ids: tuple[int, int] = (1, 1)  # A's and B's players in Plakoto and Fevga
    game_rules: tuple[str, ...] = ()  # tavli: the Plakoto and Fevga options set, by name
    net: NetChoice | None = None  # the net of the neural players (None: no neural player)
    record: bool = False  # keep each match's record (.mat text) for --save
    names: tuple[str, str] = DEFAULT_NAMES  # the players' names in the records
    # The neural-1ply players' pre-filter of replies (keep, margin), in the Portes games.
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER
    notes: tuple[str, ...] = ()

    @property
    def n_chunks(self) -> int:
        return parts(self.matches, self.chunk_size)

    def identity(self) -> dict[str, Any]:
        """The parameters that must match for a checkpoint to be resumed."""
        return {
            "length": self.length,
            "players": list(self.players),
            "score": list(self.score),
            "post_crawford": self.post_crawford,
            "rules": self.rules.name,
            "cube": self.cube,
            "max_cube": self.max_cube,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "bearoff": self.bearoff_play,
            # Only tavli requests carry it, so that older checkpoints still match.
            **({"tavli": True} if self.tavli else {}),
            **({"game_rules": list(self.game_rules)} if self.game_rules else {}),
            # Whenever a player looks ahead (the Portes games of a tavli match too): a
            # checkpoint without it is from before the pre-filter, and played every reply.
            **reply_filter_identity(self.reply_filter, self.players),
            **(self.net.checkpoint_keys()[0] if self.net else {}),
            # With the cube the neural players play by cubeful equity: a checkpoint from before
            # (cubeless checker play) is not continued with other play.
            **({"checker_play": "cubeful"} if self.cube and self.max_cube > 1 else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.identity(), "matches": self.matches, "cache_dir": self.cache_dir,
                **(self.net.checkpoint_keys()[1] if self.net else {})}


def _whole(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


def variant_player(name: str) -> int:
    """The Plakoto / Fevga player (the core's VPLAYER_*) of a Portes player in a tavli match:
    ``random`` plays randomly there too, ``neural`` / ``neural-1ply`` by the game's net at
    that depth (``neural-2ply`` at 1 ply, the deepest there), every other player by the
    variants' heuristic."""
    if name == "neural-2ply":  # the variants' nets look 1 ply ahead at most
        name = "neural-1ply"
    if name == "random" or name in NEURAL_VARIANT_PLAYERS:
        return VARIANT_PLAYERS[name]
    return VARIANT_PLAYERS["heuristic"]


def variant_player_name(name: str) -> str:
    """The name of the Plakoto / Fevga player ``variant_player`` gives a Portes player."""
    code = variant_player(name)
    return next(k for k, v in VARIANT_PLAYERS.items() if v == code)


def make_match_request(
    length: object = 7,
    matches: object = 1000,
    players: object = ("neural", "neural"),
    score: object = (0, 0),
    post_crawford: bool = False,
    rules: object = None,
    cube: bool = True,
    max_cube: object = DEFAULT_MAX_CUBE,
    seed: object = None,
    chunk_size: object = DEFAULT_MATCH_CHUNK,
    bearoff: bool = True,
    cache_dir: str | os.PathLike | None = None,
    tavli: bool = False,
    game_rules: object = None,
    weights: str | os.PathLike | None = None,
    record: bool = False,
    names: object = DEFAULT_NAMES,
    reply_filter: object = None,
    evaluator: str | None = None,
) -> MatchRequest:
    """Validate the arguments of a match run; raise ValueError saying precisely what is wrong.

    ``rules`` None means "backgammon", or "portes" for a tavli match (the only rules it takes).
    A score at which both players are 1-away is post-Crawford (the Crawford game has been
    played). ``tavli``: the games rotate Portes, Plakoto, Fevga (T1-T3), without the cube, from 0-0;
    ``game_rules``: option names of Plakoto and Fevga for it (``"draw_scores_point"``, ...).
    ``weights``: a weights file for the neural players' net instead of the shipped one.
    ``record``: keep every match's record (at most MAX_RECORDED_MATCHES), its players named
    ``names`` (A's, B's: two different names without line breaks or colons).
    ``reply_filter``: the ``neural-1ply`` players' pre-filter of replies
    (``check_reply_filter``; None: the default); in a tavli match it applies to the Portes
    games (the Plakoto and Fevga players have no such look-ahead).
    ``evaluator``: how the neural players' net values positions (``neural.EVALUATORS``; None:
    ``neural.default_evaluator()``; ``"float32"``: the reference; ``"int16"``: faster); in a
    tavli match, in the Portes games (the Plakoto and Fevga nets are valued by float32).
    """
    if game_rules is not None and not tavli:
        raise ValueError("game_rules are the options of Plakoto and Fevga: they need tavli")
    if tavli:
        if rules is not None and get_rules(rules).name != "portes":
            raise ValueError(f"a tavli match plays Portes by the portes rules, not {get_rules(rules).name!r}")
        if tuple(score) != (0, 0) or post_crawford:  # type: ignore[call-overload]
            raise ValueError("a tavli match starts at 0-0: which game comes next depends on the "
                             "games played, so it cannot start from a score")
        rules, cube = "portes", False
    elif rules is None:
        rules = "backgammon"
    n = _whole(length, "the match length", 1)
    table = default_match_table()
    if n > table.size:
        raise ValueError(f"a {n}-point match is longer than the match equity table ({table.size} points)")
    try:
        a, b = (int(s) if not isinstance(s, bool) and isinstance(s, (int, np.integer)) else None
                for s in score)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ValueError(f"score must be two whole numbers A,B, got {score!r}") from None
    if a is None or b is None or a < 0 or b < 0:
        raise ValueError(f"score must be two whole numbers >= 0, got {score!r}")
    if max(a, b) >= n:
        raise ValueError(f"score {a}-{b} has already won a {n}-point match")
    if post_crawford and n - 1 not in (a, b):
        raise ValueError(
            f"post-Crawford needs a player 1 point from winning: score {a}-{b} in a {n}-point match"
        )
    if a == b == n - 1 > 0:
        # Double match point: the game in which the first of them reached match point was the
        # Crawford game (R25), and the other won a game after it. (The cube is dead anyway.)
        post_crawford = True
    rule_set = get_rules(rules)
    cap = check_max_cube(max_cube)
    count = check_count(matches, "matches")
    record_names = check_names(names)
    if record and count > MAX_RECORDED_MATCHES:
        raise ValueError(f"a run records at most {MAX_RECORDED_MATCHES:,} matches (kept in memory "
                         f"until it ends), not {count:,}")
    names, ids = player_kinds(players)
    replies = check_reply_filter(reply_filter)
    notes = reply_filter_notes(replies)
    if tavli:
        notes = [f"{note}; in the Portes games only (the Plakoto and Fevga players have no "
                 "pre-filter)" for note in notes]
    net = choose_net(weights, needed=needs_net(ids), evaluator=evaluator)
    notes += [f"{note}; in the Portes games only (the Plakoto and Fevga nets are valued by "
              "float32)" if tavli else note for note in evaluator_notes(net)]
    return MatchRequest(
        length=n,
        matches=count,
        players=names,
        player_ids=ids,
        score=(a, b),
        post_crawford=bool(post_crawford),
        rules=rule_set,
        cube=bool(cube) and rule_set.cube,
        max_cube=cap,
        seed=check_seed(seed),
        chunk_size=check_count(chunk_size, "chunk_size"),
        bearoff_play=bool(bearoff),
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        tavli=bool(tavli),
        variant_ids=(variant_player(names[0]), variant_player(names[1])),
        game_rules=tuple(sorted(name for rules in tavli_rules(game_rules) for name in option_names(rules))),
        net=net,
        record=bool(record),
        names=record_names,
        reply_filter=replies,
        notes=tuple(notes),
    )


def check_names(names: object) -> tuple[str, str]:
    """The two players' names of the records: two different non-empty names (a string
    ``"A,B"`` or a pair), each on one line and without a colon (the .mat score lines use
    one); ValueError otherwise."""
    if isinstance(names, str):
        names = names.split(",")
    try:
        pair = tuple(str(n).strip() for n in names)  # type: ignore[union-attr]
    except TypeError:
        raise ValueError(f"names must be two names A,B, not {names!r}") from None
    if (len(pair) != 2 or not all(pair) or pair[0] == pair[1]
            or any(c in n for n in pair for c in ':\n\r"')):
        raise ValueError(f"names must be two different names A,B without ':', '\"' or line "
                         f"breaks, not {names!r}")
    return pair[0], pair[1]


def tavli_rules(options: object) -> tuple[PlakotoRules, FevgaRules]:
    """The Plakoto and Fevga rules of a tavli match from option names (each name belongs to
    one of the two games; None: the defaults). ValueError names the options there are."""
    names = [] if options is None else [options] if isinstance(options, str) else list(options)  # type: ignore[call-overload]
    plakoto, fevga = tuple(PlakotoRules.__dataclass_fields__), tuple(FevgaRules.__dataclass_fields__)
    for name in names:
        if name not in plakoto + fevga:
            raise ValueError(f"{name!r} is not an option of Plakoto or Fevga: choose from "
                             f"{', '.join(plakoto + fevga)}")
    return (game_rules("plakoto", [n for n in names if n in plakoto]),  # type: ignore[return-value]
            game_rules("fevga", [n for n in names if n in fevga]))
