"""No route waits on the HTTP event loop (issue 22): with the game's owner, the log reader and the
camera made slow on purpose, every route of the API is called at once while a watchdog measures
how late the loop runs a 10 ms timer. A handler that waited for the slow part on the loop (the
owner's `call_sync`, a SQLite read, a picture drawn) would hold every phone for as long."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx
from fastapi import FastAPI

from controller.api.app import create_app
from controller.api.deps import TableDep
from controller.game.access import SeatTokens
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader

T = TypeVar("T")
PIN = "4321"
SLOW_S = 2.0  # each call into the owner, the log reader or the camera takes this long
LATE_S = 1.0  # the loop may run a timer this late at most (a blocking wait makes it SLOW_S;
# a loaded machine alone has made it 0.77 s late)


class SlowOwner(GameOwner):
    """The game's owner, each command SLOW_S late (a referee search, a busy machine)."""

    slow_calls = 0

    def submit(self, command: Callable[[LiveGame], T]) -> Any:
        def slow(game: LiveGame) -> T:
            SlowOwner.slow_calls += 1
            time.sleep(SLOW_S)
            return command(game)

        return super().submit(slow)


class SlowReader:
    """The log reader, each read SLOW_S late (a slow SD card)."""

    def __init__(self, reader: LogReader) -> None:
        self.reader = reader
        self.slow_calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.reader, name)

        def slow(*args: Any, **kwargs: Any) -> Any:
            self.slow_calls += 1
            time.sleep(SLOW_S)
            return method(*args, **kwargs)

        return slow


class Control:
    def __init__(self, path: Path) -> None:
        self.owner = SlowOwner(LiveGame(EventLog(path))).start()
        self.slow_reader = SlowReader(LogReader(path))
        self.reader = cast(LogReader, self.slow_reader)  # a stand-in that passes every read on
        self.pin = PIN
        self.tokens = SeatTokens()

    def recalibrate(self) -> bool:
        time.sleep(SLOW_S)
        return True

    def camera_jpeg(self) -> bytes | None:
        time.sleep(SLOW_S)
        return b"\xff\xd8\xff\xd9"


class Watchdog:
    """How late the running loop fires a 10 ms timer, at worst."""

    def __init__(self) -> None:
        self.worst_s = 0.0

    async def run(self) -> None:
        while True:
            due = time.perf_counter() + 0.01
            await asyncio.sleep(0.01)
            self.worst_s = max(self.worst_s, time.perf_counter() - due)


BODIES: dict[str, Any] = {
    "/api/actions": {"action": {"type": "choose_side", "side": "north"}},
    "/api/answer": {"option": 0},
    "/api/games": {"game": "offtherails", "options": {"players": 2}, "seed": 1},
    "/api/undo": {"count": 1},
}


def _routes(app: FastAPI) -> list[tuple[str, str, Any]]:
    """Every route the API describes (method, path with its parameters filled in, body), the
    page and one of its scripts."""
    calls: list[tuple[str, str, Any]] = [("GET", "/", None), ("GET", "/static/js/main.js", None)]
    for route, operations in app.openapi()["paths"].items():
        path = route.format(game_id=1, seat=0, name="offtherails")
        calls += [(method.upper(), path, BODIES.get(route)) for method in operations]
    return calls


async def _every_route(app: FastAPI, control: Control) -> tuple[Watchdog, dict[str, int]]:
    await control.owner.call(lambda game: game.start("offtherails", {"players": 2}, seed=1))
    await control.owner.call(lambda game: game.end())
    await control.owner.call(lambda game: game.start("offtherails", {"players": 2}, seed=2))
    control.tokens.issue(0, control.owner.snapshot.game_id)
    watchdog = Watchdog()
    dog = asyncio.create_task(watchdog.run())
    codes: dict[str, int] = {}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://table") as client:
        host = {"X-Table-Pin": PIN}

        async def call(method: str, path: str, body: Any) -> None:
            r = await client.request(method, path, json=body or None, headers=host)
            codes[f"{method} {path}"] = r.status_code

        async def stream() -> None:  # its catch-up reads the (slow) log
            await client.get("/api/stream?after=0", headers=host)

        streaming = asyncio.create_task(stream())
        await asyncio.gather(*(call(*c) for c in _routes(app) if c[1] != "/api/stream"))
        await asyncio.sleep(SLOW_S * 2)
        streaming.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await streaming
    dog.cancel()
    return watchdog, codes


def _run(app: FastAPI, control: Control) -> tuple[Watchdog, dict[str, int]]:
    try:
        return asyncio.run(_every_route(app, control))
    finally:
        control.owner.stop()


def test_no_route_waits_on_the_event_loop_while_the_owner_is_slow(tmp_path: Path) -> None:
    control = Control(tmp_path / "log.sqlite3")
    app = create_app(control)
    SlowOwner.slow_calls = 0
    watchdog, codes = _run(app, control)
    assert len(codes) >= 23 and all(code < 500 for code in codes.values()), codes
    assert codes["GET /api/games/1/replay"] == 200 and codes["GET /api/camera.jpg"] == 200
    assert SlowOwner.slow_calls >= 8 and control.slow_reader.slow_calls >= 5  # the slow parts ran
    assert watchdog.worst_s < LATE_S, f"the loop ran a timer {watchdog.worst_s:.2f} s late"


def test_the_watchdog_catches_a_handler_that_waits_on_the_loop(tmp_path: Path) -> None:
    control = Control(tmp_path / "log.sqlite3")
    app = create_app(control)

    @app.get("/api/waits")
    async def waits(table: TableDep) -> int:  # the mistake the test above must catch
        return table.owner.call_sync(lambda game: game.changes)

    watchdog, codes = _run(app, control)
    assert codes["GET /api/waits"] == 200
    assert watchdog.worst_s >= SLOW_S * 0.9
