"""The public API of the long runs: ``rollout``, ``resume_rollout``, ``rollout_plays``, ``openings``,
``replies``, ``play_matches``, ``make_targets`` and ``simulate``, re-exported by ``tavli_fast``.

Two knobs are shared by all of them:

* **where it runs**: ``executor=`` an ``Executor`` (local worker processes and their start
  method, or a Dask cluster by scheduler address or client), or just ``jobs=N`` for N local
  processes (``executor=N`` and ``executor="tcp://host:8786"`` are short forms). The numbers
  depend on the seed, the request and the chunk size, never on the executor.
* **which game**: ``rules=`` ``"backgammon"``, ``"portes"``, ``"plakoto"``, ``"fevga"`` (and
  ``"tavli"`` for matches: T1-T3), or a ``Rules`` / ``PlakotoRules`` / ``FevgaRules`` with
  its options.

The older spellings (``start_method=``, ``scheduler=``, ``client=``, ``game=``, ``tavli=``)
still work and warn (DeprecationWarning). Each function validates its arguments into a
request (``jobs/``), wraps it in a job and hands that to the driver (``run/driver.py``).
"""

from __future__ import annotations

import functools
import inspect
import os
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from .jobs.cubeful import DEFAULT_MAX_CUBE
from .run.checkpoint import claim_checkpoint
from .run.control import Cancel, check_cancel
from .run.driver import ProgressCallback, run_job
from .run.executors import check_jobs, default_jobs, make_executor
from .jobs.match import (
    DEFAULT_MATCH_CHUNK,
    MatchJob,
    MatchResult,
    make_match_request,
    match_result,
    read_match_checkpoint,
)
from .jobs.match_record import DEFAULT_NAMES, save_paths, write_saved
from .matchfile.model import MatchRecord
from .jobs.openings_report import openings as _openings, replies as _replies
from .jobs.plays_report import rollout_plays as _rollout_plays
from .jobs.rollout_request import resumed_evaluator, saved_reply_filter
from .jobs.rollout_result import RolloutResult
from .jobs.targets import make_targets as _make_targets
from .play.simulate import simulate as _simulate
from .rules import FevgaRules, PlakotoRules
from .jobs.rollout import (
    CHECKPOINT_FORMAT,
    DEFAULT_CHUNK_SIZE,
    ChunkResult,
    RolloutJob,
    RolloutRequest,
    make_request,
    read_checkpoint,
    request_from_checkpoint,
    run_rollout as _run,
)

__all__ = ["Executor", "rollout", "resume_rollout", "rollout_plays", "openings", "replies", "play_matches",
           "play_match_record",
           "make_targets", "simulate", "run_request", "default_jobs", "read_checkpoint",
           "CHECKPOINT_FORMAT"]


def run_request(
    request: RolloutRequest,
    *,
    jobs: int,
    progress: ProgressCallback | None = None,
    checkpoint: str | None = None,
    completed: Sequence[ChunkResult] = (),
    previous_elapsed: float = 0.0,
    start_method: str | None = None,
    cancel: Cancel | None = None,
) -> RolloutResult:
    """Run the chunks of ``request`` not already in ``completed`` on the local pool; merge.
    ``checkpoint``: a new file or one of this same run (``claim_checkpoint``).
    ``cancel``: as for ``rollout``."""
    if checkpoint is not None:
        path = os.fspath(checkpoint)
        checkpoint = claim_checkpoint(
            path, read_checkpoint, lambda saved: RolloutJob.from_checkpoint(saved, request, path))
    with make_executor(jobs, start_method) as executor:
        return _run(RolloutJob(request, completed), executor, progress=progress,
                    checkpoint=checkpoint, previous_elapsed=previous_elapsed, cancel=cancel)


def _rollout(
    position: object = "start",
    trials: object = 10_000,
    players: object = None,
    seed: int | None = None,
    jobs: int | None = None,
    rules: object = "backgammon",
    stratify: bool = True,
    target_se: float | None = None,
    min_trials: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: ProgressCallback | None = None,
    start_method: str | None = None,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
    cubeful: bool = False,
    max_cube: int = DEFAULT_MAX_CUBE,
    scheduler: str | None = None,
    client: Any = None,
    ply: int | tuple[int, int] | None = None,
    vr: bool | None = None,
    truncate_plies: int | None = None,
    move_filter: tuple[int, float] | None = None,
    game: str | None = None,
    game_rules: object = None,
    weights: str | os.PathLike | None = None,
    force: bool = False,
    cancel: Cancel | None = None,
    reply_filter: int | tuple[int, float] | None = None,
    evaluator: str | None = None,
) -> RolloutResult:
    """Roll out ``position`` for ``trials`` games and return a ``RolloutResult``.

    position: ``"start"``, a gnubg Position ID, an XGID or a ``Position``. Dice rolled in an XGID
    are the first roll of every trial. players: two names (or one for both; ``"A,B"`` works);
    the first plays the side on roll. seed: master seed (a random one is drawn and reported when
    None). jobs: worker processes (default: the CPUs available; 1 runs in this process).
    stratify: quasi-random first two rolls. target_se: stop once the equity's standard error is
    below it (checked after whole chunks, in chunk order, after ``min_trials``). checkpoint: a
    JSON file kept up to date with the completed chunks, with a checksum (a regular file or a
    new name; an existing file only if it is a checkpoint of this same run, unless force);
    resume: continue from such a file (the request must match it; the seed is taken from it
    when not given). progress: called with a
    ``RolloutProgress`` after each chunk. bearoff: pubeval and greedy play pure bear-offs
    perfectly by the bear-off databases. truncate: a game stops once both sides are inside the
    two-sided bear-off database and counts its exact win probability (GNU Backgammon's
    truncation at the bear-off database: same expectation, smaller standard errors). The
    databases are built in ``cache_dir`` (default: the user cache) on first use. cubeful: also
    follow the doubling cube from the position's cube and score and report no double,
    double/take and double/pass with the proper action (``result.cubeful``; ``cubeful.py``);
    max_cube caps the cube (R23: 64). The numbers depend on the seed, the request and
    ``chunk_size``, never on ``jobs``. scheduler: run the chunks on a Dask cluster, given its
    scheduler's address (``"tcp://10.0.0.5:8786"``), or client: a connected
    ``distributed.Client``; either needs the ``[dask]`` extra, and the numbers are those of a
    local run. cancel: anything with ``is_set() -> bool`` (a ``threading.Event``): once it is
    set, from any thread, the run stops within a second and returns the games played so far,
    flagged ``interrupted``, exactly as on Ctrl-C (chunks cut short count in the result but not
    in the checkpoint, so a resume gives the uninterrupted numbers). progress is also called
    at least once a second while chunks play, with the games played so far. Every long run
    works from any thread. game: ``"plakoto"`` or ``"fevga"`` rolls out that game (RULES.md P1-P7,
    F1-F7) from ``"start"``, its text id or a position of it, with the players ``random`` and
    ``heuristic`` (the default there; pubeval is the default for Portes); the result adds the
    mother-rule wins and losses and the draws (``result.variant``), and a 2-point win counts
    as a gammon. No truncation, bear-off databases or cube in those games. game_rules: the
    game's options, a ``PlakotoRules`` / ``FevgaRules`` or option names (``"runner_to_quarter"``).

    Expert settings (issue 10):

    - ply: the neural players' search depth, 0, 1 or 2, or a pair (the side on roll first);
      None plays the players as named (``neural`` 0-ply, ``neural-1ply``, ``neural-2ply``:
      about half a second of CPU a game). Plakoto and Fevga: 0 or 1.
    - move_filter: (candidates, window) of the 1-ply players (and the first of the 2-ply
      player's two), like gnubg's move filter: only the best ``candidates`` plays by 0-ply
      equity (1 to 16), and of those only the ones
      within ``window`` of the best, are looked at 1 ply deeper. Default
      ``rollout.DEFAULT_MOVE_FILTER`` = (5, 0.16).
    - reply_filter: keep, or (keep, margin): the 1-ply players' look-ahead values with the
      net only the best ``keep`` replies of each of the opponent's rolls by the pruning net
      (a small net distilled from the big one, ranking the plays from the position before
      the roll; the first-order estimate for a net without one), and those within
      ``margin`` of the keep-th; None: the default, keep 8; 0: every reply, the exact
      1-ply search. Keep 8 makes neural-1ply rollouts about 1.6 times as fast as the exact
      search, measured -0.0004 ± 0.0008 points a game against it over 60,000 paired games
      (docs/performance.md). Settable for cubeless rollouts only.
    - vr: variance reduction by luck adjustment. Every roll's luck (the net's probabilities
      after the best play for the rolled dice, less their mean over the 36 rolls, by the 0-ply
      net: one ply below a 1-ply rollout, whose look-ahead has already made them) is taken
      off each game's figures. The expectation is unchanged and the SE usually several times
      smaller. The luck-adjusted figures are a separate set, ``result.vr``, with their own
      SEs; the stop rule and progress use them. None (default): on when a neural player
      plays and the rollout is cubeless. In a cubeful rollout only the cubeless figures are
      luck-adjusted. It costs little at 1 ply and about 15 times the game at 0 ply (all 21
      rolls are looked at each turn, each roll's best 8 plays by the pruning net's estimate
      valued by the net, or by a first-order estimate in a race or for a net without a
      pruning net: the same function for the rolled dice and their mean, so the adjustment
      stays unbiased).
    - truncate_plies: stop each game after this many plies and count the net's 0-ply cubeless
      probabilities there. Fast, but BIASED by the net's errors (the estimate is no longer a
      rollout's); not with ``cubeful``.
    - weights: a weights file (``tavli-train --export``) for the net of the neural players,
      variance reduction and truncation, instead of the shipped one. Its checksum is kept in
      the checkpoint (a resumed run must find the same weights there) and the result names
      the net (``result.net``). On a Dask cluster the file must be at the same path on the
      workers.
    - evaluator: how the net (of the neural players, variance reduction and truncation)
      values positions: ``"float32"`` (the reference) or ``"int16"`` (``neural.EVALUATORS``;
      None: ``neural.default_evaluator()``, int16 on AVX2 / AVX-512 machines, float32 on
      others): integer arithmetic, about 1.4 times as fast in 0-ply rollouts on AVX2 /
      AVX-512 machines (much slower on processors without AVX2), its probabilities within
      about 0.005 of float32's (about 1e-3 typically; docs/performance.md); either, named,
      gives the same numbers for a seed on every machine. Kept in the checkpoint (a resume without
      it keeps the saved one; one that asks for another is refused), named with the net and
      noted in the result. Not for Plakoto / Fevga (their nets have no int16 evaluator).

    Raises ValueError for bad arguments (trials <= 0 or not whole, jobs < 1, unknown player or
    rules, jobs together with a cluster, a bad ply, move filter or truncate_plies, weights that
    are not a usable weights file or that no player uses, an unknown evaluator or the int16 one
    for a run without a net), InvalidPositionError for a bad position;
    executors.dask.DaskMissingError (an ImportError) without Dask, ClusterError (an OSError) for
    a scheduler out of reach or a worker that differs.
    """
    check_jobs(jobs)
    check_cancel(cancel)
    doc = read_checkpoint(os.fspath(resume)) if resume is not None else None
    if doc is not None:  # the saved evaluator; another is refused
        evaluator = resumed_evaluator(doc["request"], evaluator, resume)
    request = make_request(
        position, trials, players, _seed_or_saved(seed, doc), rules, stratify, chunk_size,
        target_se, min_trials, bearoff, truncate, cache_dir, cubeful, max_cube, game, game_rules,
        ply=ply, vr=vr, truncate_plies=truncate_plies, move_filter=move_filter,
        weights=weights, reply_filter=reply_filter, evaluator=evaluator,
    )
    job, checkpoint, previous_elapsed = _start_or_resume(
        RolloutJob, request, doc, resume, checkpoint, read_checkpoint, force)
    # The arguments are checked before a cluster is contacted.
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        return _run(job, executor, progress=progress, checkpoint=checkpoint,
                    previous_elapsed=previous_elapsed, cancel=cancel)


def _seed_or_saved(seed: int | None, doc: dict[str, Any] | None) -> int | None:
    """The seed given, or when resuming without one, the checkpoint's."""
    return doc["request"]["seed"] if seed is None and doc is not None else seed


def _start_or_resume(job_kind: Any, request: Any, doc: dict[str, Any] | None,
                     resume: str | os.PathLike | None, checkpoint: str | os.PathLike | None,
                     read: Callable[[str], dict[str, Any]], force: bool
                     ) -> tuple[Any, str | None, float]:
    """(job, checkpoint path, seconds already spent): a new job of ``job_kind`` for ``request``,
    or one that continues checkpoint ``doc`` (read from ``resume``, which it keeps saving to
    unless another checkpoint is given). The checkpoint file is claimed first
    (``claim_checkpoint``: a new file, the resumed one, one of this run, or ``force``)."""
    if doc is None:
        job, elapsed = job_kind(request), 0.0
    else:
        job = job_kind.from_checkpoint(doc, request, os.fspath(resume))  # type: ignore[arg-type]
        elapsed = float(doc.get("elapsed_s") or 0.0)
        if checkpoint is None:
            checkpoint = resume
    if checkpoint is None:
        return job, None, elapsed
    path = claim_checkpoint(checkpoint, read, lambda saved: job_kind.from_checkpoint(
        saved, request, os.fspath(checkpoint)), resume=resume, force=force)
    return job, path, elapsed


def _resume_rollout(
    path: str | os.PathLike,
    *,
    trials: object = None,
    jobs: int | None = None,
    target_se: float | None = None,
    progress: ProgressCallback | None = None,
    checkpoint: str | os.PathLike | None = None,
    start_method: str | None = None,
    scheduler: str | None = None,
    client: Any = None,
    force: bool = False,
    cancel: Cancel | None = None,
) -> RolloutResult:
    """Continue the rollout saved in checkpoint ``path`` (to its trials, or to ``trials``), on
    the local pool or on a Dask cluster (``scheduler`` / ``client``, as for ``rollout``): a run
    may be resumed on the other executor with the same numbers. ``checkpoint``: another file
    to keep it in (new, or one of this run, unless ``force``). cancel: as for ``rollout``."""
    check_jobs(jobs)
    check_cancel(cancel)
    doc = read_checkpoint(os.fspath(path))
    request = request_from_checkpoint(doc, trials=trials, target_se=target_se)
    job, saved_to, previous_elapsed = _start_or_resume(RolloutJob, request, doc, path, checkpoint,
                                                       read_checkpoint, force)
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        return _run(job, executor, progress=progress, checkpoint=saved_to,
                    previous_elapsed=previous_elapsed, cancel=cancel)


def _play_matches(
    length: object = 7,
    matches: object = 1000,
    players: object = ("neural", "neural"),
    *,
    score: object = (0, 0),
    post_crawford: bool = False,
    rules: object = None,
    cube: bool = True,
    max_cube: object = DEFAULT_MAX_CUBE,
    seed: int | None = None,
    jobs: int | None = None,
    chunk_size: object = DEFAULT_MATCH_CHUNK,
    checkpoint: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    start_method: str | None = None,
    bearoff: bool = True,
    cache_dir: str | os.PathLike | None = None,
    scheduler: str | None = None,
    client: Any = None,
    tavli: bool = False,
    game_rules: object = None,
    weights: str | os.PathLike | None = None,
    cancel: Cancel | None = None,
    record: bool = False,
    save: str | os.PathLike | None = None,
    names: object = DEFAULT_NAMES,
    reply_filter: int | tuple[int, float] | None = None,
    evaluator: str | None = None,
) -> MatchResult:
    """Play ``matches`` whole matches to ``length`` points and return a ``MatchResult``.

    players: A and B (two names, ``"A,B"``, or one name for both). score: points A and B
    have already won; a score with a player 1-away starts with the Crawford game unless
    ``post_crawford``. rules: ``"backgammon"`` (the default; cube, backgammons, R5 opening roll) or
    ``"portes"`` (no cube, no backgammons, the winner starts the next game). cube=False
    plays without the cube; max_cube caps it (R23: 64). Seeds, jobs, chunks, checkpoints
    and progress work as in ``rollout``, and so do ``scheduler`` / ``client`` (a Dask
    cluster). tavli: play tavli matches (T1-T3): the games rotate Portes, Plakoto, Fevga
    without the cube, from 0-0; ``random`` plays the variants randomly, every other player by
    the variants' heuristic (``match.variant_player``); the result adds each game type's
    share of the points (``MatchResult.game_types``); game_rules: the Plakoto and Fevga
    options of a tavli match, by name (``"draw_scores_point"``: a Plakoto draw is a game that
    nobody scores, not replayed; ``"runner_to_quarter"``, ...). weights: a weights file for
    the neural players' net (checker play and cube), as for ``rollout``. cancel: as for
    ``rollout`` (the matches finished so far are reported; a match in play is dropped).
    record: keep the record of every match played (``MatchResult.records()``, ``.saved``
    their .mat text): the core logs each play and cube action of the very matches the result
    counts (at most ``MAX_RECORDED_MATCHES``); save: also write them as ``.mat`` files
    (``match_record.save_paths``: ``save`` itself for one match, ``FILE-01.mat`` ... for
    more), checked writable before the run, each written in one step after it (an
    interrupted run saves the matches it reports); ``result.saved_paths`` lists them.
    names: the players' names in the records (A's, B's; default Player 1, Player 2).
    reply_filter: keep, or (keep, margin): the pre-filter of the replies the ``neural-1ply``
    players' look-ahead values with the net, as for ``rollout``; None: the default, keep 8
    (on resume: the checkpoint's); 0: every reply, the exact 1-ply search. In a tavli match it
    applies to the Portes games (the Plakoto and Fevga players have no such look-ahead).
    Noted in the result when not the default, and kept in the checkpoint whenever a player is
    ``neural-1ply`` (a checkpoint from before the pre-filter became the default has none, and
    resumes with the exact search it played; a resume that asks for another filter is
    refused).
    evaluator: how the neural players' net values positions, ``"float32"`` (None: the
    default; on resume: the checkpoint's) or ``"int16"`` (faster, probabilities within about
    0.005), as for ``rollout``; kept in the checkpoint (a resume that asks for another is
    refused) and noted in the result. In a tavli match it applies to the Portes games (the
    Plakoto and Fevga nets are valued by float32).
    Raises ValueError for bad arguments (length < 1, a score that has already won,
    post_crawford with no player 1-away, a score or rules other than portes with tavli, weights
    or the int16 evaluator and no neural player, a bad reply_filter or evaluator, ...).
    """
    check_jobs(jobs)
    check_cancel(cancel)
    record = bool(record) or save is not None
    if record and (checkpoint is not None or resume is not None):
        raise ValueError("matches are recorded (record, save) in one run: a checkpoint keeps "
                         "no moves, so neither checkpoint nor resume can be used with them")
    doc = read_match_checkpoint(os.fspath(resume)) if resume is not None else None
    if doc is not None and reply_filter is None:
        reply_filter = saved_reply_filter(doc["request"])  # an older one's: the exact search
    if doc is not None:  # the saved evaluator; another is refused
        evaluator = resumed_evaluator(doc["request"], evaluator, resume)
    request = make_match_request(length, matches, players, score, post_crawford, rules, cube,
                                 max_cube, _seed_or_saved(seed, doc), chunk_size, bearoff,
                                 cache_dir, tavli, game_rules, weights, record, names,
                                 reply_filter=reply_filter, evaluator=evaluator)
    if save is not None:
        save_paths(save, request.matches)   # ValueError before the run if one cannot be written
    job, path, previous_elapsed = _start_or_resume(MatchJob, request, doc, resume, checkpoint,
                                                   read_match_checkpoint, force)
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        outcome = run_job(job, executor, progress=progress, checkpoint=path,
                          previous_elapsed=previous_elapsed, cancel=cancel)
        result = match_result(job, elapsed_s=outcome.elapsed_s, jobs=executor.workers,
                              interrupted=outcome.interrupted, worker_restarts=outcome.restarts,
                              checkpoint=path)
    if save is not None:
        result = replace(result, saved_paths=tuple(write_saved(result.saved, save, request.matches)))
    return result


def play_match_record(length: int = 7, *, seed: int, names: object = DEFAULT_NAMES,
                      players: object = ("neural", "neural"), source: str = "<played>",
                      **options: Any) -> MatchRecord:
    """One match played as ``play_matches(length, 1, players, seed=seed, record=True,
    names=names, **options)`` plays it, as a ``MatchRecord`` (the left player A). ``source``
    names it in messages. ``options``: those of ``play_matches`` (``rules``, ``weights``,
    ``reply_filter``, ``evaluator="int16"`` for the int16 evaluator, ...)."""
    result = play_matches(length, 1, players, seed=seed, record=True, names=names, jobs=1, **options)
    return replace(result.records()[0], source=source)


# ---------------------------------------------------------------- the shared knobs

@dataclass(frozen=True)
class Executor:
    """Where a job's units run: ``jobs`` local worker processes (None: one per CPU; 1: in
    this process) started by ``start_method`` (``"fork"``, ``"forkserver"``, ``"spawn"``),
    or a Dask cluster given by its ``scheduler`` address or a connected ``client`` (the
    ``[dask]`` extra). The numbers never depend on it."""

    jobs: int | None = None
    start_method: str | None = None
    scheduler: str | None = None
    client: Any = None


_OLD_EXECUTOR_KEYS = ("start_method", "scheduler", "client")
_VARIANTS = {"plakoto": PlakotoRules, "fevga": FevgaRules}


def public_settings(settings: dict[str, Any], executor: dict[str, Any]) -> dict[str, Any]:
    """A command's settings (``jobs/options.py``) in the public API's spelling: the game in
    ``rules=`` (the command's --game and --tavli), where it runs in ``executor=`` (an
    ``Executor`` of ``executor``'s keywords: jobs, start_method, scheduler)."""
    out = dict(settings)
    game = out.pop("game", None)
    if game:
        out["rules"] = game
    if out.pop("tavli", False):
        out["rules"] = "tavli"
    out["executor"] = Executor(**executor)
    return out


def _deprecated(function: str, old: str, new: str) -> None:
    warnings.warn(f"{function}({old}=...) is an older spelling: pass {new}", DeprecationWarning,
                  stacklevel=4)


def _place(function: str, kwargs: dict[str, Any], runs_on_executor: bool) -> None:
    """Fold ``executor=`` into the jobs / start_method / scheduler / client keywords the
    implementations take (warning for the older spellings of the last three)."""
    executor = kwargs.pop("executor", None)
    old = [k for k in _OLD_EXECUTOR_KEYS if kwargs.get(k) is not None]
    for key in old:
        _deprecated(function, key, f"executor=Executor({key}=...)")
    if executor is None:
        return
    if not runs_on_executor:
        raise TypeError(f"{function}() runs in this process: it takes no executor")
    if isinstance(executor, bool) or not isinstance(executor, (Executor, int, str)):
        raise TypeError(f"executor must be an Executor, a number of processes or a Dask "
                        f"scheduler address, not {type(executor).__name__}")
    if isinstance(executor, int):
        executor = Executor(jobs=executor)
    elif isinstance(executor, str):
        executor = Executor(scheduler=executor)
    if old or (kwargs.get("jobs") is not None and executor.jobs is not None):
        raise ValueError(f"{function}(): say where it runs once, with executor= (or jobs=)")
    for key in ("jobs", *_OLD_EXECUTOR_KEYS):
        value = getattr(executor, key)
        if value is not None:
            kwargs[key] = value


def _game(function: str, kwargs: dict[str, Any], matches: bool) -> None:
    """Read the game from ``rules=`` (a name or a rules object) into the keywords the
    implementations take (``game`` and ``game_rules``, or ``tavli`` for matches)."""
    if kwargs.get("game") not in (None, "portes"):
        _deprecated(function, "game", f"rules={kwargs['game']!r}")
    if matches and kwargs.get("tavli"):
        _deprecated(function, "tavli", "rules='tavli'")
    rules = kwargs.get("rules")
    name = rules if isinstance(rules, str) else None
    known = ("backgammon", "portes", "plakoto", "fevga", *(("tavli",) if matches else ()))
    if name is not None and name not in known:
        raise ValueError(f"unknown rules {name!r}: choose one of {', '.join(known)}")
    if isinstance(rules, (PlakotoRules, FevgaRules)):
        name = "plakoto" if isinstance(rules, PlakotoRules) else "fevga"
    if name in _VARIANTS:
        if kwargs.get("game") not in (None, "portes", name):
            raise ValueError(f"{function}(): rules={name!r} and game={kwargs['game']!r} disagree")
        if matches:
            raise ValueError(f"matches are played with the backgammon or Portes rules, or "
                             f"rules='tavli' (the games rotate), not {name!r} alone")
        kwargs["game"] = name
        if not isinstance(rules, str):
            if kwargs.get("game_rules") is not None:
                raise ValueError(f"{function}(): give the {name} options once (rules=)")
            kwargs["game_rules"] = rules
        if function == "simulate":
            kwargs["rules"] = kwargs.pop("game_rules", None)
        else:
            del kwargs["rules"]
    elif matches and name == "tavli":
        kwargs["tavli"] = True
        del kwargs["rules"]


def _public(implementation: Callable[..., Any], name: str, *, runs_on_executor: bool = True,
            matches: bool = False) -> Callable[..., Any]:
    """The public function: `implementation` with the two shared knobs read first."""

    @functools.wraps(implementation)
    def public(*args: Any, **kwargs: Any) -> Any:
        _place(name, kwargs, runs_on_executor)
        _game(name, kwargs, matches)
        return implementation(*args, **kwargs)

    signature = inspect.signature(implementation)
    if runs_on_executor:
        signature = signature.replace(parameters=[*signature.parameters.values(), inspect.Parameter(
            "executor", inspect.Parameter.KEYWORD_ONLY, default=None,
            annotation="Executor | int | str | None")])
    public.__signature__ = signature  # type: ignore[attr-defined]
    public.__name__ = public.__qualname__ = name
    return public


rollout = _public(_rollout, "rollout")
resume_rollout = _public(_resume_rollout, "resume_rollout")
play_matches = _public(_play_matches, "play_matches", matches=True)
rollout_plays = _public(_rollout_plays, "rollout_plays")
openings = _public(_openings, "openings")
replies = _public(_replies, "replies")
make_targets = _public(_make_targets, "make_targets")
simulate = _public(_simulate, "simulate", runs_on_executor=False)
