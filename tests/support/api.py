"""The HTTP API over a bare table (the live game on its owner's thread, no camera or board)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.game.access import SeatTokens
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader

PIN = "4321"
HOST = {"X-Table-Pin": PIN}


class BareTable:
    """The table as the API sees it, without inputs: the live game on its owner's thread."""

    def __init__(self, path: Path, jpeg: bytes | None = None) -> None:
        self.owner = GameOwner(LiveGame(EventLog(path))).start()
        self.reader = LogReader(path)
        self.pin = PIN
        self.tokens = SeatTokens()
        self.jpeg = jpeg

    def recalibrate(self) -> bool:
        return False

    def camera_jpeg(self) -> bytes | None:
        return self.jpeg


@contextlib.contextmanager
def bare_table(folder: Path, jpeg: bytes | None = None) -> Iterator[BareTable]:
    """A bare table logging to `folder`; its owner's thread stops after."""
    table = BareTable(folder / "log.sqlite3", jpeg)
    try:
        yield table
    finally:
        table.owner.stop()


@contextlib.contextmanager
def api_client(folder: Path, jpeg: bytes | None = None, **options: Any) -> Iterator[TestClient]:
    """FastAPI's test client of the app over a bare table logging to `folder`."""
    with bare_table(folder, jpeg) as table:
        yield TestClient(create_app(table), **options)


def start_game(
    client: TestClient, game: str = "offtherails", players: int = 2, seed: int | None = None
) -> None:
    """The host starts `game` for `players`."""
    body: dict[str, Any] = {"game": game, "options": {"players": players}}
    if seed is not None:
        body["seed"] = seed
    r = client.post("/api/games", json=body, headers=HOST)
    assert r.status_code == 200, r.text


def seat_headers(client: TestClient, seat: int) -> dict[str, str]:
    """The headers of `seat`'s phone, with the token the host issued it."""
    r = client.post(f"/api/seats/{seat}/token", headers=HOST)
    assert r.status_code == 200, r.text
    return {"X-Seat-Token": r.json()["token"]}
