"""`railtable serve`: the table service (the simulated table when no hardware is configured)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import Any

from controller.cli._types import Subparsers

DESCRIPTION = """Run the table service: the referee watching the table, the event log and the HTTP
API for the phones. With no camera and no sensor board configured (the default) it runs the
simulated table: a virtual sensor board, a synthetic camera, and bot players moving pieces on
them, mistakes included, so the whole path runs on any machine. Settings come from the
configuration file (docs/configuration.md); a flag given here wins over the file."""


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `serve`."""
    serve = commands.add_parser(
        "serve", help="run the table service (simulated table by default)", description=DESCRIPTION
    )
    serve.add_argument(
        "--config",
        type=Path,
        default=None,
        help="configuration file (default: $RAILTABLE_CONFIG or /etc/railtable/railtable.toml)",
    )
    serve.add_argument(
        "--game",
        default=None,
        help="the game started on a new table (after a game is over, its end screen stays "
        "until the host starts the next one)",
    )
    serve.add_argument("--players", type=int, default=None)
    serve.add_argument(
        "--seed",
        type=int,
        default=None,
        help="tests and reproducible demos only: the first game draws from this seed, so its "
        "draws are predictable (without it every game draws from a secret of its own)",
    )
    serve.add_argument(
        "--host",
        default=None,
        help="address to listen on (default 0.0.0.0: phones on the table's network reach it; "
        "127.0.0.1 keeps it to this machine)",
    )
    serve.add_argument(
        "--address",
        default=None,
        help="the address phones open, put in the seats' links (default: worked out)",
    )
    serve.add_argument("--port", type=int, default=None, help="default 8080")
    serve.add_argument("--data", type=Path, default=None, help="folder for the event log, the PIN")
    serve.add_argument(
        "--camera",
        default=None,
        help='"simulated", "none", a device index, file or URL, or "picamera2" (a camera '
        'module; "picamera2:1" the second)',
    )
    serve.add_argument("--board", default=None, help='"simulated", "none" or a serial URL')
    serve.add_argument(
        "--pin", default=None, help="the host's table PIN, 4 to 8 digits (default: kept in --data)"
    )
    serve.add_argument("--no-bots", action="store_true", help="the simulated table without bots")
    serve.add_argument(
        "--bot-pace",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the simulated table: a bot's go this often (default 6: a person's pace)",
    )
    serve.add_argument(
        "--ai-iterations",
        type=int,
        default=None,
        help="a computer player's search in iterations (default: its level's time, 1 s normal)",
    )
    serve.add_argument(
        "--speech",
        default=None,
        help='"on", "off" or "auto" (default: on where espeak-ng and a speaker are found, off on '
        "the simulated table): the table says whose turn it is, alerts and the winner",
    )
    serve.add_argument(
        "--language",
        default=None,
        help="the table's voice speaks it: en, de, fr or es (default en; each phone picks its own)",
    )
    serve.set_defaults(handler=_serve)


def _language(given: str) -> Any:
    """`--language` as the configuration file accepts `[table] language`."""
    from controller.words.language import CODES, language_setting

    try:
        return language_setting("--language", given)
    except ValueError:
        raise ValueError(f"--language {given}: must be one of {', '.join(CODES)}") from None


def _pin(given: str, check: Any) -> str:
    """`--pin` as the configuration file accepts `[table] pin` (4 to 8 digits)."""
    try:
        return str(check("--pin", given))
    except ValueError:
        raise ValueError(
            f"--pin {given}: must be 4 to 8 digits, as in the configuration file"
        ) from None


def _speech(given: str, check: Any) -> Any:
    """`--speech` as the configuration file accepts `[table] speech`."""
    try:
        return check("--speech", given)
    except ValueError:
        raise ValueError(f'--speech {given}: must be "auto", "on" or "off"') from None


def _serve(args: argparse.Namespace) -> int:
    from controller.config import (
        check_camera_source,
        check_game,
        check_pin,
        default_path,
        load_config,
    )
    from controller.serve import (
        PhoneAddress,
        configure_logging,
        listen,
        phone_address,
        run_service,
    )
    from controller.table.settings import ServiceSettings
    from controller.table.speech import speech_setting

    config = load_config(args.config if args.config is not None else default_path())
    given = {
        "game": args.game,
        "players": args.players,
        "seed": args.seed,
        "listen": args.host,
        "port": args.port,
        "data_dir": args.data,
        "camera": None if args.camera is None else check_camera_source("--camera", args.camera),
        "board": args.board,
        "pin": None if args.pin is None else _pin(args.pin, check_pin),
        "address": args.address,
        "ai_iterations": args.ai_iterations,
        "bot_pace_s": args.bot_pace,
        "speech": None if args.speech is None else _speech(args.speech, speech_setting),
        "language": None if args.language is None else _language(args.language),
    }
    config = dataclasses.replace(config, **{k: v for k, v in given.items() if v is not None})
    if args.no_bots:
        config = dataclasses.replace(config, bots=False)
    check_game(
        config,
        "--game" if args.game is not None else "[game] name =",
        "--players" if args.players is not None else "[game] players =",
    )
    if config.venue is not None and not config.venue.table:
        raise ValueError(f"{config.path}: [venue] table: missing; each table needs its own name")
    if not 0 <= config.ai_iterations <= 1_000_000:
        raise ValueError(f"--ai-iterations {config.ai_iterations}: must be 0 to 1000000")
    if not 0.05 <= config.bot_pace_s <= 60:
        raise ValueError(f"--bot-pace {config.bot_pace_s:g}: must be 0.05 to 60 seconds")
    if not 1 <= config.port <= 65535:
        raise ValueError(f"--port {config.port}: must be 1 to 65535")
    settings = ServiceSettings(
        data_dir=config.data_dir,
        pin=config.pin,
        game=config.game,
        players=config.players,
        options=dict(config.options),
        seed=config.seed,
        camera=config.camera,
        camera_settings=config.camera_settings,
        board=config.board,
        bots=config.bots,
        bot_period_s=config.bot_pace_s,
        ai_iterations=config.ai_iterations,
        gpio=config.gpio,
        venue=config.venue,
        speech=config.speech,
        language=config.language,
    )
    sock = listen(config.listen, config.port)  # a busy port says so before anything is printed
    configure_logging()
    address: str | PhoneAddress = config.address or PhoneAddress(
        lambda: phone_address(config.listen, config.port)
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_service(settings, sock, address, config.trusted_proxies))
    return 0
