"""Property-based API test from the OpenAPI description (schemathesis): no 500, no response that
breaks its schema, whatever a client sends."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import allow_header_conformance

from controller.api.app import create_app
from controller.game.access import SeatTokens
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader


class Control:
    def __init__(self) -> None:
        path = Path(tempfile.mkdtemp()) / "log.sqlite3"
        self.owner = GameOwner(LiveGame(EventLog(path))).start()
        self.owner.call_sync(lambda game: game.start("offtherails", {"players": 2}, seed=1))
        self.reader = LogReader(path)
        self.pin = "1234"
        self.tokens = SeatTokens()
        self.tokens.issue(0, self.owner.snapshot.game_id)

    def recalibrate(self) -> bool:
        return False

    def camera_jpeg(self) -> bytes | None:
        return None


APP = create_app(Control())
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path="/api/stream")


@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_keeps_its_description(case: Any) -> None:
    # Starlette answers a method a path lacks with the Allow header of the first route that
    # matched the path, not of all of them (GET and POST /api/games are two routes).
    case.call_and_validate(excluded_checks=[allow_header_conformance])
