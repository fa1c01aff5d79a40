"""tavli-train: train the neural evaluator by self-play, with checkpoints and resume.

    tavli-train --games 1e6 --seed 1 --checkpoint run.npz           # Ctrl-C, then:
    tavli-train --games 1e6 --resume run.npz --checkpoint run.npz
    tavli-train --resume run.npz --games 3e6 --rate 0.003 --checkpoint run.npz   # anneal
    tavli-train --resume run.npz --games 1e6 --export weights.npz --net-version v2
    tavli-train --average a.npz b.npz c.npz --export weights.npz --net-version v2
    tavli-train --init-from weights.npz --alpha 0.003 --games 5e5 --checkpoint warm.npz
    tavli-train --games 1e6 --seed 1 --lambda 0.7 --checkpoint td.npz     # TD(lambda)
    tavli-train --recipe neural-v17-320.npz      # how a net was made, from the first net on
    tavli-train --recipe mine.npz    # yours too: every training command records itself
    tavli-train --game plakoto --games 3e5 --seed 1 --checkpoint p.npz   # Plakoto / Fevga nets

Supervised refinement on the net's own look-ahead (issue 13; ``supervise.py``):

    tavli-train --targets data/ --games 60000 --seed 1 -j 2    # positions + 1-ply targets
    tavli-train --targets d2/ --plies 2 --games 5000 --seed 2   # 2-ply: about 20x the work
    tavli-train --targets d3/ --rollouts 12 --games 500 -j 2     # labels from 12 rollout games
    tavli-train --fit data/ --epochs 8 --checkpoint fit.npz --export v3.npz --net-version v3
    tavli-train --fit d2/ --outcome-weight 0.2 --epochs 8 --checkpoint fit2.npz --export v4.npz
    tavli-train --targets d4/ --race --rollouts 36 --games 20000 -j 2   # race positions only
    tavli-train --fit d4/ --race --epochs 8 --checkpoint race.npz --export v5.npz   # + race net
    tavli-train --targets d5/ --contact --rollouts 12 --truncate-plies 10 --games 5000 -j 2
    tavli-train --fit data/ --hidden 384 --epochs 30 --checkpoint w.npz --export wide.npz  # widen first
    tavli-train --fit d6/ --outputs-only --readouts gammons --outcome-weight 1 --export cal.npz

Progress goes to stderr (every --log-every games); the seed is echoed.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
from typing import Callable

import numpy as np

from .. import _core
from .._version import __version__
from ..checks import check_seed
from ..jobs import targets as supervise
from ..play import neural
from ..play.bearoff import default_database
from ..run.progress import TqdmProgress
from ..training import train
from ..training.recipes import format_chain, training_chain, with_ancestors
from . import NET_OUTPUTS as READOUTS
from . import (
    EXIT_INTERRUPTED,
    OneLineParser,
    add_executor_options,
    add_force_option,
    check_training_files,
    entry_point,
    executor_settings,
    parse_count,
    run_command,
    stop_requests,
)
from .variant_train import main as variant_main    # Plakoto and Fevga (issue 44)

PROG = "tavli-train"


def _number(text: str, accept: Callable[[float], bool], what: str) -> float:
    """`text` as a float that `accept` takes, or argparse's error naming `what`."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not accept(value):
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}")
    return value


def _rate(text: str) -> float:
    return _number(text, lambda v: 0 < v < 10, "a learning rate in (0, 10)")


def _lambda(text: str) -> float:
    return _number(text, lambda v: 0 <= v <= 1, "a lambda in [0, 1]")


#: The name of the net's four outputs that are not the win.
GAMMONS = "gammons"


def _readouts(text: str) -> tuple[int, ...]:
    """Comma-separated output names (or ``gammons``) as indices into the five outputs."""
    picked: set[int] = set()
    for name in text.split(","):
        if name == GAMMONS:
            picked.update(range(1, 5))
        elif name in READOUTS:
            picked.add(READOUTS.index(name))
        else:
            raise argparse.ArgumentTypeError(
                f"not an output: {name!r} (the outputs: {', '.join(READOUTS)}, or {GAMMONS})")
    return tuple(sorted(picked))


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Train the neural evaluator by TD(0) or TD(lambda) "
                                             "self-play, or by supervised refinement.")
    p.add_argument("--game", choices=("plakoto", "fevga"), default=None,
                   help="train a Plakoto or Fevga net instead, with that trainer's options (TD "
                   "self-play, --refit GAMES to refit a net's readouts to its own games, "
                   "--refit-hidden, --weights, --recipe): tavli-train --game plakoto --help")
    p.add_argument("--games", type=parse_count, help="total games (resumed runs count theirs)")
    p.add_argument("--seed", type=int, default=None, help="seed of the weights and dice (new runs)")
    p.add_argument("--hidden", type=parse_count, default=None,
                   help="hidden units (new TD runs; default 128); with --fit: widen the "
                   "starting net's hidden layer to this many (the new units' output weights 0)")
    p.add_argument("--alpha", type=_rate, default=0.05, help="initial learning rate (new runs)")
    p.add_argument("--decay-games", type=parse_count, default=500_000,
                   help="rate = alpha / (1 + games / this) (new runs)")
    p.add_argument("--lambda", dest="lam", type=_lambda, default=None,
                   help="learn by TD(lambda) with this lambda in [0, 1] (new runs; default 0: TD(0))")
    p.add_argument("--no-backgammons", action="store_true", help="train with backgammons as gammons")
    p.add_argument("--no-features", action="store_true",
                   help="a net of the raw inputs only (by default the hand features are added, "
                        "also to a resumed net that lacks them)")
    p.add_argument("--checkpoint", help="save the run here (every --checkpoint-every games)")
    p.add_argument("--checkpoint-every", type=parse_count, default=50_000, metavar="GAMES",
                   help="games between checkpoints (default 50,000)")
    p.add_argument("--resume", help="continue the run saved in this checkpoint")
    add_force_option(p)
    p.add_argument("--init-from", dest="init_from", metavar="WEIGHTS",
                   help="a new run starting from this weights file's net instead of random "
                        "weights (the shipped one: tavli_fast.neural.default_weights_path())")
    p.add_argument("--rate", type=_rate, default=None,
                   help="with --resume: the learning rate from here on (decaying as before)")
    p.add_argument("--log-every", type=parse_count, default=10_000, metavar="GAMES",
                   help="games between progress lines on stderr (default 10,000)")
    p.add_argument("--average", nargs="+", metavar="CHECKPOINT",
                   help="instead of training: export the mean of these checkpoints' nets")
    p.add_argument("--recipe", nargs="?", const="", metavar="WEIGHTS",
                   help="instead of training: print how this weights file's net (default the "
                   "shipped one) was made, from the first net of its chain on: each net's "
                   "method and the commands recorded in its file")
    sup = p.add_argument_group("supervised refinement (issue 13)")
    sup.add_argument("--targets", metavar="DIR",
                     help="instead of TD training: play --games 0-ply self-play games with the net "
                     "(--init-from, default the shipped one; either with the bear-off databases) "
                     "and write their positions with 1-ply "
                     "(or --plies 2) targets and the games' outcomes into DIR; run it again to "
                     "resume")
    sup.add_argument("--plies", type=int, choices=(1, 2), default=1,
                     help="with --targets: the look-ahead of the targets (default 1; 2 costs "
                     "about 20 times as much)")
    sup.add_argument("--rollouts", type=int, default=0, metavar="N",
                     help="with --targets: label each position by N luck-adjusted rollout games "
                     "of the net's 0-ply play to the end instead of the look-ahead (about 12 "
                     "positions a second per core at N=12)")
    sup.add_argument("--truncate-plies", dest="truncate_plies", type=int, default=0, metavar="N",
                     help="with --rollouts: stop each rollout game after N plies and count the "
                     "net's estimate there (a deeper look than --plies 2, several times cheaper "
                     "than games to the end)")
    sup.add_argument("--explore", type=float, default=0.05,
                     help="with --targets: the chance that a turn plays a random legal play "
                     "(default 0.05)")
    sup.add_argument("--race", action="store_true",
                     help="with --targets: keep only the positions with no contact left; with "
                     "--fit: fit the net's race net (which evaluates those positions) to the race "
                     "positions of the targets, starting from the net's race net or, if it has "
                     "none, from a copy of the net itself")
    sup.add_argument("--contact", action="store_true",
                     help="with --targets: keep only the positions with contact (the ones the "
                     "main net evaluates when the net has a race net)")
    sup.add_argument("--fit", metavar="DIR", nargs="+",
                     help="instead of TD training: fit the net (--init-from, default the shipped "
                     "one) to the targets in these directories (in this order); --checkpoint "
                     "saves (and resumes) every epoch; --seed (default 0) shuffles the batches")
    sup.add_argument("--epochs", type=parse_count, default=8, help="with --fit (default 8)")
    sup.add_argument("--outcome-weight", dest="outcome_weight", type=float, default=0.0,
                     help="with --fit: the share of the games' real outcomes in the targets, "
                     "where they are known (default 0: the look-ahead alone)")
    sup.add_argument("--inputs", type=int, choices=(198, 203, 209, 215), default=None,
                     help="with --fit: widen the starting net to this many inputs (209: with "
                     "issue 13's escapes, pip loss and dance; 215: and its containment, break "
                     "contact and free pips; new inputs start at weight 0)")
    sup.add_argument("--outputs-only", dest="outputs_only", action="store_true",
                     help="with --fit: train the output layer only (the hidden layer stays): "
                     "recalibrates the five estimates, e.g. with --outcome-weight, leaving the "
                     "learnt features alone")
    sup.add_argument("--readouts", type=_readouts, default=None, metavar="NAMES",
                     help="with --outputs-only: only these outputs learn (comma-separated: "
                     f"{', '.join(READOUTS)}; {GAMMONS} for the four but the win), the others "
                     "stay as they are; e.g. --readouts gammons recalibrates the gammon "
                     "estimates and keeps the win estimate, which decides most plays")
    sup.add_argument("--fit-rate", type=_rate, default=3e-4, help="Adam's rate (default 3e-4)")
    sup.add_argument("--batch", type=parse_count, default=256, help="with --fit (default 256)")
    add_executor_options(sup)
    p.add_argument("--export", help="write the trained weights as a weights file (neural.load_net)")
    p.add_argument("--net-version", dest="net_version", default=None, help="version name for --export")
    p.add_argument("--method", default=None,
                   help="with --fit and --export: what was done, in words, for the file's "
                   "recipe (which records the commands by itself; tavli-train --recipe prints both)")
    p.add_argument("--race-from", dest="race_from", metavar="WEIGHTS",
                   help="TD training and --average: --export with this weights file's race net "
                        "(TD training trains one net, so a run from a file with a race net "
                        "leaves it out)")
    p.add_argument("-q", "--quiet", action="count", default=0, help="no progress lines")
    p.set_defaults(verbose=1)  # progress lines (INFO) by default
    p.add_argument("--version", action="version", version=f"tavli_fast {__version__}")
    return p


def run(args: argparse.Namespace, command: str | None = None) -> int:
    """Run the parsed command; `command` is its command line, which every training run
    (TD, --targets, --fit, --average) records for the recipe of the nets it makes."""
    if args.recipe is not None:
        return _recipe(args)
    check_training_files(args, resumes_own_checkpoint=bool(args.fit))
    if args.method is not None and not (args.fit and args.export):
        raise ValueError("--method describes the net a --fit writes: it goes with --fit and "
                         "--export")
    if args.targets or args.fit:
        return _supervised(args, command)
    if args.race or args.contact:
        raise ValueError("--race and --contact go with --targets (--race also with --fit)")
    given = _supervised_options_given(args)
    if given:
        raise ValueError(f"{', '.join(given)}: options of --targets / --fit, not of TD training")
    if args.race_from and not args.export:
        raise ValueError("--race-from goes with --export")
    race = _race_net(args.race_from)
    # The exported file says where its race net came from.
    race_info = {"race_from": os.path.basename(args.race_from)} if args.race_from else {}
    if args.average:
        if not args.export or args.games is not None or args.resume:
            raise ValueError("--average takes checkpoints and --export, not --games or --resume")
        net, record = train.average_checkpoints(args.average)
        if command is not None:
            record["recipe"].append(command)
        neural.save_net(args.export, _core.NeuralNet(*net.arrays(), race=race),
                        args.net_version or "averaged",
                        training=with_ancestors({**record, **race_info}))
        print(f"{len(args.average)} checkpoints averaged into {args.export}")
        return 0
    if args.games is None:
        raise ValueError("--games is required (or --average)")
    seed = check_seed(args.seed)
    if args.init_from and args.resume:
        raise ValueError("--init-from starts a new run; --resume continues one: give one of them")
    if args.init_from:
        neural.load_net(args.init_from)  # a missing or damaged file fails here, before any output
    if args.lam is not None and args.resume:
        raise ValueError("--lambda is a new run's choice; a resumed run keeps its own")
    if args.rate is not None and args.resume is None:
        raise ValueError("--rate changes the rate of a resumed run (--resume); a new run takes --alpha")
    if args.resume is None:
        print(f"{PROG}: seed {seed}", file=sys.stderr)
    # Ctrl-C or SIGTERM stops the run after its current stretch of games, checkpointed.
    with stop_requests() as stopped:
        state = train.train(
            args.games, seed, args.hidden or 128, args.alpha, args.decay_games,
            backgammons=not args.no_backgammons, features=not args.no_features,
            lam=args.lam or 0.0, rate=args.rate,
            init_from=args.init_from, checkpoint=args.checkpoint,
            checkpoint_every=args.checkpoint_every, resume=args.resume, log_every=args.log_every,
            stop=stopped, command=command,
        )
    if stopped():
        saved = (f"; saved to {args.checkpoint} (continue with --resume {args.checkpoint})"
                 if args.checkpoint else " (no --checkpoint: nothing saved)")
        print(f"{PROG}: stopped after {state.games_done} games{saved}", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.export:
        neural.save_net(args.export, _core.NeuralNet(*state.net.arrays(), race=race),
                        args.net_version or f"seed{state.seed}-{state.games_done}",
                        training=with_ancestors({**state.meta(), **state.recipe(), **race_info},
                                                args.init_from))
    print(f"{state.games_done} games, seed {state.seed}, {state.elapsed_s:.0f} s")
    return 0


#: The options of supervised refinement (--targets / --fit) that TD training has no use for.
SUPERVISED_OPTIONS = ("plies", "rollouts", "truncate_plies", "explore", "inputs", "outputs_only",
                      "readouts", "outcome_weight", "epochs", "fit_rate", "batch", "jobs",
                      "start_method", "scheduler")


def _supervised_options_given(args: argparse.Namespace) -> list[str]:
    """The options of SUPERVISED_OPTIONS set to other than their defaults, as written."""
    parser = build_parser()
    return ["--" + dest.replace("_", "-") for dest in SUPERVISED_OPTIONS
            if getattr(args, dest) != parser.get_default(dest)]


def _recipe(args: argparse.Namespace) -> int:
    if any(x is not None for x in (args.games, args.targets, args.fit, args.average, args.resume,
                                   args.init_from, args.export, args.method)):
        raise ValueError("--recipe prints a net's recipe: it takes no training options")
    sys.stdout.write(format_chain(training_chain(args.recipe or None)))
    return 0


def _race_net(path: str | None):
    """The race net of the weights file `path` (None without one)."""
    if path is None:
        return None
    race = neural.load_net(path)[0].race
    if race is None:
        raise ValueError(f"{path}: this weights file has no race net")
    return race


def _supervised(args: argparse.Namespace, command: str | None) -> int:
    if args.targets and args.fit:
        raise ValueError("--targets makes the data, --fit uses it: give one of them")
    if args.resume or args.average or args.race_from:
        raise ValueError("--resume, --average and --race-from are for TD training, "
                         "not --targets / --fit")
    net, net_meta = (neural.load_net(args.init_from) if args.init_from
                     else (neural.default_net(), neural.default_net_info()))
    if args.init_from and args.targets:
        # The targets' games and look-ahead value bear-offs by the databases, as the
        # players (and the shipped default) do: a net's targets do not depend on how it is named.
        net = neural.attach_bearoff(net, default_database().tables)
    # The net that --fit trains: the race net with --race, else the net itself.
    fitted = net
    if args.fit and args.race:
        fitted = net.race if net.race is not None else _core.NeuralNet(*net.arrays())
    if args.inputs is not None or args.hidden is not None:
        if not args.fit:
            raise ValueError("--inputs and --hidden widen the net that --fit starts from")
        fitted = supervise.widen(fitted, args.inputs, args.hidden,
                                 seed=args.seed if args.seed is not None else 0)
    if args.targets:
        if args.games is None:
            raise ValueError("--targets needs --games")
        if not 0.0 <= args.explore <= 1.0:
            raise ValueError(f"--explore is a probability, not {args.explore}")
        if args.rollouts < 0 or (args.rollouts and args.plies != 1):
            raise ValueError("--rollouts takes a positive count of games, and no --plies")
        if args.truncate_plies < 0 or (args.truncate_plies and not args.rollouts):
            raise ValueError("--truncate-plies takes a positive count of plies, with --rollouts")
        if args.race and args.contact:
            raise ValueError("--race and --contact keep opposite positions: give one of them")
        resumed = os.path.exists(os.path.join(args.targets, supervise.TARGETS_RECORD))
        seed = args.seed if resumed else check_seed(args.seed)
        with TqdmProgress(int(args.games), enabled=not args.quiet) as bar:  # (on a terminal)
            record = supervise.make_targets(args.targets, net, args.games, seed, args.explore,
                                            plies=args.plies, rollouts=args.rollouts,
                                            race=args.race, contact=args.contact,
                                            truncate_plies=args.truncate_plies,
                                            **executor_settings(args),
                                            progress=bar, command=command)
        print(f"{record['positions_written']} positions written to {args.targets} in "
              f"{record['elapsed_s']:.0f} s (seed {record['seed']}, {record['games']} games)")
        return EXIT_INTERRUPTED if record["interrupted"] else 0
    if not 0.0 <= args.outcome_weight <= 1.0:
        raise ValueError(f"--outcome-weight is in [0, 1], not {args.outcome_weight}")
    if args.readouts is not None and not args.outputs_only:
        raise ValueError("--readouts narrows --outputs-only: give both")
    logging.getLogger("tavli_fast.jobs.targets").setLevel(logging.INFO)
    parts = [supervise.load_targets(d) for d in args.fit]
    boards = np.concatenate([b for b, _ in parts])
    probs = np.concatenate([p for _, p in parts])
    del parts
    if args.outcome_weight > 0:
        outcomes = np.concatenate([supervise.load_outcomes(d) for d in args.fit])
        probs = supervise.blend_outcomes(probs, outcomes, args.outcome_weight)
        print(f"outcomes known for {np.count_nonzero(outcomes >= 0)} of {len(outcomes)} "
              "positions", file=sys.stderr)
    if args.race:
        keep = _core.races(boards)
        boards, probs = boards[keep], probs[keep]
        if len(boards) < 20:
            raise ValueError(f"the targets hold {len(boards)} race positions: too few to fit")
    # A fixed order (seed 0), so that the held-out rows are the same whatever --seed says.
    order = np.random.default_rng(0).permutation(len(boards))
    boards, probs = boards[order], probs[order]
    if args.checkpoint and os.path.exists(args.checkpoint):
        state = supervise.FitState.load(args.checkpoint)  # (its net, not --init-from's)
    else:
        state = supervise.FitState.start(fitted, check_seed(args.seed if args.seed is not None else 0))
        state.started_from = {"file": os.path.basename(args.init_from) if args.init_from
                              else neural.default_weights_path().name,
                              "sha256": net_meta["sha256"]}
    if command is not None:
        state.commands.append(command)
    inputs = _core.neural_inputs_many(boards, len(state.params[0]))
    try:
        supervise.fit(state, inputs, probs, args.epochs, rate=args.fit_rate, batch=args.batch,
                      holdout=min(20_000, len(boards) // 10), checkpoint=args.checkpoint,
                      outputs_only=args.outputs_only, readouts=args.readouts)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (resume from the last checkpoint)", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.export:
        out = (_core.NeuralNet(*net.arrays(), race=state.net()) if args.race
               else state.net(race=net.race))
        # The recipe: the commands that made the targets, then the fit's own, from the file
        # the fit started from (``tavli-train --recipe`` follows it back).
        recipe = [c for d in args.fit for c in supervise.targets_commands(d)] + state.commands
        made = {"method": args.method} if args.method else {}
        if state.started_from is not None:
            made |= {"start": state.started_from, "recipe": recipe}
        fit = {"targets": args.fit, "positions": len(boards), "race": args.race,
               "seed": args.seed or 0, "outcome_weight": args.outcome_weight,
               "outputs_only": args.outputs_only,
               "readouts": [READOUTS[k] for k in args.readouts or range(5)],
               "epochs": state.epoch, "rate": args.fit_rate, "batch": args.batch,
               "history": state.history}
        neural.save_net(args.export, out, args.net_version or f"fit-{state.epoch}",
                        training=with_ancestors({**made, "supervised": fit}, args.init_from))
    print(f"{state.epoch} epochs on {len(boards)} positions; held-out equity error "
          f"{state.history[-1]['holdout_equity_mae']:.4f}" if state.history else "nothing to do")
    return 0


@entry_point
def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tavli-train``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a == "--game" or a.startswith("--game=") for a in argv):
        return variant_main(argv)
    return run_command(PROG, build_parser(), lambda args: run(args, f"{PROG} {shlex.join(argv)}"),
                       argv)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
