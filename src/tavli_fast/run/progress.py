"""Progress reports of a running rollout, and a tqdm progress bar that shows them on stderr."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["RolloutProgress", "PlayProgress", "TqdmProgress", "with_games_in_flight"]


@dataclass(frozen=True)
class RolloutProgress:
    """Where a rollout stands, passed to the ``progress`` callback after each chunk and at
    least once a second while chunks play (``trials_done`` then counts the games of the
    chunks in flight so far; the equity is that of the chunks merged)."""

    trials_done: int
    trials_total: int
    elapsed_s: float
    games_per_second: float  # in this session (a resumed run counts only its new games)
    equity: float  # over the trials done so far, for the side on roll
    equity_se: float
    eta_s: float  # seconds left at the current rate (inf when unknown)
    #: The candidate plays of a roll (``rollout_plays``): one ``PlayProgress`` a play, in the
    #: request's order; empty for every other kind of run.
    plays: tuple["PlayProgress", ...] = ()


@dataclass(frozen=True)
class PlayProgress:
    """Where one candidate play stands: its trials so far and its running equity (the figure
    the plays are ranked by) with its standard error (NaN before its first trial)."""

    play: str
    trials_done: int
    equity: float
    equity_se: float
    dropped: bool  # decided against by the stop rule: no more trials


def with_games_in_flight(p: RolloutProgress, games: int, session_s: float) -> RolloutProgress:
    """``p`` with ``games`` more done: those the units in flight have played so far (their
    figures are not merged yet, so the equity is that of the units merged)."""
    if games <= 0:
        return p
    done = min(p.trials_done + games, p.trials_total)
    rate = p.games_per_second + games / session_s if session_s > 0 else p.games_per_second
    return replace(p, trials_done=done, games_per_second=rate,
                   eta_s=(p.trials_total - done) / rate if rate > 0 else math.inf)


class TqdmProgress:
    """A progress callback drawing a tqdm bar (trials, games/s, equity +- SE, time left).

    Use as a context manager. The bar is off (the callback does nothing) when ``enabled`` is
    false or the stream is not a terminal.
    """

    def __init__(self, total: int, *, enabled: bool = True, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        is_tty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = bool(enabled and is_tty)
        self.total = total
        self._bar: Any = None
        self._done = 0

    def __enter__(self) -> "TqdmProgress":
        if self.enabled:
            self._bar = tqdm(
                total=self.total, unit="games", unit_scale=True, file=self.stream,
                dynamic_ncols=True, leave=False,
            )
        return self

    def __call__(self, p: RolloutProgress) -> None:
        if self._bar is None:
            return
        if p.trials_total != self._bar.total:  # known once the run has planned (candidates)
            self._bar.total = p.trials_total
        # The postfix first, so that the refresh done by update() shows it.
        if not math.isnan(p.equity):
            self._bar.set_postfix_str(f"equity {p.equity:+.4f} ± {p.equity_se:.4f}", refresh=False)
        self._bar.update(max(0, p.trials_done - self._done))
        self._done = max(self._done, p.trials_done)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
