"""`railtable bench crash` (pulled plugs), `bench e2e` (the service's latency), `bench stress`,
`bench load` (phones, requests and hostile clients from another process), `bench pi` (the Pi
budget's figures in one go, with their estimates on a Pi 4 and a Pi 5)."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from controller.bench import COMPUTER_ITERATIONS
from controller.cli._types import (
    Subparsers,
    UsageError,
    positive,
    positive_number,
    whole_between,
)


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add the `crash`, `e2e`, `stress`, `load`, `table` and `pi` bench targets."""
    _add_crash(benches)
    _add_e2e(benches)
    _add_stress(benches)
    _add_load(benches)
    _add_table(benches)
    _add_pi(benches)


def _add_pi(benches: Subparsers) -> None:
    """`bench pi`: the Pi budget's figures, small, with Pi 4 and Pi 5 estimates."""
    pi = benches.add_parser(
        "pi",
        help="the referee, the camera's reads, the start-up and the table's work per move, run "
        "small in one go: each figure, its budget here, and its estimate on a Pi 4 and a Pi 5",
    )
    pi.add_argument("--json", action="store_true", help="print one JSON object")
    pi.add_argument(
        "--game",
        action="append",
        default=[],
        help="a game for the referee's and the table's figures (default: every one)",
    )
    pi.add_argument("--seeds", type=positive, default=1, help="bench referee: bot games per game")
    pi.add_argument("--moves", type=positive, default=12, help="bench vision: moves rendered")
    pi.add_argument("--samples", type=positive, default=6, help="bench e2e: changes timed")
    pi.set_defaults(handler=_pi)


def _add_crash(benches: Subparsers) -> None:
    """`bench crash`: pulled plugs in a scripted game."""
    crash = benches.add_parser(
        "crash", help="SIGKILL a scripted game at random points; nothing accepted may be lost"
    )
    crash.add_argument("--kills", type=positive, default=20, help="how many times to kill it")
    crash.add_argument("--json", action="store_true", help="print one JSON object")
    crash.add_argument("--seed", type=int, default=1, help="seed of the moments chosen")
    crash.set_defaults(handler=_crash)


def _add_e2e(benches: Subparsers) -> None:
    """`bench e2e`: a magnet's way to a phone, memory, start-up."""
    e2e = benches.add_parser(
        "e2e", help="magnet placed to event at an SSE client; memory; start-up time"
    )
    e2e.add_argument("--json", action="store_true", help="print one JSON object")
    e2e.add_argument("--samples", type=positive, default=20, help="changes timed")
    e2e.add_argument("--phones", type=positive, default=1, help="SSE clients listening")
    e2e.set_defaults(handler=_e2e)


def _add_stress(benches: Subparsers) -> None:
    """`bench stress`: phones posting and reading while the bots play."""
    stress = benches.add_parser(
        "stress",
        help="phones posting and reading while the bots play: one owner, committed reads only",
    )
    stress.add_argument("--minutes", type=positive_number, default=1.0, help="how long")
    stress.add_argument("--phones", type=positive, default=8, help="phone threads")
    stress.add_argument(
        "--busy", type=_count, default=0, help="processes burning CPU beside it (default 0)"
    )
    stress.add_argument(
        "--camera-flat-out",
        action="store_true",
        help="the simulated camera draws and reads frames all the while (never resting while "
        "its table does), as a real camera's frames keep coming",
    )
    stress.add_argument("--json", action="store_true", help="print one JSON object")
    stress.set_defaults(handler=_stress)


def _add_load(benches: Subparsers) -> None:
    """`bench load`: phones, requests and hostile clients from another process."""
    load = benches.add_parser(
        "load",
        help="the service under phones, requests and hostile clients, run from another process",
    )
    load.add_argument("--seconds", type=whole_between(1, 600), default=60, help="how long the load")
    load.add_argument("--phones", type=whole_between(0, 1000), default=200, help="live streams")
    load.add_argument(
        "--rate", type=whole_between(1, 1000), default=50, help="status requests a second"
    )
    load.add_argument(
        "--hostile",
        type=whole_between(0, 200),
        default=20,
        help="hostile clients, six kinds in turn: backlog streams, slow headers, PIN guessers, "
        "slow bodies, stream bursts, rename floods",
    )
    load.add_argument(
        "--after",
        type=whole_between(0, 600),
        default=60,
        help="seconds before memory is read again",
    )
    load.add_argument(
        "--warm-up",
        type=whole_between(0, 120),
        default=10,
        help="seconds of bots before the clients",
    )
    load.add_argument("--camera", choices=["simulated", "none"], default="simulated")
    load.add_argument("--json", action="store_true", help="print one JSON object")
    load.set_defaults(handler=_load)


def _add_table(benches: Subparsers) -> None:
    """`bench table`: whole games on the simulated table."""
    table = benches.add_parser(
        "table", help="whole games on the simulated table, flat out: finished, stalls, mistakes"
    )
    table.add_argument("--game", required=True, help="a game from `railtable rules list`")
    table.add_argument("--players", type=positive, required=True)
    table.add_argument(
        "--inputs", choices=["both", "camera", "sensors"], default="both", help="what sees it"
    )
    table.add_argument("--games", type=positive, default=5, help="games, seeds from --seed")
    table.add_argument("--seed", type=positive, default=1, help="the first game's seed")
    table.add_argument(
        "--computers",
        type=whole_between(0, 6),
        default=0,
        help="the last this many seats are computer players (normal level, a search of "
        f"{COMPUTER_ITERATIONS} iterations), the bots laying their moves (default 0)",
    )
    table.add_argument("--json", action="store_true", help="print one JSON object")
    table.set_defaults(handler=_table)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is less than 0")
    return value


def _stress(args: argparse.Namespace) -> int:
    from controller.bench.stress import run

    with tempfile.TemporaryDirectory(prefix="railtable-stress-") as folder:
        report = run(
            args.minutes * 60,
            Path(folder),
            phones=args.phones,
            busy=args.busy,
            camera_flat_out=args.camera_flat_out,
        )
    figures = report.to_json()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:26} {value}")
    return 0 if report.passed else 1


def _load(args: argparse.Namespace) -> int:
    from controller.bench.load import run

    report = run(
        args.seconds, args.phones, args.rate, args.hostile, args.after, args.warm_up, args.camera
    )
    figures = report.to_json()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    return 0


def _table(args: argparse.Namespace) -> int:
    from controller.bench.table import Inputs, run
    from controller.config import Config, check_game

    check_game(Config(game=args.game, players=args.players), "--game", "--players")
    if args.computers > args.players:
        raise UsageError(f"--computers {args.computers}: more than --players {args.players}")
    figures = run(
        args.game, args.players, Inputs(args.inputs), args.games, args.seed,
        computers=args.computers,
    )  # fmt: skip
    out = {
        "game": args.game,
        "players": args.players,
        "inputs": args.inputs,
        "computers": args.computers,
        **figures.to_json(),
    }
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:28} {value}")
    return 0


def _pi(args: argparse.Namespace) -> int:
    from controller.bench.pi import PiSettings, lines, run
    from controller.config import Config, check_game

    for game in args.game:
        check_game(Config(game=game, players=2), "--game", "--players")
    games = tuple(args.game)
    report = run(
        PiSettings(
            referee_games=games,
            referee_seeds=args.seeds,
            vision_moves=args.moves,
            e2e_samples=args.samples,
            table_games=games,
        )
    )
    if args.json:
        print(json.dumps(report))
    else:
        print("\n".join(lines(report)))
    return 0


def _crash(args: argparse.Namespace) -> int:
    from controller.bench.crash import run

    with tempfile.TemporaryDirectory(prefix="railtable-crash-") as folder:
        report = run(args.kills, Path(folder), rng_seed=args.seed)
    figures = report.to_json()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:14} {value}")
    return 0 if report.lost == 0 and report.mismatches == 0 else 1


def _e2e(args: argparse.Namespace) -> int:
    from controller.bench.e2e import bench

    figures = bench(args.samples, args.phones)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:24} {value}")
    return 0
