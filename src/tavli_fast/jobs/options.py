"""A rollout's settings from the long options of ``tavli-rollout``, built here once for its two
faces: the command (``cli/rollout.py``, ``cli/plays.py``) and ``tavli-serve``'s
``POST /v1/rollouts``, whose body's keys are the same options (``no_stratify`` for
``--no-stratify``). The same options and seed give the same request, so the same numbers.

``options`` is a mapping of option names (their ``dest``: ``target_se``, ``no_stop``, ...) to
values, absent or None where not given. The functions return the keywords of
``tavli_fast.rollout`` or ``tavli_fast.rollout_plays`` in the commands' spelling (the game in
``game``; ``api.public_settings`` folds it into ``rules=``). Bad options raise ValueError.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..game.resolve import resolve_position
from .cubeful import DEFAULT_MAX_CUBE
from .openings import DEFAULT_CHUNK_SIZE as OPENINGS_CHUNK_SIZE
from .openings import DEFAULT_SCREEN, DEFAULT_SCREEN_TRIALS
from .openings import DEFAULT_TRIALS as OPENINGS_DEFAULT_TRIALS
from .plays import DEFAULT_STOP
from .plays import DEFAULT_TRIALS as DEFAULT_PLAY_TRIALS
from .rollout import DEFAULT_MOVE_FILTER

__all__ = ["DEFAULT_PLAYERS", "DEFAULT_PLAYERS_WHY", "DEFAULT_TRIALS",
           "PLAIN_ONLY", "players_option", "ply_option", "wants_plays", "rollout_settings",
           "plays_settings", "fill_defaults", "check_plays_options", "finish_plays_settings",
           "finish_rollout_settings", "openings_settings"]

#: The default players: the strongest we have (the net) at 0 ply, luck-adjusted as every
#: command and function plays the net in a cubeless game (the smallest SE per CPU-second
#: measured for rollouts, candidate plays, openings and replies: bench/vr_default.py).
DEFAULT_PLAYERS = ("neural", "neural")
DEFAULT_PLAYERS_WHY = ("the net at 0 ply, luck-adjusted (--vr, the default for the net in every "
                       "command: the smallest SE per CPU-second, bench/vr_default.py); --ply 1 "
                       "plays stronger")
DEFAULT_TRIALS = 1296  # a whole block of stratified first two rolls; luck-adjusted, a few seconds

#: Options of a plain rollout that a candidate-play rollout does not take.
PLAIN_ONLY = ("target_se", "truncate_plies", "filter_candidates", "filter_window",
              "game", "option")
#: Options that ask for the candidate plays of a roll.
_PLAYS_ONLY = ("dice", "candidates", "plays", "stop_when_decided", "no_stop", "plot")


def _flag(options: Mapping[str, Any], name: str) -> bool:
    return bool(options.get(name))


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def players_option(player: str | None, players: str | None) -> tuple[str, str] | None:
    """The pair of players of ``--player P`` or ``--players A,B`` (None: neither)."""
    if player is not None:
        return (player, player)
    if players is not None:
        parts = [s.strip() for s in str(players).split(",")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"--players takes two names separated by a comma, got {players!r}")
        return (parts[0], parts[1])
    return None


def ply_option(values: object) -> int | tuple[int, int] | None:
    """``--ply`` given once (both sides) or twice (the side on roll, then the opponent): a
    number or a list of one or two."""
    if values is None:
        return None
    if isinstance(values, int) and not isinstance(values, bool):
        return values
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= 2:
        raise ValueError("--ply is given once (both sides) or twice (side on roll, then opponent)")
    return values[0] if len(values) == 1 else (values[0], values[1])


def _move_filter(options: Mapping[str, Any]) -> tuple[int, float] | None:
    """(candidates, window) from --filter-candidates / --filter-window (None: the defaults)."""
    count, window = options.get("filter_candidates"), options.get("filter_window")
    if count is None and window is None:
        return None
    default_count, default_window = DEFAULT_MOVE_FILTER
    return (default_count if count is None else count, default_window if window is None else window)


def wants_plays(options: Mapping[str, Any]) -> bool:
    """Whether the options ask for the candidate plays of a roll: --dice, the candidate
    options, or a position with its dice rolled (not with --game or --no-candidates)."""
    asked = [_option(k) for k in _PLAYS_ONLY if options.get(k) not in (None, False)]
    if asked and _flag(options, "no_candidates"):
        raise ValueError(f"--no-candidates and {asked[0]}: roll out the position or its "
                         "candidate plays")
    if asked:
        return True
    position = options.get("position")
    if position is None or options.get("game") or _flag(options, "no_candidates"):
        return False
    try:
        return resolve_position(position)[0].context.dice is not None
    except (ValueError, TypeError):
        return False  # the rollout reports the bad position


def _common(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings plain and candidate-play rollouts share (None where not given)."""
    return {
        "position": options.get("position"), "trials": options.get("trials"),
        "players": players_option(options.get("player"), options.get("players")),
        "seed": options.get("seed"), "rules": options.get("rules"),
        "min_trials": options.get("min_trials"), "chunk_size": options.get("chunk_size"),
        "stratify": False if _flag(options, "no_stratify") else None,
        "bearoff": False if _flag(options, "no_bearoff") else None,
        "truncate": False if _flag(options, "no_truncate") else None,
        "cache_dir": options.get("cache_dir"),
        "cubeful": True if _flag(options, "cubeful") else None,
        "max_cube": options.get("max_cube"), "ply": ply_option(options.get("ply")),
        "vr": options.get("vr"), "weights": options.get("weights"),
        "reply_filter": options.get("reply_filter"), "evaluator": options.get("evaluator"),
    }


def plays_settings(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a candidate-play rollout (``tavli-rollout --dice``), None where not
    given; ``finish_plays_settings`` adds the defaults."""
    return {**_common(options), "dice": options.get("dice")}


def rollout_settings(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a plain rollout, None where not given; ``finish_rollout_settings``
    adds the defaults (after a resumed run's checkpoint has filled in its own)."""
    return {**_common(options), "target_se": options.get("target_se"),
            "truncate_plies": options.get("truncate_plies"), "move_filter": _move_filter(options),
            "game": options.get("game"), "game_rules": options.get("option")}


def fill_defaults(settings: dict[str, Any], defaults: Mapping[str, Any]) -> None:
    """Give the settings still unset (None) their default values."""
    for key, value in defaults.items():
        if settings.get(key) is None:
            settings[key] = value


def finish_rollout_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The plain rollout's settings with the command's defaults (``vr`` left to the library:
    on when a neural player plays a cubeless Portes game); ``settings`` is changed and
    returned."""
    fill_defaults(settings, {
        "position": "start", "trials": DEFAULT_TRIALS,
        "players": DEFAULT_PLAYERS,  # neural: for Plakoto / Fevga too, each game's net
        "rules": "backgammon", "stratify": True,
        "bearoff": True, "truncate": True, "cubeful": False, "max_cube": DEFAULT_MAX_CUBE,
    })
    if settings.get("chunk_size") is None:
        settings.pop("chunk_size", None)
    return settings


def check_plays_options(options: Mapping[str, Any]) -> None:
    """ValueError for options a candidate-play rollout does not take, or that clash."""
    plain = [_option(k) for k in PLAIN_ONLY if options.get(k) is not None]
    if plain:
        raise ValueError(f"{', '.join(plain)}: not for the candidate plays of a roll (--dice)")
    candidates = options.get("candidates")
    if candidates is not None and options.get("plays") is not None:
        raise ValueError("--candidates and --plays: name the plays or say how many, not both")
    if candidates is not None and candidates < 1:
        raise ValueError(f"--candidates must be at least 1, got {candidates}")


def finish_plays_settings(settings: dict[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``rollout_plays``' keywords: the settings, the candidates (--candidates, --plays), the
    stop rule (--stop-when-decided, --no-stop) and the defaults, without the unset ones."""
    done = {**settings, "candidates": options.get("candidates"), "plays": options.get("plays"),
            "stop_when_decided": None if _flag(options, "no_stop") else (
                options.get("stop_when_decided") if options.get("stop_when_decided") is not None
                else DEFAULT_STOP)}
    fill_defaults(done, {"position": "start", "trials": DEFAULT_PLAY_TRIALS})
    return {k: v for k, v in done.items() if v is not None or k == "stop_when_decided"}


def openings_settings(options: Mapping[str, Any]) -> dict[str, Any]:
    """``tavli-openings``' settings (a new run) from its options, with its defaults: the
    keywords of ``tavli_fast.openings`` in the commands' spelling (screening on when the run
    is long enough to screen anything)."""
    game = options.get("game")
    if game is not None and options.get("rules") is not None:
        raise ValueError("--rules is for Portes; --game plays the game's own rules (T3 opening rolls)")
    players = players_option(options.get("player"), options.get("players"))
    given = options.get("trials")
    trials = given if given is not None else OPENINGS_DEFAULT_TRIALS
    screen, screen_trials = options.get("screen"), options.get("screen_trials")
    if screen is None and not _flag(options, "no_screen") and (
            screen_trials is not None or max(OPENINGS_CHUNK_SIZE, trials // 7) < trials):
        screen = DEFAULT_SCREEN  # (a short run of all the trials would screen nothing)
    if screen is not None and screen_trials is None and given is None:
        screen_trials = DEFAULT_SCREEN_TRIALS
    vr = options.get("vr")    # None: the library's default, on when a neural player plays (Portes)
    settings = dict(
        trials=trials, players=players, seed=options.get("seed"),
        rules=options.get("rules") or "backgammon", rolls=options.get("rolls"), screen=screen,
        screen_trials=screen_trials, stratify=not _flag(options, "no_stratify"),
        bearoff=not _flag(options, "no_bearoff"), truncate=not _flag(options, "no_truncate"),
        cache_dir=options.get("cache_dir"), game=game, game_rules=options.get("option"), vr=vr,
        weights=options.get("weights"), reply_filter=options.get("reply_filter"),
        evaluator=options.get("evaluator"),
    )
    if options.get("chunk_size") is not None:
        settings["chunk_size"] = options["chunk_size"]
    return settings
