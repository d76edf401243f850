"""The `railtable` command line: one entry point whose sub-commands each area registers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller.cli import (
    ai_cmd,
    bench_cmd,
    board_cmd,
    doctor_cmd,
    referee_cmd,
    rules_cmd,
    serve_cmd,
    venue_cmd,
    vision_cmd,
)
from controller.cli._types import UsageError

# Each module adds its own sub-commands and `bench` targets; none of them touches another's.
_AREAS = (
    rules_cmd,
    ai_cmd,
    board_cmd,
    vision_cmd,
    serve_cmd,
    referee_cmd,
    bench_cmd,
    doctor_cmd,
    venue_cmd,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="railtable",
        description="Referee and scorekeeper for a physical rail game table.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", help="measure speed and figures; prints them")
    benches = bench.add_subparsers(dest="bench_target", required=True, metavar="TARGET")
    for area in _AREAS:
        area.register(commands, benches)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code (2: the input was wrong)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except Exception as error:
        if not isinstance(error, expected()):
            raise
        print(f"railtable {command_name(args)}: {explain(error)}", file=sys.stderr)
        return 2


EXPECTED: tuple[type[Exception], ...] = (UsageError, ValueError, KeyError, OSError)
"""What a user's input can cause (a bad flag value, an unknown game, a file that is not there);
anything else is a bug and keeps its traceback. An event log that cannot be read (`StoreError`)
too: see `expected`."""


def expected() -> tuple[type[Exception], ...]:
    """`EXPECTED`, and `StoreError` once the event log's module is loaded (only it raises one: the
    command line itself loads nothing heavy, so `serve` answers at once)."""
    store = sys.modules.get("controller.game.store")
    return EXPECTED if store is None else (*EXPECTED, store.StoreError)


def command_name(args: argparse.Namespace) -> str:
    """`rules check`, `bench link`, `markers`: the command as the user typed it."""
    words = [args.command]
    for sub in ("rules_command", "bench_target", "board_command"):
        value = getattr(args, sub, None)
        if isinstance(value, str):
            words.append(value)
    return " ".join(words)


def explain(error: BaseException) -> str:
    """One line naming what was wrong."""
    if isinstance(error, KeyError) and error.args:
        return str(error.args[0])
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror or error}: {error.filename}"
    return str(error) or type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
