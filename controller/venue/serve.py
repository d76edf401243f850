"""`railtable venue` runs here: the venue's MQTT client and its page, until Ctrl-C."""

from __future__ import annotations

import secrets
from pathlib import Path

import uvicorn

from controller.venue.app import create_venue_app
from controller.venue.evening import Evening
from controller.venue.listener import VenueListener
from controller.venue.settings import VenueSettings


def organiser_pin(folder: Path) -> str:
    """The organiser's PIN kept in the venue's folder, made at the first start (six digits)."""
    path = folder / "organiser-pin"
    if path.exists():
        return path.read_text().strip()
    pin = f"{secrets.randbelow(1_000_000):06d}"
    path.write_text(pin + "\n")
    path.chmod(0o600)
    return pin


def run_venue(settings: VenueSettings, folder: Path, listen: str, port: int, pin: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pin = pin or organiser_pin(folder)
    evening = Evening(folder / f"venue-{settings.venue}.sqlite3")
    listener = VenueListener(settings, evening).start()
    app = create_venue_app(evening, pin, settings.venue, health=listener)
    shown = "localhost" if listen in ("0.0.0.0", "::") else listen
    print(
        f"railtable venue: {settings.venue} from {settings.broker.url} on http://{shown}:{port}/ ;"
        f" organiser PIN {pin}; kept in {folder}; Ctrl-C stops it",
        flush=True,
    )
    try:
        uvicorn.run(app, host=listen, port=port, log_level="warning", timeout_graceful_shutdown=2)
    finally:
        listener.stop()
        evening.close()
