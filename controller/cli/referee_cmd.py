"""`railtable bench referee`: how fast and how right the referee reads bot games' tables."""

from __future__ import annotations

import argparse
import json

from controller.cli._types import Subparsers, positive


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add the `referee` bench target."""
    bench = benches.add_parser(
        "referee",
        help="bot games shown to the referee: verdict times, recovered fraction, false applies",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--game", action="append", default=[], help="a game (default: every one)")
    bench.add_argument("--seeds", type=positive, default=4, help="bot games per game")
    bench.add_argument("--players", type=positive, default=None, help="default: each count")
    bench.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    import rules
    from controller.referee.cases import bench

    games = args.game or [n for n, info in rules.GAMES.items() if info.expected_table]
    for name in games:
        rules.game_info(name)  # an unknown game: one line naming the known ones
    figures = bench(games, args.seeds, args.players)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:30} {value}")
    return 0
