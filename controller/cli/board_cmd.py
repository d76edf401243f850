"""Sub-commands of the `railtable` command line for the sensor board (sim-board, bench link)."""

from __future__ import annotations

from controller.cli._types import Subparsers


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add this area's sub-commands and bench targets."""
