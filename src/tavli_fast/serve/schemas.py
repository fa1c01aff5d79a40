"""The request bodies of ``tavli-serve``'s JSON API. Their keys are the long options of the
commands that give the same documents (``tavli-eval``, ``tavli-hint``, ``tavli-rollout``,
``tavli-openings``), spelt as their ``dest`` (``--target-se`` is ``target_se``); unknown keys
are refused. Options that name files or machines of the server (``--weights``,
``--cache-dir``, ``--checkpoint``, ``--resume``, ``--plot``, ``--scheduler``, ``--jobs``) are
not taken from a request: the server's own command line chooses where jobs run.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

__all__ = ["EvalBody", "HintBody", "RolloutBody", "OpeningsBody"]

Rules = Literal["backgammon", "portes", "plakoto", "fevga"]
#: ``--evaluator``: how the backgammon / Portes net values positions (``neural.EVALUATORS``,
#: checked by the API it is passed to: another value is a 400 with its one-line message).
_EVALUATOR = ("as --evaluator: float32 (the reference) or int16 (faster, probabilities "
              "within about 0.005; backgammon / Portes only); none: int16 where the "
              "server's processor has AVX2, else float32")
Dice = str | list[int]
Count = int | float


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvalBody(_Body):
    """``POST /v1/eval``: ``tavli-eval --json``."""

    position: str = Field(description="'start', a Position ID, PositionID:MatchID, an XGID, or "
                          "with rules plakoto/fevga (or game) that game's id or readable form",
                          examples=["4HPwATDgc/ABMA"])
    rules: Rules | None = Field(None, description="backgammon (default), portes, plakoto, fevga")
    game: Literal["plakoto", "fevga"] | None = Field(None, description="as tavli-eval --game")
    ply: StrictInt | None = Field(None, description="as tavli-eval --ply: rolls the net looks "
                                  "ahead, 0 (default), 1 or 2 (backgammon; Plakoto and Fevga: 0)")
    evaluator: str | None = Field(None, description=_EVALUATOR)


class HintBody(EvalBody):
    """``POST /v1/hint``: ``tavli-hint --json``."""

    dice: Dice | None = Field(None, description="the roll, e.g. '31' (default: the XGID's; "
                              "none: the cube analysis)", examples=["31"])
    top: int | None = Field(None, ge=0, description="plays that get the 1-ply look (default 5)")
    ply: StrictInt | None = Field(None, description="as tavli-hint --ply: 0, 1 or 2 (the plays: "
                                  "how deep the best are looked at, default 1; the cube "
                                  "analysis: the probabilities at that ply, default 0)")


class RolloutBody(_Body):
    """``POST /v1/rollouts``: ``tavli-rollout --json`` (with ``dice``, or an XGID with its dice,
    the candidate plays of the roll, as ``tavli-rollout --dice``)."""

    position: str | None = Field(None, examples=["start"])
    dice: Dice | None = None
    trials: Count | None = Field(None, description="games (a play, for the candidate plays)")
    players: str | None = Field(None, description="'A,B': the side on roll, then the opponent")
    player: str | None = None
    seed: int | None = Field(None, ge=0, lt=2**64)
    cubeful: bool = False
    ply: int | list[int] | None = None
    vr: bool | None = None
    rules: Rules | None = None
    game: Literal["plakoto", "fevga"] | None = None
    option: list[str] | None = None
    target_se: float | None = Field(None, gt=0)
    min_trials: Count | None = None
    chunk_size: Count | None = None
    no_stratify: bool = False
    no_bearoff: bool = False
    no_truncate: bool = False
    max_cube: int | None = None
    truncate_plies: Count | None = None
    filter_candidates: int | None = None
    filter_window: float | None = None
    reply_filter: int | None = None
    evaluator: str | None = Field(None, description=_EVALUATOR)
    candidates: int | None = None
    plays: str | None = None
    stop_when_decided: float | None = Field(None, gt=0)
    no_stop: bool = False
    no_candidates: bool = False


class OpeningsBody(_Body):
    """``POST /v1/openings``: ``tavli-openings --json`` (every play of every opening roll rolled
    out on common dice and ranked; screened by a short run first when long enough)."""

    trials: Count | None = Field(None, description="trials a play (default 90,720)")
    players: str | None = None
    player: str | None = None
    seed: int | None = Field(None, ge=0, lt=2**64)
    rolls: str | None = Field(None, examples=["31,42"], description="the opening rolls (all)")
    rules: Rules | None = None
    game: Literal["plakoto", "fevga"] | None = None
    option: list[str] | None = None
    screen: float | None = Field(None, ge=0)
    no_screen: bool = False
    screen_trials: Count | None = None
    chunk_size: Count | None = None
    no_stratify: bool = False
    no_bearoff: bool = False
    no_truncate: bool = False
    vr: bool | None = None
    reply_filter: int | None = None
    evaluator: str | None = Field(None, description=_EVALUATOR)
