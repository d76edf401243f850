"""Sub-commands of the `railtable` command line for vision (markers, bench vision)."""

from __future__ import annotations

import argparse
import json
import os
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
    markers.add_argument("--out", type=_out_folder, required=True, help="folder to write into")
    markers.add_argument("--dpi", type=_dpi, default=300, help="print resolution, 72 to 1200")
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


def _out_folder(text: str) -> Path:
    """A folder to write into: not empty, not an existing file, not under a file, writable."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder to write into, not an empty path")
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise argparse.ArgumentTypeError(f"{parent} is a file, not a folder")
            break
    return path


def _dpi(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 72 <= value <= 1200:
        raise argparse.ArgumentTypeError(f"{value} is not within 72 to 1200")
    return value


def _markers(args: argparse.Namespace) -> int:
    import rules

    info = rules.game_info(args.game)  # an unknown game: one line naming the known ones
    if info.layout is None or info.catalogue is None:
        raise ValueError(f"{info.title} has no physical form to print")
    layout, catalogue = info.layout({"players": info.max_players}), info.catalogue()
    args.out.mkdir(parents=True, exist_ok=True)
    if not os.access(args.out, os.W_OK):
        raise PermissionError(13, "cannot write into the folder", str(args.out))
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
