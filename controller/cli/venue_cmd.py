"""`railtable venue` (every table of the venue on one page) and `railtable bench venue`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path

from controller.cli._types import Subparsers, UsageError, whole_between

DESCRIPTION = """Subscribe to the venue's MQTT broker and serve the venue page: every table live,
a table that needs help highlighted, standings from the games finished, a tournament mode and
CSV exports (docs/venue.md). Runs on any machine of the venue. The broker, user, password and
CA file come from the [venue] section of the configuration file; flags win over it. The
password may also come from $RAILTABLE_VENUE_PASSWORD."""


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add `venue` and the `venue` bench target."""
    venue = commands.add_parser("venue", help="the venue page: every table, standings",
                                description=DESCRIPTION)  # fmt: skip
    venue.add_argument("--config", type=Path, default=None, help="configuration file")
    venue.add_argument("--broker", default=None, help="mqtt://host[:port] or mqtts://...")
    venue.add_argument("--venue", default=None, help="the venue's name (its topic level)")
    venue.add_argument("--user", default=None, help='the broker user (default "venue")')
    venue.add_argument("--listen", default="127.0.0.1", help='"0.0.0.0" lets phones in')
    venue.add_argument("--port", type=int, default=8090, help="default 8090")
    venue.add_argument("--data", type=Path, default=None, help="folder for the evening's file")
    venue.add_argument("--pin", default="", help="the organiser's PIN (default: kept in --data)")
    venue.set_defaults(handler=_venue)

    bench = benches.add_parser(
        "venue", help="many simulated tables through one Mosquitto: latency, nothing lost"
    )
    bench.add_argument("--tables", type=_count, default=50, help="tables playing at once")
    bench.add_argument("--minutes", type=float, default=2.0, help="length of the evening")
    bench.add_argument("--unplug-s", type=float, default=60.0, help="one table unplugged this long")
    bench.add_argument("--moves-per-s", type=float, default=1.0, help="each table's pace")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=_bench)


_count = whole_between(1, 1000)


def _venue(args: argparse.Namespace) -> int:
    from controller.config import default_path, load_config
    from controller.venue.serve import run_venue
    from controller.venue.settings import (
        VenueSettingError,
        VenueSettings,
        check_name,
        parse_broker,
    )

    config = load_config(args.config if args.config is not None else default_path())
    try:
        settings = config.venue
        if args.broker is not None:
            broker = parse_broker("--broker", args.broker)
            settings = (
                VenueSettings(broker) if settings is None
                else dataclasses.replace(settings, broker=broker)
            )  # fmt: skip
        if settings is None:
            raise UsageError("no broker: give --broker mqtt://host or set [venue] broker")
        if args.venue is not None:
            settings = dataclasses.replace(settings, venue=check_name("--venue", args.venue))
    except VenueSettingError as error:
        raise UsageError(str(error)) from None
    user = args.user or settings.username or "venue"
    password = os.environ.get("RAILTABLE_VENUE_PASSWORD", settings.password)
    settings = dataclasses.replace(settings, username=user, password=password, table="")
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: must be 1 to 65535")
    folder = (
        args.data
        or Path(
            os.environ.get("RAILTABLE_VENUE_DATA", "~/.local/share/railtable-venue")
        ).expanduser()
    )
    run_venue(settings, folder, args.listen, args.port, args.pin)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from controller.bench.venue import run

    figures = run(args.tables, args.minutes * 60, args.unplug_s, args.moves_per_s)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    return 0 if figures["events_lost"] == 0 and figures["events_doubled"] == 0 else 1
