"""A full disk (issue 22): HTTP 503 "event log: disk full", said in /api/status and in every
phone's stream, and play resumes by itself when space returns. The disk is filled with SQLite's
own limit (`PRAGMA max_page_count`), which fails a write exactly as a full disk does
(SQLITE_FULL)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.game.live import DISK_FULL, LiveGame
from controller.game.store import EventLog, LogReader, StoreError
from controller.table.service import ServiceSettings, TableService
from tests.support.api import HOST, PIN, BareTable
from tests.support.waiting import wait_until


def fill_disk(game: LiveGame) -> None:
    """On the owner's thread: the log may grow no more, and its free space is used up (big
    ballast rows fill its free pages, then small rows the log's last page, rows a replay passes
    over as it does any input report)."""
    db = game.log.db
    db.execute("CREATE TABLE IF NOT EXISTS ballast (x BLOB)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 1}")
    game_id = db.execute("SELECT MAX(id) FROM games").fetchone()[0]
    for sql, row in [
        ("INSERT INTO ballast VALUES (?)", (b"\0" * 2000,)),
        ("INSERT INTO events (game_id, at, seat, kind, data) VALUES (?, 0, NULL, 'input', '{}')",
         (game_id,)),
    ]:  # fmt: skip
        with pytest.raises(sqlite3.OperationalError, match="full"):
            for _ in range(10_000):
                db.execute(sql, row)


def free_disk(game: LiveGame) -> None:
    game.log.db.execute("PRAGMA max_page_count = 1073741823")


def _snapshot(client: TestClient) -> dict[str, Any]:
    with client.stream("GET", "/api/stream") as r:
        for line in r.iter_lines():
            if line.startswith("data: ") and '"store"' in line:
                return dict(json.loads(line[6:]))
    raise AssertionError("no snapshot")


def test_a_full_disk_is_a_503_and_said_to_everyone_until_space_returns(control: BareTable) -> None:
    client = TestClient(create_app(control))
    start = {"game": "offtherails", "options": {"players": 2}}
    assert client.post("/api/games", json=start, headers=HOST).status_code == 200
    control.owner.call_sync(fill_disk)
    north = {"action": {"type": "choose_side", "side": "north"}}
    for method, path, body in [
        ("POST", "/api/actions", north),
        ("POST", "/api/games/current/end", None),
        ("POST", "/api/games", start),  # a 500 before: starting a game did not say why
    ]:
        r = client.request(method, path, json=body, headers=HOST)
        assert r.status_code == 503 and r.json()["detail"] == DISK_FULL, (path, r.text)
    assert DISK_FULL == "event log: disk full — play is paused until space returns"
    store = client.get("/api/status").json()["store"]  # a spectator sees it too
    assert store == {"state": "failing", "detail": DISK_FULL}
    assert _snapshot(client)["store"] == store
    control.owner.call_sync(free_disk)
    assert client.post("/api/actions", json=north, headers=HOST).status_code == 200
    assert client.get("/api/status").json()["store"] == {"state": "ok", "detail": ""}
    assert _snapshot(client)["store"]["state"] == "ok"


def _replayed_as_played(game: LiveGame) -> bool:
    """Whether the open game's rows, replayed, give the game as it is being played."""
    opened = game.opened()
    return bool(game.log.replay(opened.record).to_json() == opened.state.to_json())


def _refused_writes(service: TableService, monkeypatch: pytest.MonkeyPatch) -> list[StoreError]:
    """From now on, each write to the service's event log that fails, as it fails."""
    log: EventLog = service.owner.call_sync(lambda game: game.log)
    append = log.append
    refused: list[StoreError] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return append(*args, **kwargs)
        except StoreError as error:
            refused.append(error)
            raise

    monkeypatch.setattr(log, "append", counted)
    return refused


def test_play_resumes_by_itself_when_space_returns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ServiceSettings(data_dir=tmp_path, pin=PIN, players=2, seed=4, camera="none",
                               bot_period_s=0.05, tick_s=0.02, mistake_rate=0.0)  # fmt: skip
    service = TableService(settings)
    service.start()
    try:
        reader = LogReader(tmp_path / "railtable.sqlite3")
        wait_until(lambda: reader.last_id() > 3, 30, every=0.05)  # the bots play
        service.owner.call_sync(fill_disk)

        def store() -> dict[str, Any]:
            return dict(service.owner.snapshot.status()["store"])

        wait_until(lambda: store()["state"] == "failing", 30, every=0.05)
        assert store()["detail"] == DISK_FULL
        rows = reader.last_id()
        refused = _refused_writes(service, monkeypatch)
        # the table is judged again once a second while the log cannot be written: two refused
        # writes prove the bots' move was tried again and nothing got through
        wait_until(lambda: len(refused) >= 2, 30, every=0.05)
        assert reader.last_id() == rows  # paused: nothing half-written, no bot moving on
        service.owner.call_sync(free_disk)  # space returns; nobody touches a phone
        wait_until(lambda: store()["state"] == "ok", 30, every=0.05)
        wait_until(lambda: reader.last_id() > rows + 3, 30, every=0.05)  # the bots play on
        assert service.owner.call_sync(_replayed_as_played)
        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert said == [
            f"{DISK_FULL}: event log {reader.path} cannot be written: database or disk is full"
        ], said  # once, in one line; no traceback
    finally:
        service.stop()
