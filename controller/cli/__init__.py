"""The `railtable` command line: one entry point whose sub-commands each area registers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller.cli import (
    board_cmd,
    referee_cmd,
    rules_cmd,
    serve_cmd,
    service_cmd,
    vision_cmd,
)

# Each module adds its own sub-commands and `bench` targets; none of them touches another's.
_AREAS = (rules_cmd, board_cmd, vision_cmd, serve_cmd, referee_cmd, service_cmd)


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
    """Run the command line; returns the process exit code."""
    args = build_parser().parse_args(argv)
    handler = args.handler
    code = handler(args)
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
