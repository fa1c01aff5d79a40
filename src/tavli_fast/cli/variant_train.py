"""tavli-train --game plakoto|fevga: TD(lambda) self-play training of a Plakoto or Fevga net.

    tavli-train --game plakoto --games 3e5 --seed 1 --checkpoint p.npz     # Ctrl-C, then:
    tavli-train --game plakoto --games 3e5 --resume p.npz --checkpoint p.npz
    tavli-train --game plakoto --resume p.npz --games 3e5 --export plakoto-v1.npz --net-version v1
    tavli-train --game plakoto --recipe            # how the shipped Plakoto net was made

``tavli-train`` hands every command line with ``--game`` to this module (``cli/train.py``
trains the backgammon net). Progress goes to stderr every --log-every games; the seed is
echoed. The exported file records the run and the commands that made it.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys

from .._version import __version__
from . import EXIT_INTERRUPTED, OneLineParser, parse_count, run_command, stop_requests

PROG = "tavli-train"
log = logging.getLogger(PROG)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Train a Plakoto or Fevga net by TD(lambda) self-play.")
    p.add_argument("--game", choices=("plakoto", "fevga"), required=True)
    p.add_argument("--games", type=parse_count, default=None,
                   help="total games (a resumed run counts its own); required but with --recipe")
    p.add_argument("--seed", type=int, default=None, help="seed of the weights and dice (new runs)")
    p.add_argument("--hidden", type=parse_count, default=96, help="hidden units (new runs)")
    p.add_argument("--alpha", type=float, default=0.05, help="initial learning rate (new runs)")
    p.add_argument("--decay-games", type=parse_count, default=200_000,
                   help="the rate is alpha / (1 + games / this) (new runs)")
    p.add_argument("--lambda", dest="lam", type=float, default=0.7, help="TD's lambda (new runs)")
    p.add_argument("--checkpoint", help="save the run here (every --checkpoint-every games)")
    p.add_argument("--checkpoint-every", type=parse_count, default=20_000)
    p.add_argument("--resume", help="continue the run saved in this checkpoint")
    p.add_argument("--log-every", type=parse_count, default=10_000)
    p.add_argument("--export", help="write the trained net as a weights file")
    p.add_argument("--net-version", dest="net_version", default=None, help="version name for --export")
    p.add_argument("--recipe", nargs="?", const="", metavar="WEIGHTS",
                   help="print how a net was made (default: the shipped net of --game)")
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.add_argument("-q", "--quiet", action="count", default=0)
    p.add_argument("--version", action="version", version=f"tavli_fast {__version__}")
    return p


def run(args: argparse.Namespace, command: str) -> int:
    """Run the parsed command; ``command`` (its command line) goes into the recipe."""
    from ..checks import check_seed
    from ..training.variant_train import (
        export_variant_net,
        load_variant_checkpoint,
        new_run,
        save_variant_checkpoint,
        train_variant,
    )

    if args.recipe is not None:
        return _recipe(args.game, args.recipe or None)
    if args.games is None:
        raise ValueError("--games is required (or --recipe)")
    if args.resume:
        state = load_variant_checkpoint(args.resume)
        if state.game != args.game:
            raise ValueError(f"{args.resume} is a {state.game} run, not {args.game}")
    else:
        seed = check_seed(args.seed)
        print(f"{PROG}: game {args.game}, seed {seed}", file=sys.stderr)
        state = new_run(args.game, seed, args.hidden, args.alpha, args.decay_games, args.lam)
    state.commands.append(command)
    marks = {"log": state.games_done, "save": state.games_done}

    def save() -> None:
        if args.checkpoint:
            save_variant_checkpoint(args.checkpoint, state)
        marks["save"] = state.games_done

    with stop_requests() as stopped:
        def on_chunk(s) -> None:
            if s.games_done - marks["log"] >= args.log_every:
                marks["log"] = s.games_done
                plies = s.plies / max(s.games_done, 1)
                print(f"{PROG}: {s.game} {s.games_done} games, {plies:.1f} plies a game, "
                      f"{s.elapsed_s:.0f} s", file=sys.stderr, flush=True)
            if s.games_done - marks["save"] >= args.checkpoint_every:
                save()
            if stopped():
                raise KeyboardInterrupt

        try:
            train_variant(state, args.games, on_chunk)
        except KeyboardInterrupt:
            save()
            print(f"{PROG}: stopped after {state.games_done} games"
                  + (f"; saved to {args.checkpoint}" if args.checkpoint else ""), file=sys.stderr)
            return EXIT_INTERRUPTED
    save()
    if args.export:
        export_variant_net(args.export, state, args.net_version or f"seed{state.seed}-{state.games_done}")
    print(f"{state.game}: {state.games_done} games, seed {state.seed}, {state.elapsed_s:.0f} s")
    return 0


def _recipe(game: str, weights: str | None) -> int:
    """Print the method, the commands that ran a net's training and the one that repeats it."""
    from ..variants.neural import SHIPPED, load_variant_net

    name = weights or SHIPPED[game]
    _, meta = load_variant_net(name, game)
    training = meta.get("training", {})
    print(f"# {meta.get('version')} ({name}): {training.get('method', 'no training recorded')}")
    print("# the commands that ran it:")
    print("\n".join(training.get("recipe", [])))
    if training.get("reproduce"):
        print(f"# one command that repeats it:\n{training['reproduce']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``tavli-train --game ...``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return run_command(PROG, build_parser(), lambda args: run(args, f"{PROG} {shlex.join(argv)}"),
                       argv)
