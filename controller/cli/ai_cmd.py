"""`railtable bench ai`: the computer player against the simple bots, whole games."""

from __future__ import annotations

import argparse
import json

from controller.cli._types import Subparsers, UsageError, positive, positive_number


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add the `ai` bench target."""
    bench = benches.add_parser(
        "ai", help="the computer player against the simple bots: win share, decision time"
    )
    bench.add_argument("--game", required=True, help="a game from `railtable rules list`")
    bench.add_argument("--players", type=positive, required=True)
    bench.add_argument("--games", type=positive, default=4, help="games, seeds from --seed")
    bench.add_argument("--level", choices=["easy", "normal", "strong"], default="normal")
    bench.add_argument(
        "--opponents", choices=["easy", "normal", "strong"], default="easy", help="other seats"
    )
    budget = bench.add_mutually_exclusive_group()
    budget.add_argument(
        "--seconds",
        type=positive_number,
        help="search time a decision at the normal level (which still stops at its set "
        "iterations); the strong level's is 3 times it",
    )
    budget.add_argument(
        "--iterations",
        type=positive,
        help="search iterations a decision at the normal level (the strong level's 3 times it)",
    )
    budget.add_argument(
        "--cpu-seconds",
        type=positive_number,
        help="as --seconds, on the CPU clock (the same search whatever the load)",
    )
    bench.add_argument("--seed", type=int, default=1, help="the first game's seed")
    bench.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal again with the computer's seat at the opponents' level, and "
        "compare its margin on the same deal",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    import rules
    from rules.ai import Budget
    from rules.ai.bench import Seats, bench
    from rules.ai.player import Level, scaled

    info = rules.GAMES.get(args.game)
    if info is None:
        raise UsageError(f"--game {args.game!r}: not a game; known: {', '.join(rules.GAMES)}")
    if not info.min_players <= args.players <= info.max_players:
        raise UsageError(
            f"--players {args.players}: {info.title} takes {info.min_players} to "
            f"{info.max_players} players"
        )
    level, opponents = Level(args.level), Level(args.opponents)
    seats = Seats(level, None, opponents, None)
    if args.cpu_seconds is not None:
        budget = Budget(seconds=args.cpu_seconds, cpu=True)
    elif args.seconds is not None or args.iterations is not None:
        budget = Budget(iterations=args.iterations, seconds=args.seconds)
    else:
        budget = None
    if budget is not None:  # the normal level's budget; the strong level's is 3 times it
        seats = Seats(level, scaled(budget, level), opponents, scaled(budget, opponents))
    figures = bench(args.game, args.players, args.games, seats, args.seed, args.duplicate)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:16} {value}")
    return 0
