"""Sub-commands `railtable rules ...` and `railtable bench rules`."""

from __future__ import annotations

import argparse

from controller.cli._types import Subparsers


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `rules list|play|check` and the `rules` bench."""


def narrate_random_game(game: str, players: int, seed: int | None) -> int:
    """Play a random game in the terminal, printing each event."""
    return 0
