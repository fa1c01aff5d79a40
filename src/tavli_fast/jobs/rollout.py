"""The rollout job kind of the driver (``run/driver.py``): ``RolloutJob`` plans a request's
chunks, merges their results (``Tally``) and writes and reads checkpoints.

A rollout is three modules: ``rollout_request.py`` (what to roll out: ``make_request``,
``RolloutRequest``, the chunk plan), ``rollout_chunks.py`` (the unit of work:
``RolloutChunk`` in, ``run_chunk``, ``ChunkResult`` out, and how results merge) and this one.
None of them knows of processes or clusters: ``run/executors`` run the chunks. The names of
all three are importable from here, as before the split.

Plakoto and Fevga (``game="plakoto"|"fevga"``, RULES.md P1-P7, F1-F7) are rolled out by the
same job, its chunks playing the variants' games.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any, Iterable, Sequence


from ..run.checkpoint import completed_units, read_checkpoint as _read_checkpoint
from .cubeful import DEFAULT_MAX_CUBE
from ..run.control import Cancel
from ..run.driver import ProgressCallback, run_job
from .rollout_result import RolloutResult, build_result
from ..run.progress import RolloutProgress
from .rollout_chunks import ChunkResult, DEFAULT_CHUNK_SIZE, DEFAULT_MOVE_FILTER, FIGURES, RolloutChunk, Tally, Totals, chunk_seed, figures, figures_from_moments, merge, prepare_chunk, run_chunk
from .rollout_request import RolloutRequest, chunk_games, make_chunk, make_request, plan_chunks, resumed_evaluator, saved_identity, saved_reply_filter

__all__ = [
    "run_rollout",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MOVE_FILTER",
    "FIGURES",
    "RolloutChunk",
    "ChunkResult",
    "RolloutRequest",
    "Totals",
    "Tally",
    "make_request",
    "plan_chunks",
    "make_chunk",
    "chunk_games",
    "run_chunk",
    "merge",
    "figures",
    "figures_from_moments",
    "chunk_seed",
    "RolloutJob",
    "CHECKPOINT_FORMAT",
    "read_checkpoint",
    "request_from_checkpoint",
]

CHECKPOINT_FORMAT = "tavli_fast rollout checkpoint"
CHECKPOINT_VERSION = 1


#: The settings a checkpoint's request must hold to be resumed.
_REQUEST_KEYS = ("position", "trials", "players", "seed", "rules", "stratify", "chunk_size")


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Load and check a rollout checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "rollout",
                            {"request": dict, "chunks": dict}, _REQUEST_KEYS)


def request_from_checkpoint(doc: dict[str, Any], **overrides: Any) -> RolloutRequest:
    """The request saved in a checkpoint document, with the given settings replaced (None: kept);
    its evaluator is the saved one (``evaluator`` overridden by another: ValueError)."""
    req = doc["request"]
    overrides["evaluator"] = resumed_evaluator(req, overrides.get("evaluator"))
    args = dict(
        position=req["position"],
        trials=req["trials"],
        players=tuple(req["players"]),
        seed=req["seed"],
        rules=req["rules"],
        stratify=req["stratify"],
        bearoff=req.get("bearoff", True),
        truncate=req.get("truncate", True),
        cache_dir=req.get("cache_dir"),
        chunk_size=req["chunk_size"],
        target_se=req.get("target_se"),
        min_trials=req.get("min_trials"),
        cubeful=req.get("cubeful", False),
        max_cube=req.get("max_cube", DEFAULT_MAX_CUBE),
        vr=req.get("vr", False),  # checkpoints from before variance reduction have none
        truncate_plies=req.get("truncate_plies", 0),
        move_filter=req.get("move_filter"),
        reply_filter=saved_reply_filter(req),
        game=req.get("game"),
        game_rules=req.get("game_rules"),
        weights=req.get("weights"),
    )
    args.update({k: v for k, v in overrides.items() if v is not None})
    return make_request(**args)


def _completed_from_checkpoint(
    doc: dict[str, Any], request: RolloutRequest, path: str
) -> list[ChunkResult]:
    """Chunk results of the checkpoint that belong to ``request``'s plan (by index and size)."""
    if doc["request"].get("board") != request.identity()["board"]:
        raise ValueError(f"checkpoint {path} is for another position")
    mine = request.identity()
    doc = {**doc, "request": saved_identity(doc["request"])}  # an older one: the exact search
    # Keys that only some requests carry must match when either side has them.
    mine.update({k: None for k in _OPTIONAL_KEYS if k in doc["request"] and k not in mine})
    return completed_units(doc, mine, partial(chunk_games, request), ChunkResult.from_list,
                           lambda r: r.games, path)


#: Identity keys that only some requests carry (so that older checkpoints still match).
_OPTIONAL_KEYS = ("cubeful", "max_cube", "vr", "truncate_plies", "move_filter", "reply_filter",
                  "game", "game_rules",
                  "weights_sha256", "evaluator")


class RolloutJob:
    """A rollout as a job of the driver: one round of chunks, merged by ``Tally``.

    ``completed``: chunk results already done (from a checkpoint); their chunks are not planned.
    """

    worker = staticmethod(run_chunk)

    def __init__(self, request: RolloutRequest, completed: Iterable[ChunkResult] = ()):
        self.request = request
        self.tally = Tally(request.n_chunks, request.target_se, request.min_trials)
        for r in sorted(completed, key=lambda r: r.index):
            self.tally.add(r)
        self.resumed_games = sum(r.games for r in self.tally.results.values())
        self._planned = False

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: RolloutRequest, path: str) -> "RolloutJob":
        """The job of ``request`` with the matching chunks of checkpoint ``doc`` done already;
        ValueError if the checkpoint is for another rollout."""
        return cls(request, _completed_from_checkpoint(doc, request, path))

    def plan(self) -> Sequence[RolloutChunk]:
        if self._planned:
            return ()
        self._planned = True
        return plan_chunks(self.request, done=self.tally.results)

    def add(self, result: ChunkResult) -> None:
        self.tally.add(result)

    def add_partial(self, result: ChunkResult) -> None:
        """A chunk cut short by a stop (see ``run/driver.py``): reported, never saved."""
        self.tally.add_partial(result)

    @property
    def done(self) -> bool:
        return self.tally.done

    prepare = staticmethod(prepare_chunk)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        current = self.tally.current()
        rate = (current.games - self.resumed_games) / session_s if session_s > 0 else 0.0
        left = 0 if self.tally.stop_at is not None else self.request.trials - current.games
        return RolloutProgress(
            trials_done=current.games,
            trials_total=self.request.trials,
            elapsed_s=elapsed_s,
            games_per_second=rate,
            equity=current.equity if current.games else float("nan"),
            equity_se=current.equity_se(),
            eta_s=left / rate if rate > 0 else float("inf"),
        )

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        results = self.tally.results
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "request": self.request.to_dict(),
            "elapsed_s": elapsed_s,
            "chunks": {str(i): results[i].to_list() for i in sorted(results)},
        }


def run_rollout(
    job: RolloutJob,
    executor: Any,
    *,
    progress: ProgressCallback | None = None,
    checkpoint: str | None = None,
    previous_elapsed: float = 0.0,
    cancel: Cancel | None = None,
) -> RolloutResult:
    """Run the chunks of ``job`` not done yet on ``executor`` (``run/executors``); merge;
    return the result."""
    outcome = run_job(job, executor, progress=progress, checkpoint=checkpoint,
                      previous_elapsed=previous_elapsed, cancel=cancel)
    return build_result(
        job.request,
        job.tally.final(),
        jobs=executor.workers,
        elapsed_s=outcome.elapsed_s,
        interrupted=outcome.interrupted,
        target_reached=job.tally.stop_at is not None,
        worker_restarts=outcome.restarts,
        resumed_games=job.resumed_games,
        checkpoint=checkpoint,
        cut_games=sum(r.games for r in job.tally.partial.values()),
    )
