"""What 200 phones and a burst of requests cost the service (issue 22): a row is encoded once for
every phone of an audience, a phone's catch-up of the open game reads no log, and a burst of log
reads adds no thread that stays after it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from controller.api import stream
from controller.api.app import create_app
from controller.api.game_routes import rendered_rows
from controller.game.access import Asker, SeatTokens
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader

PIN = "4321"
CHOOSE = {"type": "choose_side", "side": "north"}
PLACE = {"type": "place_tile", "square": "B2", "exits": "NS"}


class CountingReader:
    """The log reader, each read counted and `delay_s` slow (an SD card)."""

    def __init__(self, reader: LogReader, delay_s: float = 0.0) -> None:
        self.reader = reader
        self.delay_s = delay_s
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.reader, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            time.sleep(self.delay_s)
            return method(*args, **kwargs)

        return counted


class Control:
    def __init__(self, path: Path, delay_s: float = 0.0) -> None:
        self.owner = GameOwner(LiveGame(EventLog(path))).start()
        self.counted = CountingReader(LogReader(path), delay_s)
        self.reader = cast(LogReader, self.counted)  # a stand-in that passes every read on
        self.pin = PIN
        self.tokens = SeatTokens()

    def recalibrate(self) -> bool:
        return False

    def camera_jpeg(self) -> bytes | None:
        return None


async def _started(control: Control) -> None:
    await control.owner.call(lambda game: game.start("offtherails", {"players": 2}, seed=1))
    await control.owner.call(lambda game: game.act(Asker.at(0), CHOOSE))


def test_a_row_is_encoded_once_for_every_phone_of_an_audience(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    control = Control(tmp_path / "log.sqlite3")
    encoded: list[int] = []
    line = stream._line

    def counted(row: int, kind: str, data: dict[str, Any]) -> bytes:
        encoded.append(row)
        return line(row, kind, data)

    monkeypatch.setattr(stream, "_line", counted)

    async def phones() -> list[bytes]:
        await _started(control)
        spectators = [stream._events(control, Asker.spectator(), None) for _ in range(40)]
        seats = [stream._events(control, Asker.at(1), None) for _ in range(10)]
        everyone = spectators + seats
        for phone in everyone:
            assert (await anext(phone)).startswith(b"event: snapshot")  # the view on connecting
        await control.owner.call(lambda game: game.act(Asker.at(0), PLACE))
        got = [await anext(phone) for phone in everyone]
        for phone in everyone:
            await phone.aclose()
        return got

    try:
        got = asyncio.run(phones())
    finally:
        control.owner.stop()
    rows = got[0].count(b"id: ")
    assert rows >= 1 and all(chunk.count(b"id: ") == rows for chunk in got), got
    assert all(chunk == got[0] for chunk in got[:40])  # the spectators' bytes alike
    assert len(encoded) == 2 * rows, encoded  # each row for two audiences, not for 50 phones


def test_a_catch_up_of_the_open_game_reads_no_log_and_says_what_the_log_says(
    tmp_path: Path,
) -> None:
    control = Control(tmp_path / "log.sqlite3")

    async def catch_up(who: Asker) -> bytes:
        phone = stream._events(control, who, 0)
        chunk = await anext(phone)
        await phone.aclose()
        return chunk

    async def run() -> tuple[bytes, bytes, int, list[dict[str, Any]], list[dict[str, Any]]]:
        await _started(control)
        await control.owner.call(lambda game: game.act(Asker.at(0), PLACE))
        reads = control.counted.calls
        spectator, seat = await catch_up(Asker.spectator()), await catch_up(Asker.at(0))
        reads = control.counted.calls - reads
        game_id = control.owner.snapshot.game_id
        return (
            spectator,
            seat,
            reads,
            rendered_rows(control, Asker.spectator(), game_id, 0, 500),
            rendered_rows(control, Asker.at(0), game_id, 0, 500),
        )

    try:
        spectator, seat, reads, from_log, seat_from_log = asyncio.run(run())
    finally:
        control.owner.stop()
    assert reads == 0  # a backlog stream, however many, costs no SQLite read nor rendering
    assert len(from_log) >= 3
    assert spectator == b"".join(stream._line(r["id"], r["kind"], r) for r in from_log)
    assert seat == b"".join(stream._line(r["id"], r["kind"], r) for r in seat_from_log)


def test_rows_of_an_earlier_game_or_before_the_owner_started_come_from_the_log(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.sqlite3"
    first = Control(path)
    asyncio.run(_started(first))
    first.owner.stop()
    control = Control(path)  # the service restarted: the open game's rows are only in the log

    async def run() -> tuple[bytes, int]:
        await control.owner.call(lambda game: game.resume())
        await control.owner.call(lambda game: game.act(Asker.at(0), PLACE))
        phone = stream._events(control, Asker.spectator(), 0)
        chunk = await anext(phone)
        await phone.aclose()
        return chunk, control.counted.calls

    try:
        chunk, reads = asyncio.run(run())
    finally:
        control.owner.stop()
    assert reads > 0 and chunk.count(b"event: ") >= 3 and b"event: action" in chunk
    game_id = control.owner.snapshot.game_id
    assert game_id is not None
    kept = control.owner.rows_after(game_id, 0, 500)
    assert kept is None  # the rows before the restart are not kept
    last = control.owner.last_row()
    assert [r.id for r in control.owner.rows_after(game_id, last - 1, 500) or []] == [last]


def test_a_burst_of_log_reads_leaves_no_thread_behind(tmp_path: Path) -> None:
    control = Control(tmp_path / "log.sqlite3", delay_s=0.05)
    app = create_app(control)

    async def burst() -> tuple[int, int]:
        await _started(control)
        before = threading.active_count()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://table") as client:
            answers = await asyncio.gather(*(client.get("/api/events") for _ in range(30)))
        assert all(a.status_code == 200 and a.json() for a in answers)
        return before, threading.active_count()

    try:
        before, after = asyncio.run(burst())
    finally:
        control.owner.stop()
    assert control.counted.calls >= 30
    assert after == before, f"{after - before} threads more after the burst"


def test_long_catch_ups_take_turns_for_the_whole_table() -> None:
    """Clients asking for every row again and again wait their turn (on no thread, for no work);
    what a phone asks for when it comes back after a moment does not."""
    pacer = stream.Pacer(per_s=20.0)

    async def turns(count: int) -> float:
        started = asyncio.get_running_loop().time()
        await asyncio.gather(*(pacer.turn() for _ in range(count)))
        return asyncio.get_running_loop().time() - started

    assert asyncio.run(turns(1)) < 0.04
    assert asyncio.run(turns(6)) >= 6 / 20.0 - 0.01  # the first of these waits for the last
    assert stream.SMALL_CATCH_UP >= 50 and stream.LONG_CATCH_UPS_PER_S >= 10
