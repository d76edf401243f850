"""What the venue's tests share: the test broker's users, settings to reach it, waiting."""

from __future__ import annotations

from pathlib import Path

from controller.venue.broker import Mosquitto
from controller.venue.settings import Broker, VenueSettings

VENUE = "club"
PASSWORDS = {"venue": "venue-pw", "table-1": "pw-1", "table-2": "pw-2", "table-3": "pw-3"}


def settings(broker: Mosquitto, table: str = "", user: str = "") -> VenueSettings:
    """How a table (or, with no table, the venue page) reaches the test broker."""
    name = user or table or "venue"
    return VenueSettings(
        broker=Broker("127.0.0.1", broker.port),
        venue=VENUE,
        table=table,
        username=user or ("" if table else "venue"),
        password=PASSWORDS.get(name, "wrong"),
    )


def folder(tmp_path: Path, name: str) -> Path:
    made = tmp_path / name
    made.mkdir(parents=True, exist_ok=True)
    return made
