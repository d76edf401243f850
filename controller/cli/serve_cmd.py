"""`railtable serve`: the table service (the simulated table when no hardware is configured)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from pathlib import Path

from controller.cli._types import Subparsers

DESCRIPTION = """Run the table service: the referee watching the table, the event log and the HTTP
API for the phones. With no camera and no sensor board configured (the default) it runs the
simulated table: a virtual sensor board, a synthetic camera, and bot players moving pieces on
them, mistakes included, so the whole path runs on any machine."""


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `serve`."""
    serve = commands.add_parser(
        "serve", help="run the table service (simulated table by default)", description=DESCRIPTION
    )
    serve.add_argument("--game", default="offtherails", help="the game started when none is open")
    serve.add_argument("--players", type=int, default=4)
    serve.add_argument("--seed", type=int, default=None)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("RAILTABLE_DATA", "~/.local/share/railtable")).expanduser(),
        help="folder for the event log and the PIN",
    )
    serve.add_argument("--camera", default="simulated", help='"simulated", "none" or a source')
    serve.add_argument("--board", default="simulated", help='"simulated", "none" or a serial URL')
    serve.add_argument("--pin", default="", help="the host's table PIN (default: kept in --data)")
    serve.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    import rules
    from controller.serve import configure_logging, run_service
    from controller.service import ServiceSettings

    info = rules.game_info(args.game)  # KeyError: unknown game, one line from the CLI
    if not info.min_players <= args.players <= info.max_players:
        raise ValueError(
            f"--players {args.players}: {info.title} takes {info.min_players} to "
            f"{info.max_players} players"
        )
    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port {args.port}: must be 1 to 65535")
    settings = ServiceSettings(
        data_dir=args.data,
        pin=args.pin,
        game=args.game,
        players=args.players,
        seed=args.seed,
        camera=args.camera,
        board=args.board,
    )
    configure_logging()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_service(settings, args.host, args.port))
    return 0
