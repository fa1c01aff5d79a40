"""tavli-train --game plakoto|fevga: TD(lambda) self-play training of a Plakoto or Fevga net.

    tavli-train --game plakoto --games 3e5 --seed 1 --checkpoint p.npz     # Ctrl-C, then:
    tavli-train --game plakoto --games 3e5 --resume p.npz --checkpoint p.npz
    tavli-train --game plakoto --resume p.npz --games 3e5 --export plakoto-v1.npz --net-version v1
    tavli-train --game plakoto --refit 20000 --weights plakoto-v1.npz --seed 1 --export p2.npz
    tavli-train --game plakoto --recipe            # how the shipped Plakoto net was made

``tavli-train`` hands every command line with ``--game`` to this module (``cli/train.py``
trains the backgammon net). ``--refit GAMES`` refits a net's readouts to the outcomes of
GAMES of its own self-play games (``training/variant_refit.py``), every weight with
``--refit-hidden``. Progress goes to stderr every --log-every games; the seed is echoed. The
exported file records the run and the commands that made it.
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys

from .._version import __version__
from ..checks import check_seed
from ..training.recipes import format_chain, training_chain
from ..training.variant_refit import (export_refitted, readout_calibration, refit_all,
                                      refit_readouts, self_play)
from ..training.variant_train import (
    export_variant_net,
    load_variant_checkpoint,
    new_run,
    save_variant_checkpoint,
    train_variant,
)
from ..variants.neural import SHIPPED, load_variant_net
from . import (EXIT_INTERRUPTED, OneLineParser, add_force_option, check_training_files, parse_count,
               run_command, stop_requests)

PROG = "tavli-train"
log = logging.getLogger(PROG)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Train a Plakoto or Fevga net by TD(lambda) self-play.")
    p.add_argument("--game", choices=("plakoto", "fevga"), required=True,
                   help="the game whose net is trained (without --game, tavli-train trains the "
                   "backgammon net)")
    p.add_argument("--games", type=parse_count, default=None,
                   help="total games (a resumed run counts its own); required but with --recipe")
    p.add_argument("--seed", type=int, default=None, help="seed of the weights and dice (new runs)")
    p.add_argument("--hidden", type=parse_count, default=96, help="hidden units (new runs)")
    p.add_argument("--alpha", type=float, default=0.05, help="initial learning rate (new runs)")
    p.add_argument("--decay-games", type=parse_count, default=200_000,
                   help="the rate is alpha / (1 + games / this) (new runs)")
    p.add_argument("--lambda", dest="lam", type=float, default=0.7, help="TD's lambda (new runs)")
    p.add_argument("--checkpoint", help="save the run here (every --checkpoint-every games)")
    p.add_argument("--checkpoint-every", type=parse_count, default=20_000, metavar="GAMES",
                   help="games between checkpoints (default 20,000)")
    p.add_argument("--resume", help="continue the run saved in this checkpoint")
    add_force_option(p)
    p.add_argument("--log-every", type=parse_count, default=10_000, metavar="GAMES",
                   help="games between progress lines on stderr (default 10,000)")
    p.add_argument("--export", help="write the trained net as a weights file")
    p.add_argument("--net-version", dest="net_version", default=None, help="version name for --export")
    p.add_argument("--refit", type=parse_count, default=None, metavar="GAMES",
                   help="refit the readouts of --weights (default: the shipped net) to the "
                        "outcomes of GAMES self-play games of --seed; needs --export")
    p.add_argument("--refit-hidden", dest="refit_hidden", action="store_true",
                   help="with --refit: fit every weight, the hidden layer too, not only the "
                        "readouts (minibatch Adam; the epoch best on held-out games is kept)")
    p.add_argument("--weights", default=None, metavar="FILE",
                   help="the net that --refit starts from (default: the shipped net)")
    p.add_argument("--recipe", nargs="?", const="", metavar="WEIGHTS",
                   help="print how a net was made (default: the shipped net of --game)")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    p.add_argument("-q", "--quiet", action="count", default=0, help="less log output (-q: no progress lines)")
    p.add_argument("--version", action="version", version=f"tavli_fast {__version__}")
    return p


def run(args: argparse.Namespace, command: str) -> int:
    """Run the parsed command; ``command`` (its command line) goes into the recipe."""
    if args.recipe is not None:
        return _recipe(args.game, args.recipe or None)
    check_training_files(args)
    if args.refit is not None or args.weights is not None or args.refit_hidden:
        return _refit(args, command)
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


def _refit(args: argparse.Namespace, command: str) -> int:
    """``--refit GAMES``: the readouts of --weights refitted to its own self-play's outcomes."""
    if args.refit is None:
        raise ValueError(f"{'--refit-hidden' if args.refit_hidden else '--weights'} goes with "
                         "--refit (TD runs start from random weights)")
    given = [o for o, v in (("--games", args.games), ("--resume", args.resume),
                            ("--checkpoint", args.checkpoint)) if v is not None]
    if given:
        raise ValueError(f"--refit plays its own games; do not give {', '.join(given)}")
    if not args.export:
        raise ValueError("--refit needs --export FILE (where the refitted net goes)")
    base = args.weights or SHIPPED[args.game]
    seed = check_seed(args.seed)
    net, _ = load_variant_net(base, args.game)
    print(f"{PROG}: refitting {base} on {args.refit:,} {args.game} self-play games, seed {seed}",
          file=sys.stderr, flush=True)
    data = self_play(net, args.refit, seed)
    if args.refit_hidden:
        refitted = refit_all(net, data, seed,
                             progress=lambda line: print(f"{PROG}: {line}", file=sys.stderr))
    else:
        refitted = refit_readouts(net, data)
    before, after = readout_calibration(net, data), readout_calibration(refitted, data)
    for name, row in (("outcomes", before["mean_outcome"]), ("before", before["mean_estimate"]),
                      ("after", after["mean_estimate"])):
        print(f"{PROG}: {name:>8} (mean of {data.positions:,} positions): "
              + " ".join(f"{x:.4f}" for x in row), file=sys.stderr)
    export_refitted(args.export, refitted, base, args.refit, seed, command,
                    args.net_version or f"refit{seed}-{args.refit}", hidden=args.refit_hidden)
    fitted = "every weight" if args.refit_hidden else "readouts"
    print(f"{args.game}: {fitted} refitted on {args.refit:,} games ({data.positions:,} "
          f"positions), seed {seed}; written to {args.export}")
    return 0


def _recipe(game: str, weights: str | None) -> int:
    """Print the chain of steps that made a net (oldest first: each one's method and
    commands) and one command line that repeats it all."""
    name = weights or SHIPPED[game]
    _, meta = load_variant_net(name, game)
    print(format_chain(training_chain(name)), end="")
    reproduce = (meta.get("training") or {}).get("reproduce")
    if reproduce:
        print(f"# one command line that repeats it:\n{reproduce}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``tavli-train --game ...``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return run_command(PROG, build_parser(), lambda args: run(args, f"{PROG} {shlex.join(argv)}"),
                       argv)
