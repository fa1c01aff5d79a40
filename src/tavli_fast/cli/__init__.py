"""Command-line tools, one small module per command (``tavli-rollout`` is ``cli.rollout``).

Shared conventions: argparse, human output on stdout, logs and progress bars on stderr, exit
status 0 on success and 2 on bad usage or bad input with a one-line message, never a traceback.
Every entry point is wrapped in ``entry_point``: output piped into a reader that stops early
(``tavli-bearoff ... | head``) ends the command quietly, as a SIGPIPE ends a Unix tool.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator, Mapping, NoReturn, Sequence

from .. import _core
from ..api import public_settings
from ..checks import MAX_COUNT, MAX_COUNT_TEXT, check_count
from ..jobs.plays import parse_dice as parse_roll
from ..run.atomic import output_target
from ..jobs.options import fill_defaults, players_option
from ..play.neural import EVALUATORS
from ..play.reports import NET_OUTPUTS  # the names the commands print and take

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_BROKEN_PIPE",
    "entry_point",
    "UsageError",
    "OneLineParser",
    "parse_count",
    "players_from_args",
    "compiled_core_status",
    "setup_logging",
    "run_command",
    "stop_requests",
    "add_executor_options",
    "add_reply_filter_option",
    "add_evaluator_option",
    "executor_settings",
    "public_settings",
    "fill_defaults",
]

#: Exit status after Ctrl-C (128 + SIGINT), once the partial result has been printed.
EXIT_INTERRUPTED = 130
#: Exit status when the reader of stdout has gone (128 + SIGPIPE, as a shell reports a tool
#: that SIGPIPE ended); nothing is printed.
EXIT_BROKEN_PIPE = 141



def entry_point(main: Callable[..., int]) -> Callable[..., int]:
    """Wrap a command's ``main``: a closed stdout (the reader of a pipe stopped) ends it with
    ``EXIT_BROKEN_PIPE`` and no message, instead of a BrokenPipeError traceback."""

    @functools.wraps(main)
    def wrapped(argv: Sequence[str] | None = None) -> int:
        try:
            return main(argv)
        except BrokenPipeError:
            # Python flushes stdout again at exit; point it at /dev/null so that flush is silent.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return EXIT_BROKEN_PIPE

    return wrapped


class UsageError(Exception):
    """Bad input found after parsing: reported as one line on stderr, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``prog: error: message``), exit status 2.

    ``--position`` also takes a pasted XGID without its ``XGID=`` prefix, which starts with
    ``-`` when the top bar is empty (``--position -b----E-C---...``): argparse alone would
    take it for an option, so such a value (it contains ':') is joined to its option first.
    """

    #: Options whose value may begin with '-' when it is an id with ':' in it.
    DASH_VALUE_OPTIONS: tuple[str, ...] = ("--position",)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        argv = list(sys.argv[1:] if args is None else args)
        parsed = super().parse_known_args(_join_dash_values(argv, self.DASH_VALUE_OPTIONS),
                                          namespace)
        try:  # every command: the environment's settings are input too
            check_simd_setting(os.environ)
        except UsageError as e:
            self.error(str(e))
        return parsed

    def error(self, message: str) -> NoReturn:
        for option in self.DASH_VALUE_OPTIONS:
            if message == f"argument {option}: expected one argument":
                message += f" (write a value that starts with '-' as {option}=VALUE)"
        self.exit(2, f"{self.prog}: error: {message}\n")


def _join_dash_values(argv: list[str], options: Sequence[str]) -> list[str]:
    """``[opt, "-b--...:0:0:1:..."]`` -> ``["opt=-b--...:0:0:1:..."]`` for the given options."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":  # everything after it is positional: leave it alone
            out.extend(argv[i:])
            break
        following = argv[i + 1] if i + 1 < len(argv) else ""
        if token in options and following.startswith("-") and ":" in following:
            out.append(f"{token}={following}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def parse_count(text: str) -> int:
    """A whole number from 1 to ``inputs.MAX_COUNT`` written as ``1000000``, ``1_000_000`` or
    ``1e6`` (the same rule as the Python API's)."""
    s = text.strip()
    try:
        number: int | float = int(s)
    except ValueError:
        try:
            number = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    try:
        return check_count(number, "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_COUNT_TEXT}, got {text!r}") from None


def players_from_args(args: argparse.Namespace) -> tuple[str, str] | None:
    """The pair of players given by ``--player P`` or ``--players A,B`` (None: neither)."""
    return players_option(args.player, args.players)


def add_executor_options(p: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--start-method`` (the local pool) and ``--scheduler`` (a Dask cluster)."""
    p.add_argument("--jobs", "-j", type=positive_int, default=None, metavar="N",
                   help="worker processes (default: the CPUs available)")
    p.add_argument("--start-method", choices=("fork", "forkserver", "spawn"), default=None,
                   help="how worker processes are started (default forkserver)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on a Dask cluster instead of local processes, e.g. "
                   "tcp://10.0.0.5:8786 (needs pip install 'tavli_fast[dask]'; same numbers)")


def add_game_option(p: argparse.ArgumentParser, scope: str = "an option of the game") -> None:
    """``--option NAME`` (repeatable): an option of Plakoto or Fevga (rules.py)."""
    p.add_argument("--option", action="append", default=None, metavar="NAME",
                   help=f"{scope}, repeatable (Plakoto: pinned_home_counts, draw_scores_point; "
                   "Fevga: runner_to_quarter, start_quarter_each_move, prime_never_built; "
                   "RULES.md P4, P6, F4-F6)")


def add_reply_filter_option(p: argparse.ArgumentParser) -> None:
    """``--reply-filter KEEP``: the 1-ply look-ahead's pre-filter of replies (the command's
    ``reply_filter``; checked there, so a bad value is one line and exit status 2)."""
    p.add_argument("--reply-filter", type=int, default=None, metavar="KEEP",
                   help="1-ply look-ahead: value with the net only the best KEEP replies of each "
                   "roll by the pruning net (default 8: about 1.6 x faster than 0, as strong "
                   "within its SE; 0: every reply, the exact search)")


def add_evaluator_option(p: argparse.ArgumentParser) -> None:
    """``--evaluator {float32,int16}``: how the backgammon / Portes net values positions (the
    command's ``evaluator``; none given: ``neural.default_evaluator()``; argparse checks the
    choice, so a bad value is one line and exit status 2; ``--game plakoto|fevga`` refuses
    int16 there, those nets have float32 only)."""
    p.add_argument("--evaluator", choices=EVALUATORS, default=None,
                   help="how the net values positions: float32 (the reference) or int16 "
                   "(about 1.3-1.5 x faster on AVX2 / AVX-512 machines, where it is the "
                   "default; much slower without AVX2, where float32 is; probabilities within "
                   "about 0.005 of float32's; kept in checkpoints; backgammon / Portes only)")


def positive_int(text: str) -> int:
    """An argparse type: a whole number from 1 to ``inputs.MAX_COUNT`` (written plainly: 7,
    not 7.0 or 1e1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT_TEXT}, got {value}")
    return value


def executor_settings(args: argparse.Namespace) -> dict:
    """The keyword arguments that choose the executor, checked: UsageError for --jobs or
    --start-method with --scheduler. (Without Dask installed, --scheduler fails later with an
    ImportError that says how to install it: one line, exit status 2.)"""
    if args.scheduler is None:
        return {"jobs": args.jobs, "start_method": args.start_method}
    given = [o for o, v in (("--jobs", args.jobs), ("--start-method", args.start_method)) if v is not None]
    if given:
        raise UsageError(f"{' and '.join(given)} cannot be used with --scheduler (the cluster's "
                         "workers run the work)")
    return {"scheduler": args.scheduler}


def check_plot_available() -> None:
    """UsageError saying how to install matplotlib when --plot cannot draw."""
    try:
        import matplotlib  # noqa: F401 - an optional dependency (the plot extra)
    except ImportError:
        raise UsageError(
            "--plot needs matplotlib: pip install 'tavli_fast[plot]' (or pip install matplotlib)"
        ) from None


def compiled_core_status() -> str:
    """Whether the compiled core (tavli_fast._core) is used, and from where (the package does
    not import without it)."""
    return f"compiled core: yes ({_core.__file__})"


#: The values of TAVLI_FAST_SIMD the compiled core knows: ``baseline`` forces the SSE2
#: kernels; unset (or empty), the AVX2 ones run where the processor has them.
SIMD_SETTINGS = ("", "baseline")


def check_simd_setting(environ: Mapping[str, str]) -> None:
    """UsageError for a TAVLI_FAST_SIMD the core does not know (it would be ignored)."""
    value = environ.get("TAVLI_FAST_SIMD")
    if value is not None and value not in SIMD_SETTINGS:
        raise UsageError(f"TAVLI_FAST_SIMD={value!r} is not a setting: set it to baseline (the "
                         "SSE2 kernels) or leave it unset (AVX2 where the processor has it)")


def check_writable(path: str, option: str) -> None:
    """UsageError unless `path` (given to `option`) may be written: a regular file or a new
    name in an existing, writable directory (``atomic.output_target``), never a device, a
    pipe or a directory."""
    try:
        output_target(path)
    except ValueError as e:
        raise UsageError(f"{option}: {e}") from None


def check_training_files(args: argparse.Namespace, resumes_own_checkpoint: bool = False) -> None:
    """Before a training run (tavli-train): --export and --checkpoint can be written (a
    regular file or a new name), and an existing --checkpoint is this run's: the file of
    --resume, or (`resumes_own_checkpoint`: --fit) the run it continues, unless --force."""
    for path, option in ((getattr(args, "export", None), "--export"),
                         (getattr(args, "checkpoint", None), "--checkpoint")):
        if path:
            check_writable(path, option)
    path, resume = getattr(args, "checkpoint", None), getattr(args, "resume", None)
    if not path or not os.path.exists(path) or resumes_own_checkpoint:
        return
    if getattr(args, "force", False):
        return
    if resume is not None and os.path.exists(resume) and os.path.samefile(path, resume):
        return
    raise UsageError(f"--checkpoint: {path} exists and is not the checkpoint this run resumes "
                     f"(--resume {path} continues it); give another file, or --force to "
                     "overwrite it")


def add_force_option(p: argparse.ArgumentParser) -> None:
    """``--force``: let --checkpoint overwrite a file that is not a checkpoint of this run."""
    p.add_argument("--force", action="store_true",
                   help="let --checkpoint overwrite an existing file that is not a checkpoint "
                   "of this same run")


def parse_dice(text: str) -> tuple[int, int]:
    """The roll of a ``--dice`` option: ``31``, ``3-1`` or ``3,1`` (``jobs.plays.parse_dice``:
    ``-31`` or ``3--1`` is no roll)."""
    try:
        return parse_roll(text)
    except ValueError:
        raise ValueError(f"--dice takes two dice such as 31 or 3-1, not {text!r}") from None


def print_plays(title: str, plays: list[dict]) -> None:
    """The ranked plays of a roll as tavli-hint prints them: each play's 0-ply equity, and
    its 1-ply one where it was looked at (backgammon and the variants alike), and a 2-ply
    column when some play was looked at 2 ply."""
    depths = ("0-ply", "1-ply") + (("2-ply",) if any(p.get("equity_2ply") is not None
                                                     for p in plays) else ())
    print(title)
    print(f"  {'#':>3}  {'play':<24} " + " ".join(f"{d:>8}" for d in depths))
    for i, play in enumerate(plays, 1):
        cells = [play[f"equity_{d.replace('-', '')}"] for d in depths]
        text = " ".join(f"{v:+8.4f}" if v is not None else f"{'':>8}" for v in cells)
        print(f"  {i:>3}  {play['play']:<24} {text}")


def print_error(prog: str, message: object) -> int:
    """Report bad input as one line on stderr; return the exit status 2."""
    text = " ".join(str(message).split()) or type(message).__name__
    print(f"{prog}: error: {text}", file=sys.stderr)
    return 2


def setup_logging(prog: str, verbose: int = 0, quiet: int = 0) -> None:
    """Log records of tavli_fast (workers' included) to stderr, one line each."""
    level = logging.WARNING - 10 * verbose + 10 * quiet
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{prog}: %(levelname)s: %(message)s [%(name)s, pid %(process)d]"))
    logger = logging.getLogger("tavli_fast")
    logger.handlers[:] = [handler]
    logger.setLevel(max(logging.DEBUG, min(level, logging.CRITICAL)))
    logger.propagate = False


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a batch scheduler), raised where Ctrl-C would be."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


@contextlib.contextmanager
def stop_requests() -> Iterator[Callable[[], bool]]:
    """Within the block, Ctrl-C and SIGTERM only ask to stop: the yielded function tells
    whether one came, for a loop to stop at a point where its state is whole (and saved).
    A second Ctrl-C interrupts at once, as usual.  Outside the main thread, a no-op."""
    asked = [False]
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return

    def ask(signum: int, frame: Any) -> None:
        if asked[0] and signum == signal.SIGINT:
            raise KeyboardInterrupt()
        asked[0] = True

    previous = {sig: signal.signal(sig, ask) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: asked[0]
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_command(prog: str, parser: argparse.ArgumentParser,
                run: Callable[[argparse.Namespace], int], argv: Sequence[str] | None) -> int:
    """Parse, set up logging, run; map every failure to its exit status and one line.

    0 done (or what `run` returns); 2 bad usage or bad input (an optional dependency missing,
    a cluster out of reach included); 1 the run failed;
    130 interrupted (Ctrl-C, or SIGTERM: it takes the same path, so a run stopped by
    ``kill`` also saves its checkpoint, reports its partial result and shuts its worker
    processes down instead of leaving them behind).  Never a traceback.
    """
    main_thread = threading.current_thread() is threading.main_thread()
    previous = _catch_stop_signals() if main_thread else {}
    try:
        args = parser.parse_args(argv)
        setup_logging(prog, getattr(args, "verbose", 0), getattr(args, "quiet", 0))
        return run(args)
    except KeyboardInterrupt as e:
        print(f"{prog}: {'terminated' if isinstance(e, Terminated) else 'interrupted'}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        raise  # not bad input: entry_point ends the command quietly
    except (UsageError, ValueError, TypeError, OSError, ImportError) as e:
        return print_error(prog, e)
    except RuntimeError as e:
        print(f"{prog}: failed: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _catch_stop_signals() -> dict[int, Any]:
    """Make SIGTERM and SIGINT raise KeyboardInterrupt here; return the handlers they had.

    SIGINT too, because a command started in the background of a script (``cmd &``) inherits
    it ignored, and Python then leaves it ignored: Ctrl-C or ``kill -INT`` would not stop a
    run that only SIGTERM could end (issue 41)."""
    return {signal.SIGTERM: signal.signal(signal.SIGTERM, _terminate),
            signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler)}


def settings_from_checkpoint(args: argparse.Namespace, settings: dict[str, Any],
                             read_request: Callable[[str], dict[str, Any]],
                             tuples: Sequence[str] = ("players",),
                             predating: dict[str, Any] | None = None) -> None:
    """For a command that can be resumed: check that its checkpoint file can be written,
    and with --resume fill the settings not given (None) from the checkpoint's saved request.
    `tuples`: settings that JSON saved as lists; `predating`: values of settings that older
    checkpoints lack (they were saved before the setting existed)."""
    if args.resume is None:
        if args.checkpoint is not None:
            check_writable(args.checkpoint, "--checkpoint")
        return
    saved = {**(predating or {}), **read_request(args.resume)}
    check_writable(args.checkpoint or args.resume, "--checkpoint")
    for key in settings:
        if settings[key] is None and key in saved:
            settings[key] = saved[key]
    for key in tuples:
        if settings.get(key) is not None:
            settings[key] = tuple(settings[key])


def print_result(prog: str, args: argparse.Namespace, result: Any) -> int:
    """Print a long run's result (JSON with --json) and return the exit status: 130 when it
    was interrupted, saying how to continue it when a checkpoint holds it."""
    print(result.to_json() if args.json else str(result))
    sys.stdout.flush()
    if not result.interrupted:
        return 0
    path = args.checkpoint or args.resume
    if path:
        print(f"{prog}: interrupted; continue with --resume {path}", file=sys.stderr)
    return EXIT_INTERRUPTED
