"""Sub-commands of the `railtable` command line for vision (markers, bench vision)."""

from __future__ import annotations

import argparse
import json

from controller.cli._types import Subparsers


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `markers GAME --out DIR` and the `vision` bench."""
    bench = benches.add_parser(
        "vision",
        help="rendered 720p game through the vision pipeline vs OpenCV's detector on every frame",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--moves", type=int, default=30, help="moves in the rendered game")
    bench.add_argument("--seed", type=int, default=7)
    bench.add_argument("--width", type=int, default=1280)
    bench.add_argument("--height", type=int, default=720)
    bench.set_defaults(handler=_bench_vision)


def _bench_vision(args: argparse.Namespace) -> int:
    from vision.bench import run_bench

    result = run_bench(moves=args.moves, width=args.width, height=args.height, seed=args.seed)
    figures = result.as_dict()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    return 0
