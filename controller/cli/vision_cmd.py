"""Sub-commands of the `railtable` command line for vision (markers, bench vision)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from controller.cli._types import Subparsers
from rules.physical import Catalogue, Layout


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `markers GAME --out DIR` and the `vision` bench."""
    markers = commands.add_parser(
        "markers",
        help="write the printable mat and piece stickers of a game (A4, true scale, PDF and PNG)",
    )
    markers.add_argument("game", help="game name, e.g. offtherails")
    markers.add_argument("--out", type=Path, required=True, help="folder to write into")
    markers.add_argument("--dpi", type=int, default=300)
    markers.set_defaults(handler=_markers)

    bench = benches.add_parser(
        "vision",
        help="rendered 720p game through the vision pipeline vs OpenCV's detector on every frame",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--moves", type=int, default=30, help="moves in the rendered game")
    bench.add_argument("--seed", type=int, default=7)
    bench.add_argument(
        "--opening", type=int, default=40, help="tiles already on the board when the game starts"
    )
    bench.add_argument("--width", type=int, default=1280)
    bench.add_argument("--height", type=int, default=720)
    bench.set_defaults(handler=_bench_vision)


def _markers(args: argparse.Namespace) -> int:
    try:
        physical = importlib.import_module(f"rules.{args.game}.physical")
        layout, catalogue = physical.layout(), physical.catalogue()
    except (ImportError, AttributeError) as exc:
        print(
            f"railtable markers: game {args.game!r} has no physical form "
            f"(rules.{args.game}.physical.layout/catalogue): {exc}",
            file=sys.stderr,
        )
        return 2
    paths = write_markers(layout, catalogue, args.out, args.game, args.dpi)
    for path in paths:
        print(path)
    return 0


def write_markers(
    layout: Layout, catalogue: Catalogue, out: Path, title: str, dpi: int = 300
) -> list[Path]:
    """Print set for a `rules.physical.Layout` and `Catalogue`: mat tiles and sticker sheets."""
    from controller.vision_bridge import board_geometry, stickers
    from vision.printing import PrintSettings, write_print_set

    board = board_geometry(layout, catalogue)
    return write_print_set(board, stickers(catalogue), out, title, PrintSettings(dpi=dpi))


def _bench_vision(args: argparse.Namespace) -> int:
    from vision.bench import run_bench

    result = run_bench(
        moves=args.moves,
        width=args.width,
        height=args.height,
        seed=args.seed,
        opening_pieces=args.opening,
    )
    figures = result.as_dict()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    return 0
