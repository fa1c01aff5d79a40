"""tavli-train: train the neural evaluator by self-play, with checkpoints and resume.

    tavli-train --games 1e6 --seed 1 --checkpoint run.npz           # Ctrl-C, then:
    tavli-train --games 1e6 --resume run.npz --checkpoint run.npz
    tavli-train --resume run.npz --games 1e6 --export weights.npz --version v2

Progress goes to stderr (every --log-every games); the seed is echoed.
"""

from __future__ import annotations

import argparse
import logging
import sys

from .. import __version__
from . import OneLineParser, parse_count, print_error

PROG = "tavli-train"


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 10:
        raise argparse.ArgumentTypeError(f"not a learning rate in (0, 10): {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Train the neural evaluator by TD(0) self-play.")
    p.add_argument("--games", type=parse_count, required=True, help="total games (resumed runs count theirs)")
    p.add_argument("--seed", type=int, default=None, help="seed of the weights and dice (new runs)")
    p.add_argument("--hidden", type=parse_count, default=128, help="hidden units (new runs; default 128)")
    p.add_argument("--alpha", type=_rate, default=0.05, help="initial learning rate (new runs)")
    p.add_argument("--decay-games", type=parse_count, default=500_000,
                   help="rate = alpha / (1 + games / this) (new runs)")
    p.add_argument("--no-backgammons", action="store_true", help="train with backgammons as gammons")
    p.add_argument("--checkpoint", help="save the run here (every --checkpoint-every games)")
    p.add_argument("--checkpoint-every", type=parse_count, default=50_000)
    p.add_argument("--resume", help="continue the run saved in this checkpoint")
    p.add_argument("--log-every", type=parse_count, default=10_000)
    p.add_argument("--export", help="write the trained weights as a weights file (neural.load_net)")
    p.add_argument("--net-version", dest="net_version", default=None, help="version name for --export")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--version", action="version", version=f"tavli_fast {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(message)s", stream=sys.stderr)
    from .. import neural, train
    from ..inputs import check_seed

    try:
        seed = check_seed(args.seed)
        if args.resume is None:
            print(f"tavli-train: seed {seed}", file=sys.stderr)
        state = train.train(
            args.games, seed, args.hidden, args.alpha, args.decay_games,
            backgammons=not args.no_backgammons, checkpoint=args.checkpoint,
            checkpoint_every=args.checkpoint_every, resume=args.resume, log_every=args.log_every,
        )
        if args.export:
            neural.save_net(args.export, state.net, args.net_version or f"seed{state.seed}-{state.games_done}",
                            training=state.meta())
    except (ValueError, OSError) as exc:
        return print_error(PROG, exc)
    except KeyboardInterrupt:
        print("tavli-train: interrupted (resume from the last checkpoint)", file=sys.stderr)
        return 130
    print(f"{state.games_done} games, seed {state.seed}, {state.elapsed_s:.0f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
