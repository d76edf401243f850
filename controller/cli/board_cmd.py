"""Sub-commands of the `railtable` command line for the sensor board (sim-board, bench link)."""

from __future__ import annotations

import argparse
import math
import sys

from controller.cli._types import Subparsers

MAX_SIDE = 16  # the protocol's largest matrix side (hardware/PROTOCOL.md section 5)

SIM_HELP = """commands on standard input, one per line:
  place ROW COL     put a magnet on a square
  lift ROW COL      take it off
  reset             reset the board (it forgets LEDs and settings)
  unplug SECONDS    pull the USB cable for that long
  corrupt RATE      chance per byte of corruption, both ways (0..1)
  drop RATE         chance per frame of loss, both ways (0..1)
  delay MS          extra delay before each board-to-host frame
  show              print magnets, LEDs and wire counts
  quit              stop"""


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `sim-board` and the `link` bench."""
    sim = commands.add_parser(
        "sim-board",
        help="run the virtual sensor board on a pseudo-terminal",
        description="Run the sensor board's firmware logic on a pseudo-terminal and print the "
        "path to give the host as its serial URL.",
        epilog=SIM_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("--rows", type=int, default=8)
    sim.add_argument("--cols", type=int, default=8)
    sim.add_argument("--baud", type=int, default=115200, help="pace bytes at this rate")
    sim.add_argument("--path", default=None, help="stable symlink to the pty (default: a temp dir)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the fault RNG and board id")
    sim.add_argument("--corrupt", type=float, default=0.0, metavar="RATE")
    sim.add_argument("--drop", type=float, default=0.0, metavar="RATE")
    sim.add_argument("--delay-ms", type=float, default=0.0, metavar="MS")
    sim.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    sim.set_defaults(handler=_sim_board)

    board = commands.add_parser("board", help="the sensor board: watch it talk")
    board_sub = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    watch = board_sub.add_parser(
        "watch", help="print the board's handshake and every magnet placed or lifted"
    )
    watch.add_argument("url", help="serial URL: /dev/serial/by-id/..., or a virtual board's path")
    watch.add_argument("--duration", type=_watch_seconds, default=None, help="stop after S seconds")
    watch.set_defaults(handler=_watch)

    link = benches.add_parser("link", help="latency and delivery of the sensor-board link")
    link.add_argument("--json", action="store_true", help="print one JSON object")
    link.add_argument("--samples", type=int, default=200, help="changes timed one by one")
    link.add_argument("--rows", type=int, default=8)
    link.add_argument("--cols", type=int, default=8)
    link.add_argument("--baud", type=int, default=115200)
    link.add_argument("--seed", type=int, default=1)
    link.add_argument(
        "--throughput-seconds", type=float, default=2.0, help="length of the events_per_s run"
    )
    link.set_defaults(handler=_bench_link)


def _watch_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 86400 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and a day")
    return value


def _watch(args: argparse.Namespace) -> int:
    from controller.tools.board_watch import watch

    return watch(args.url, args.duration)


def _side(flag: str, value: int) -> str | None:
    if 1 <= value <= MAX_SIDE:
        return None
    return f"{flag} must be within 1..{MAX_SIDE}, got {value}"


def _rate(flag: str, value: float) -> str | None:
    if 0.0 <= value <= 1.0:  # False for nan
        return None
    return f"{flag} must be within 0..1, got {value}"


def _non_negative(flag: str, value: float | None, what: str = "number") -> str | None:
    if value is None or (math.isfinite(value) and value >= 0):
        return None
    return f"{flag} must be a finite {what} >= 0, got {value}"


def _refuse(command: str, problems: list[str | None]) -> bool:
    """Print the first problem as `railtable COMMAND: ...`; True when there was one."""
    for problem in problems:
        if problem is not None:
            print(f"railtable {command}: {problem}", file=sys.stderr)
            return True
    return False


def _sim_board(args: argparse.Namespace) -> int:
    import signal
    import threading

    from hardware.sim_console import ConsoleError, Quit, execute
    from hardware.virtual_board import Faults, VirtualBoard

    # Named by their flags, here at the edge: Faults and VirtualBoard name their own fields.
    if _refuse(
        "sim-board",
        [
            _side("--rows", args.rows),
            _side("--cols", args.cols),
            None if args.baud > 0 else f"--baud must be positive, got {args.baud}",
            _rate("--corrupt", args.corrupt),
            _rate("--drop", args.drop),
            _non_negative("--delay-ms", args.delay_ms),
            _non_negative("--duration", args.duration, "number of seconds"),
        ],
    ):
        return 2
    try:
        faults = Faults(corruption_rate=args.corrupt, drop_rate=args.drop, delay_ms=args.delay_ms)
        board = VirtualBoard(
            args.rows, args.cols, baudrate=args.baud, path=args.path, faults=faults, seed=args.seed
        )
        board.start()
    except (ValueError, OSError) as error:
        print(f"railtable sim-board: {error}", file=sys.stderr)
        return 2
    print(board.path, flush=True)
    print(
        f"virtual sensor board {args.rows}x{args.cols} at {board.baudrate} baud on "
        f"{board.device}; give the host the path above as its serial URL",
        file=sys.stderr,
        flush=True,
    )
    finished = threading.Event()

    def console() -> None:
        for line in sys.stdin:
            try:
                reply = execute(board, line)
            except Quit:
                finished.set()
                return
            except ConsoleError as error:
                reply = f"error: {error}"
            if reply:
                print(reply, file=sys.stderr, flush=True)
        # End of input: the board keeps running until --duration is over or Ctrl-C.

    def terminate(signum: int, frame: object) -> None:
        # Remove the symlink on the way out: left behind, it could later point at another
        # program's /dev/pts/N.
        finished.set()

    previous = {sig: signal.signal(sig, terminate) for sig in (signal.SIGTERM, signal.SIGHUP)}
    threading.Thread(target=console, name="sim-board console", daemon=True).start()
    try:
        finished.wait(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        board.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _bench_link(args: argparse.Namespace) -> int:
    from controller.bench import link as link_bench

    throughput = args.throughput_seconds
    if _refuse(
        "bench link",
        [
            _side("--rows", args.rows),
            _side("--cols", args.cols),
            None if args.samples >= 1 else f"--samples must be at least 1, got {args.samples}",
            None if args.baud > 0 else f"--baud must be positive, got {args.baud}",
            None
            if math.isfinite(throughput) and throughput > 0
            else f"--throughput-seconds must be a finite number > 0, got {throughput}",
        ],
    ):
        return 2
    return link_bench.run(args)
