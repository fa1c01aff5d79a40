"""GNU Backgammon's 0-ply cube analysis of a position before the roll: a test-only oracle.

Needs the ``gnubg`` package (the ``[test]`` extra); tavli_fast itself never imports it.

    from gnubg_cube import gnubg_cube_analysis
    a = gnubg_cube_analysis("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:7:10")
    a.probabilities        # (win, win gammon, win bg, lose gammon, lose bg), side on roll
    a.no_double, a.double_take, a.double_pass, a.mwc, a.action

How it works. gnubg's Python ``hint()`` refuses cube decisions ("not yet implemented"), so the
harness runs gnubg's own ``hint`` command and reads what it prints: the C library writes to
file descriptor 1, which is redirected to a temporary file around the call. The settings are
made once per process: one thread (gnubg's ``hint``/``eval`` hang with worker threads inside
Python), six decimals, and for cube decisions a 0-ply, cubeful, noiseless, unpruned
evaluation. The probabilities come from ``gnubg.evaluate`` at 0 ply (full float precision);
the harness checks that they agree with the line ``hint`` printed (to its 6 decimals), so the
cube analysis is known to rest on the probabilities returned.

The context: an XGID carries it all; a Position ID or a ``tavli_fast.Position`` takes it from
``context`` (a ``GameContext``) or its own. Jacoby and beavers are gnubg session settings as
well as XGID flags: both are set to the context's values before and after the position is
loaded, so they never disagree. gnubg has no maximum cube below 4096, so ``max_cube`` is not
passed on. gnubg cannot analyse cube decisions for given probabilities (its Python API has no
such call), so every analysis starts from a position.

When the side on roll may not double (Crawford game, opponent owns the cube, the cube is
dead in a match ...), gnubg's hint prints "You cannot double." and no equities; the harness
then reads the cubeful equity (= no double) from gnubg's ``eval`` and leaves DT and DP None.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from tavli_fast.game.position import GameContext, Position

__all__ = ["GnubgCubeAnalysis", "gnubg_cube_analysis", "gnubg_cube_analyses", "CANNOT_DOUBLE"]

CANNOT_DOUBLE = "You cannot double"

_SETTINGS = (
    "set threads 1",
    "set output digits 6",
    "set evaluation cubedecision evaluation plies 0",
    "set evaluation cubedecision evaluation cubeful on",
    "set evaluation cubedecision evaluation prune off",
    "set evaluation cubedecision evaluation noise 0",
    "set evaluation cubedecision evaluation deterministic on",
    "set evaluation chequerplay evaluation plies 0",
    "set evaluation chequerplay evaluation cubeful on",
    "set evaluation chequerplay evaluation prune off",
    "set evaluation chequerplay evaluation noise 0",
)

_NUMBER = r"([+-]?\d+\.\d+)"
_PROBABILITIES = re.compile(
    rf"^\s*{_NUMBER} {_NUMBER} {_NUMBER} - {_NUMBER} {_NUMBER} {_NUMBER}\s*$", re.M
)
_CUBELESS_EQUITY = re.compile(rf"cubeless equity\s+{_NUMBER}")
_CUBELESS_MWC = re.compile(rf"cubeless MWC\s+{_NUMBER}%")
_OPTION = re.compile(
    rf"^\d\. (No (?:re)?double|(?:Re)?[Dd]ouble, (?:pass|take|beaver))\s+{_NUMBER}(%?)", re.M
)
_ACTION = re.compile(r"^Proper cube action: (.+?)(?: \((\d+\.\d+)%\))?\s*$", re.M)
_EVAL_CUBEFUL = re.compile(
    r"^static:" + rf"\s+{_NUMBER}" * 5 + rf"\s+{_NUMBER}(%?)\s+{_NUMBER}(%?)\s*$", re.M
)  # groups: 5 probabilities, cubeless equity or MWC, its %, cubeful equity or MWC, its %

_configured = False


@dataclass(frozen=True)
class GnubgCubeAnalysis:
    """gnubg's 0-ply analysis of one position before the roll, for the side on roll.

    ``probabilities``: (win, win gammon, win backgammon, lose gammon, lose backgammon),
    gammons including backgammons (gnubg's convention and ours).
    ``cubeless_equity``: what hint prints as cubeless equity: money equity, or in a match the
    normalised equity from the gammon prices. ``cubeless_mwc``: the MWC in a match, else None.
    ``no_double``/``double_take``/``double_pass``: cubeful equities per unit of the current
    cube as hint prints them (in a match: MWCs mapped to that scale); DT and DP are None when
    the side cannot double. ``mwc``: in a match a dict with the same three keys (None values
    where hint prints none), else None. ``action``: the "Proper cube action" sentence, or
    ``CANNOT_DOUBLE``. ``confidence``: the percentage hint prints after the action, as a
    fraction (None when it prints none).
    """

    gnubg_id: str
    context: GameContext
    probabilities: tuple[float, float, float, float, float]
    cubeless_equity: float
    cubeless_mwc: float | None
    no_double: float
    double_take: float | None
    double_pass: float | None
    mwc: dict[str, float | None] | None
    action: str
    confidence: float | None
    hint_text: str

    @property
    def can_double(self) -> bool:
        return self.action != CANNOT_DOUBLE

    def margin(self) -> float:
        """The smallest gap between two of ND, DT, DP (inf when it cannot double)."""
        if not self.can_double:
            return float("inf")
        nd, dt, dp = self.no_double, self.double_take, self.double_pass
        return min(abs(nd - dt), abs(nd - dp), abs(dt - dp))  # type: ignore[operator]


def _gnubg():
    import gnubg

    return gnubg


def gnubg_output(command: str) -> str:
    """Run a gnubg command and return what its C code printed on stdout and stderr.

    gnubg prints results on stdout and refusals ("You cannot double.") on stderr.
    """
    gnubg = _gnubg()
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    libc.fflush(None)
    saved = (os.dup(1), os.dup(2))
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            gnubg.command(command)
            libc.fflush(None)
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        sink.seek(0)
        return sink.read().decode("utf-8", "replace")


def _configure() -> None:
    global _configured
    if not _configured:
        for command in _SETTINGS:
            gnubg_output(command)
        _configured = True


def _as_position(position: str | Position, context: GameContext | None) -> Position:
    if isinstance(position, Position):
        return position if context is None else position.with_context(context)
    text = position.strip()
    if text.upper().startswith("XGID=") or ":" in text:
        if context is not None:
            raise ValueError("an XGID carries its own context: do not pass context too")
        return Position.from_xgid(text)
    return Position.from_position_id(text, context)


def _money_options(context: GameContext) -> None:
    gnubg_output(f"set jacoby {'on' if context.jacoby else 'off'}")
    gnubg_output(f"set beavers {3 if context.beaver else 0}")


def gnubg_cube_analysis(
    position: str | Position, context: GameContext | None = None
) -> GnubgCubeAnalysis:
    """gnubg's 0-ply cube analysis of ``position`` (XGID, Position ID or Position), pre-roll."""
    gnubg = _gnubg()
    _configure()
    pos = _as_position(position, context)
    ctx = pos.context
    if ctx.dice is not None:
        raise ValueError("the cube is decided before the roll: the position has dice rolled")
    _money_options(ctx)
    gnubg.set_gnubg_id(pos.xgid())
    _money_options(ctx)
    gnubg_id = gnubg.gnubg_id()
    if gnubg_id.split(":")[0] != pos.position_id():
        raise AssertionError(f"gnubg read {gnubg_id} for {pos.xgid()}")
    info = gnubg.cube_info()
    me = info["move"]
    expected_owner = {"centre": -1, "me": me, "opponent": 1 - me}[ctx.cube_owner]
    got = (info["cube"], info["cubeowner"], info["matchto"], info["crawford"])
    want = (ctx.cube_value, expected_owner, ctx.match_length, int(ctx.crawford))
    score = (info["score"][me], info["score"][1 - me])
    if got != want or score != ctx.score:
        raise AssertionError(f"gnubg's cube info {info} does not match {ctx}")

    evaluation = gnubg.evaluate(
        gnubg.board(), info, gnubg.eval_context(1, 0, 1, 0, 0.0)
    )
    probabilities = tuple(float(v) for v in evaluation[:5])
    match = not ctx.is_money

    gnubg_output("set output mwc off")
    hint = gnubg_output("hint")
    if CANNOT_DOUBLE in hint:
        return _cannot_double(gnubg_id, ctx, probabilities, match, hint)

    if "0-ply cubeless" not in hint:
        raise AssertionError(f"gnubg's hint is not a 0-ply analysis:\n{hint}")
    printed = _PROBABILITIES.search(hint)
    if printed is None:
        raise AssertionError(f"no probabilities in gnubg's hint:\n{hint}")
    win, wg, wbg, _lose, lg, lbg = (float(v) for v in printed.groups())
    for ours, theirs in zip(probabilities, (win, wg, wbg, lg, lbg)):
        if abs(ours - theirs) > 6e-7:
            raise AssertionError(f"hint used other probabilities {printed.group(0)!r}")
    cubeless = _CUBELESS_EQUITY.search(hint)
    equities = _options(hint, percent=False)
    action = _ACTION.search(hint)
    if cubeless is None or action is None or len(equities) != 3:
        raise AssertionError(f"cannot read gnubg's hint:\n{hint}")
    mwc = None
    cubeless_mwc = None
    text = hint
    if match:
        gnubg_output("set output mwc on")
        hint_mwc = gnubg_output("hint")
        text += hint_mwc
        mwcs = _options(hint_mwc, percent=True)
        found = _CUBELESS_MWC.search(hint_mwc)
        if len(mwcs) != 3 or found is None:
            raise AssertionError(f"cannot read gnubg's MWC hint:\n{hint_mwc}")
        mwc = mwcs
        cubeless_mwc = float(found.group(1)) / 100
    return GnubgCubeAnalysis(
        gnubg_id=gnubg_id,
        context=ctx,
        probabilities=probabilities,  # type: ignore[arg-type]
        cubeless_equity=float(cubeless.group(1)),
        cubeless_mwc=cubeless_mwc,
        no_double=equities["no_double"],
        double_take=equities["double_take"],
        double_pass=equities["double_pass"],
        mwc=mwc,
        action=action.group(1),
        confidence=None if action.group(2) is None else float(action.group(2)) / 100,
        hint_text=text,
    )


def gnubg_cube_analyses(positions: list[Position], processes: int = 4) -> list[GnubgCubeAnalysis]:
    """``gnubg_cube_analysis`` of each position (with its own context), in order, by
    ``processes`` fresh processes: gnubg's ``hint`` spends most of its ~10 ms waiting, not
    computing, so a few processes at once finish sooner even on 2 cores."""
    chunks = [positions[k::processes] for k in range(processes)]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        done = pool.map(_analyse_all, chunks)
    out: list[GnubgCubeAnalysis] = [None] * len(positions)  # type: ignore[list-item]
    for k, analyses in enumerate(done):
        out[k::processes] = analyses
    return out


def _analyse_all(positions: list[Position]) -> list[GnubgCubeAnalysis]:
    return [gnubg_cube_analysis(p) for p in positions]


def _options(hint: str, *, percent: bool) -> dict[str, float]:
    """The three numbered lines of hint's cube analysis, keyed no_double/double_take/double_pass."""
    values: dict[str, float] = {}
    for name, number, sign in _OPTION.findall(hint):
        if bool(sign) != percent:
            raise AssertionError(f"unexpected units in {name!r}: {hint}")
        key = (
            "no_double" if name.lower().startswith("no")
            else "double_pass" if name.endswith("pass")
            else "double_take"  # "take" or "beaver": the cube is turned and kept
        )
        values[key] = float(number) / (100 if percent else 1)
    return values


def _cannot_double(
    gnubg_id: str,
    ctx: GameContext,
    probabilities: tuple[float, ...],
    match: bool,
    hint: str,
) -> GnubgCubeAnalysis:
    """No cube action: ND is gnubg's 0-ply cubeful equity from ``eval``."""
    gnubg_output("set output mwc off")
    text = gnubg_output("eval")
    found = _EVAL_CUBEFUL.search(text)
    if found is None:
        raise AssertionError(f"cannot read gnubg's eval:\n{text}")
    printed = [float(v) for v in found.groups()[:5]]
    for ours, theirs in zip(probabilities, printed):
        if abs(ours - theirs) > 6e-7:
            raise AssertionError(f"eval used other probabilities {found.group(0)!r}")
    no_double = float(found.group(8))
    mwc = None
    cubeless_mwc = None
    if match:
        gnubg_output("set output mwc on")
        text_mwc = gnubg_output("eval")
        found_mwc = _EVAL_CUBEFUL.search(text_mwc)
        if found_mwc is None or found_mwc.group(9) != "%":
            raise AssertionError(f"cannot read gnubg's MWC eval:\n{text_mwc}")
        cubeless_mwc = float(found_mwc.group(6)) / 100
        mwc = {"no_double": float(found_mwc.group(8)) / 100, "double_take": None,
               "double_pass": None}
        text += text_mwc
    return GnubgCubeAnalysis(
        gnubg_id=gnubg_id,
        context=ctx,
        probabilities=probabilities,  # type: ignore[arg-type]
        cubeless_equity=float(found.group(6)),
        cubeless_mwc=cubeless_mwc,
        no_double=no_double,
        double_take=None,
        double_pass=None,
        mwc=mwc,
        action=CANNOT_DOUBLE,
        confidence=None,
        hint_text=hint + text,
    )
