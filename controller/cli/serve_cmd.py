"""`railtable serve`: the table service; until the service lands, a narrated random game."""

from __future__ import annotations

import argparse

from controller.cli._types import Subparsers


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `serve`."""
    serve = commands.add_parser("serve", help="run the table service (simulated table by default)")
    serve.add_argument("--game", default="offtherails")
    serve.add_argument("--players", type=int, default=4)
    serve.add_argument("--seed", type=int, default=None)
    serve.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from controller.cli.rules_cmd import narrate_random_game

    return narrate_random_game(args.game, args.players, args.seed)
