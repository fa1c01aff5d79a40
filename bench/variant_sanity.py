"""Random-game sanity figures of Plakoto and Fevga for the README (issue 12), as a table.

    python bench/variant_sanity.py [--games 50000] [--seed 1]

For each game: random vs random and heuristic vs heuristic from the start (the first mover
on roll, T3: his first roll may be a double), then heuristic vs random both ways round.
Every figure is for the first mover (player 0) with its standard error; a "double" is a
game won 2 points by bearing off while the loser has borne off none, "mother" a Plakoto
game won by the mother rule (P5), "draw" both mothers pinned (P6).
"""

from __future__ import annotations

import argparse

from tavli_fast import simulate_variant


def row(game: str, players: str, games: int, seed: int) -> str:
    r = simulate_variant(game, None, games, players, seed=seed)
    x = r.rates()

    def f(name: str, digits: int = 3) -> str:
        value, se = x[name]
        return f"{value:.{digits}f} ± {se:.{digits}f}"

    either = lambda a, b: f"{x[a][0] + x[b][0]:.3f}"  # noqa: E731 - a table helper
    return (
        f"| {game} | {players} | {games:,} | {f('plies', 1)} | {f('win')} | {f('points')} | "
        f"{f('double_win')} / {f('double_loss')} ({either('double_win', 'double_loss')}) | "
        f"{f('mother_win')} / {f('mother_loss')} ({either('mother_win', 'mother_loss')}) | {f('draw')} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| game | players (first mover first) | games | plies a game | first mover wins | "
          "points a game | double win / loss (both) | mother win / loss (both) | draws |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game in ("plakoto", "fevga"):
        for players in ("random,random", "heuristic,heuristic"):
            print(row(game, players, args.games, args.seed))
        for players in ("heuristic,random", "random,heuristic"):
            print(row(game, players, args.games // 5, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
