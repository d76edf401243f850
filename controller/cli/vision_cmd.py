"""Sub-commands of the `railtable` command line for vision (markers, bench vision)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli._types import Subparsers, whole_between

if TYPE_CHECKING:
    from rules.physical import Catalogue, Layout


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `markers GAME --out DIR` and the `vision` bench."""
    markers = commands.add_parser(
        "markers",
        help="write the printable mat and piece stickers of a game (A4, true scale, PDF and PNG)",
    )
    markers.add_argument(
        "game", help="game name, e.g. offtherails; or charuco: the sheet that measures a lens"
    )
    markers.add_argument("--out", type=_out_folder, required=True, help="folder to write into")
    markers.add_argument("--dpi", type=_dpi, default=300, help="print resolution, 72 to 1200")
    markers.set_defaults(handler=_markers)

    camera = commands.add_parser("camera", help="the camera's lens, measured once and kept")
    actions = camera.add_subparsers(dest="camera_action", required=True, metavar="ACTION")
    calibrate = actions.add_parser(
        "calibrate",
        help="measure the lens from the printed ChArUco sheet (railtable markers charuco) "
        "held in front of the camera; kept in the data folder under the camera's name",
    )
    calibrate.add_argument(
        "--source",
        type=_source,
        required=True,
        help='the camera: 0, /dev/video0, a URL, "picamera2" (a camera module)',
    )
    calibrate.add_argument(
        "--data", type=_out_folder, default=None, help="the service's data folder (its default)"
    )
    calibrate.add_argument(
        "--seconds", type=_seconds, default=180.0, help="give up after this long (default 180)"
    )
    calibrate.set_defaults(handler=_camera_calibrate)

    bench = benches.add_parser(
        "vision",
        help="rendered 720p game through the vision pipeline vs OpenCV's detector on every frame",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--moves", type=_at_least(1), default=30, help="moves in the rendered game")
    bench.add_argument("--seed", type=int, default=7)
    bench.add_argument(
        "--opening", type=int, default=40, help="tiles already on the board when the game starts"
    )
    bench.add_argument("--width", type=int, default=1280)
    bench.add_argument("--height", type=int, default=720)
    bench.add_argument(
        "--harsh-moves",
        type=_at_least(0),
        default=8,
        help="moves in each harsh-condition game (a slanted camera through a bent lens with "
        "30 mm minecarts and off-centre tiles, and per game: a stronger lens, 25 degrees, soft "
        "focus, flicker, a hard shadow, resting hands, a soft highlight, strong glare, pieces "
        "held above the board, skin tones and sleeves, red carts); 0 leaves them out",
    )
    bench.set_defaults(handler=_bench_vision)

    live = benches.add_parser(
        "camera",
        help="a live camera's frame rate and our CPU a frame (capture, format turned, handed "
        "over); prints JSON",
    )
    live.add_argument(
        "--source", type=_source, default="picamera2", help='the camera (default "picamera2")'
    )
    live.add_argument("--frames", type=_at_least(1), default=200)
    live.add_argument("--width", type=int, default=1280)
    live.add_argument("--height", type=int, default=720)
    live.add_argument(
        "--frame-rate", type=float, default=30.0, help="asked of a camera module (default 30)"
    )
    live.set_defaults(handler=_bench_camera)


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


_dpi = whole_between(72, 1200)  # the printer's dots per inch


def _at_least(least: int) -> Callable[[str], int]:
    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is not at least {least}")
        return value

    return count


def _source(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("give the camera: 0, /dev/video0 or a stream URL")
    return text.strip()


NO_CAMERA_S = 10.0  # a camera that gives no picture for this long is not there


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{value:g} is not within 1 to 3600 seconds")
    return value


def _bench_camera(args: argparse.Namespace) -> int:
    from controller.bench.camera import bench_camera
    from vision.camera_module import CameraSettings

    if not (160 <= args.width <= 4608 and 120 <= args.height <= 2592):
        raise ValueError(f"--width {args.width} --height {args.height}: not a camera's size")
    if not 1 <= args.frame_rate <= 120:
        raise ValueError(f"--frame-rate {args.frame_rate:g}: must be 1 to 120")
    settings = CameraSettings(args.width, args.height, args.frame_rate, settle_s=0)
    print(json.dumps(bench_camera(args.source, settings, args.frames).to_json()))
    return 0


def _camera_calibrate(args: argparse.Namespace) -> int:
    import time

    from controller.config import Config
    from vision.charuco import Collector, find_sheet, measure_lens
    from vision.lens import save_lens
    from vision.sources import open_camera

    data = args.data or Config().data_dir
    source = open_camera(args.source)
    started = time.monotonic()
    deadline = started + args.seconds
    collector: Collector | None = None
    said = ""
    print(
        "Hold the printed sheet (railtable markers charuco) flat in front of the camera, "
        "in turn near each corner of the view, then tilted; keep it still a moment each time.",
        flush=True,
    )
    try:
        while not (collector is not None and collector.done):
            if time.monotonic() > deadline:
                kept = 0 if collector is None else len(collector.views)
                raise TimeoutError(
                    f"only {kept} good views of the sheet in {args.seconds:g} s; "
                    "is the sheet in view, flat and well lit?"
                )
            frame = source.read()
            if frame is None:
                if collector is None and time.monotonic() > started + NO_CAMERA_S:
                    raise OSError(f"no picture from camera {args.source!r}: {source.reason}")
                if source.reason != said:
                    said = source.reason
                    print(f"camera: {said}", flush=True)
                time.sleep(0.2)
                continue
            image = frame.image
            if collector is None:
                collector = Collector((image.shape[1], image.shape[0]))
            if collector.offer(find_sheet(image)) or collector.advice() != said:
                said = collector.advice()
                print(said, flush=True)
        assert collector is not None
        lens, rms = measure_lens(collector.views, collector.size)
    finally:
        source.close()
    if rms > 1.5:
        raise ValueError(
            f"the lens fits the views only to {rms:.2f} px (over 1.5): hold the sheet flat and "
            "still, and run it again"
        )
    path = save_lens(Path(data), args.source, lens)
    k1, k2 = lens.distortion[:2]
    print(
        f"lens measured from {len(collector.views)} views, fit {rms:.2f} px: focal "
        f"{lens.fx:.0f} px, k1 {k1:+.3f}, k2 {k2:+.3f}; kept in {path}"
    )
    return 0


def _markers(args: argparse.Namespace) -> int:
    import rules

    if args.game == "charuco":
        return _charuco_sheet(args)
    info = rules.game_named(args.game)  # an unknown game: one line naming the known ones
    layout, catalogue = info.layout({"players": info.max_players}), info.catalogue()
    args.out.mkdir(parents=True, exist_ok=True)
    if not os.access(args.out, os.W_OK):
        raise PermissionError(13, "cannot write into the folder", str(args.out))
    paths = write_markers(layout, catalogue, args.out, args.game, args.dpi)
    for path in paths:
        print(path)
    return 0


def _charuco_sheet(args: argparse.Namespace) -> int:
    import cv2

    from vision.charuco import sheet_image

    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "charuco-sheet.png"
    image = sheet_image(args.dpi / 25.4)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"could not write {path}")
    print(path)
    print(
        f"print it at {args.dpi} dpi, true scale (the squares measure 25 mm), and glue it on card",
        file=sys.stderr,
    )
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
    from vision.bench import run_bench, run_harsh

    result = run_bench(
        moves=args.moves,
        width=args.width,
        height=args.height,
        seed=args.seed,
        opening_pieces=args.opening,
    )
    figures: dict[str, object] = dict(result.as_dict())
    harsh = run_harsh(moves=args.harsh_moves, seed=args.seed) if args.harsh_moves > 0 else {}
    if harsh:
        figures["harsh"] = harsh
    if args.json:
        print(json.dumps(figures))
        return 0
    for key, value in result.as_dict().items():
        print(f"{key:28} {value}")
    for name, values in harsh.items():
        print(f"harsh {name:22} " + " ".join(f"{k}={v}" for k, v in values.items()))
    return 0
