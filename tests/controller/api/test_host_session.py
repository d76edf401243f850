"""The host's session (issue 37, part 2): others' wrong PINs never lock out a host who holds one;
the PIN alone waits until the table's button clears the lock-out; a session ends on DELETE, after
12 h unused and on a new PIN; the cookie and the header both carry it; a seat's token is never one;
the token is in no stream, row, view or record."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.api.deps import HOST_COOKIE, PIN_TRIES, TABLE_TRIES, PinGuard
from controller.game.host_sessions import IDLE_S, HostSessions
from controller.table.gpio import GpioPins
from controller.table.service import ServiceSettings, TableService
from tests.support.api import HOST, PIN, BareTable
from tests.support.waiting import wait_until

START = {"game": "trickoftherails", "options": {"players": 4}}


def _from(app: FastAPI, address: str) -> TestClient:
    return TestClient(app, client=(address, 50000))


def _lock_out(app: FastAPI) -> None:
    """TABLE_TRIES wrong PINs from ten addresses: the whole table's tries are used up."""
    guessers = [_from(app, f"10.0.0.{i}") for i in range(10)]
    for n in range(TABLE_TRIES):
        r = guessers[n % 10].get("/api/status", headers={"X-Table-Pin": f"{n:04d}"})
        assert r.status_code == 403, r.text


def _session(client: TestClient) -> str:
    r = client.post("/api/host/session", headers=HOST)
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def test_a_host_with_a_session_is_never_locked_out_by_others_wrong_pins(control: BareTable) -> None:
    app = create_app(control)
    host = _from(app, "10.0.1.1")
    token = _session(host)
    _lock_out(app)
    host.cookies.clear()  # the PIN alone
    by_pin = host.get("/api/status", headers=HOST)
    assert by_pin.status_code == 429, by_pin.text
    said = by_pin.json()["detail"]
    assert "from other phones" in said and "try again in" in said
    assert 0 < int(by_pin.headers["Retry-After"]) <= 60
    session = {"X-Host-Token": token}
    for _ in range(3):  # and the guessers go on
        _from(app, "10.0.0.99").get("/api/status", headers={"X-Table-Pin": "0000"})
        assert host.post("/api/games", json=START, headers=session).status_code == 200
        assert host.get("/api/seats/0/qr", headers=session).status_code == 200
        assert host.post("/api/hints", json={"on": True}, headers=session).status_code == 200
        assert host.get("/api/status", headers=session).json()["you"]["role"] == "host"


def test_a_phones_own_wrong_pins_are_said_as_its_own(control: BareTable) -> None:
    client = _from(create_app(control), "10.0.2.2")
    for n in range(PIN_TRIES):
        assert client.get("/api/status", headers={"X-Table-Pin": f"9{n:03d}"}).status_code == 403
    r = client.get("/api/status", headers=HOST)
    assert r.status_code == 429 and "from this phone" in r.json()["detail"]


def test_the_cookie_and_the_header_both_carry_the_session(control: BareTable) -> None:
    client = TestClient(create_app(control))
    r = client.post("/api/host/session", headers=HOST)
    cookie = r.headers["set-cookie"]
    assert f"{HOST_COOKIE}={r.json()['token']}" in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api" in cookie
    assert r.json()["idle_s"] == IDLE_S and r.headers["cache-control"] == "no-store"
    # the cookie alone (the page): acts as the host
    assert client.post("/api/games", json=START).status_code == 200
    assert client.get("/api/status").json()["you"]["role"] == "host"
    # not when the browser says another site or origin sent the request
    other = {"Sec-Fetch-Site": "cross-site"}
    assert client.post("/api/games", json=START, headers=other).status_code == 403
    other = {"Sec-Fetch-Site": "same-site"}  # another port of the same host
    assert client.post("/api/undo", json={"count": 1}, headers=other).status_code == 403
    token = client.cookies[HOST_COOKIE]
    client.cookies.clear()
    assert client.get("/api/status").json()["you"]["role"] == "spectator"
    r = client.post("/api/games", json=START, headers={"X-Host-Token": token})
    assert r.status_code == 200


def test_a_session_needs_the_pin_and_ends_on_delete(control: BareTable) -> None:
    client = TestClient(create_app(control))
    r = client.post("/api/host/session")
    assert r.status_code == 403 and "X-Table-Pin" in r.json()["detail"]
    assert client.post("/api/host/session", headers={"X-Table-Pin": "0000"}).status_code == 403
    token = _session(client)
    client.cookies.clear()
    # a session does not open another: the PIN does
    assert client.post("/api/host/session", headers={"X-Host-Token": token}).status_code == 403
    r = client.delete("/api/host/session", headers={"X-Host-Token": token})
    assert r.json() == {"ended": 1} and HOST_COOKIE in r.headers["set-cookie"]
    r = client.get("/api/status", headers={"X-Host-Token": token})
    assert r.status_code == 403 and "host session has ended" in r.json()["detail"]
    # by the cookie: DELETE ends it and drops the cookie
    _session(client)
    assert client.get("/api/status").json()["you"]["role"] == "host"
    assert client.delete("/api/host/session").json() == {"ended": 1}
    assert HOST_COOKIE not in client.cookies
    assert client.get("/api/status").json()["you"]["role"] == "spectator"


def test_the_host_may_end_every_session_at_once(control: BareTable) -> None:
    app = create_app(control)
    phones = [TestClient(app) for _ in range(3)]
    tokens = [_session(p) for p in phones]
    assert phones[0].delete("/api/host/session?all=true").json() == {"ended": 3}
    stranger = TestClient(app)
    for token in tokens:
        assert stranger.get("/api/status", headers={"X-Host-Token": token}).status_code == 403
    spectator = TestClient(app)
    r = spectator.delete("/api/host/session?all=true")
    assert r.status_code == 403


def test_a_changed_pin_ends_every_session(control: BareTable) -> None:
    client = TestClient(create_app(control))
    token = _session(client)
    control.pin = "8765"
    r = client.get("/api/status", headers={"X-Host-Token": token})
    assert r.status_code == 403
    client.cookies.clear()
    assert client.post("/api/games", json=START).status_code == 403


def test_a_seats_token_is_never_a_host_session(control: BareTable) -> None:
    client = TestClient(create_app(control))
    assert client.post("/api/games", json=START, headers=HOST).status_code == 200
    seat = client.post("/api/seats/1/token", headers=HOST).json()["token"]
    for header in ({"X-Host-Token": seat}, {"X-Host-Token": "x" * 43}, {"X-Host-Token": ""}):
        assert client.post("/api/undo", json={"count": 1}, headers=header).status_code == 403
    client.cookies.set(HOST_COOKIE, seat)
    assert client.post("/api/undo", json={"count": 1}).status_code == 403
    assert client.get("/api/status").json()["you"]["role"] == "spectator"
    client.cookies.set("railtable_seat", seat)
    assert client.get("/api/status").json()["you"] == {"role": "seat", "seat": 1}


def _stream_text(client: TestClient, **headers: str) -> str:
    """The stream from the first row until its first view, as text."""
    lines = []
    with client.stream("GET", "/api/stream?after=0", headers=headers) as r:
        for line in r.iter_lines():
            lines.append(line)
            if line.startswith("data: ") and lines[-2:-1] == ["event: snapshot"]:
                break
    return "\n".join(lines)


def test_the_session_token_is_in_no_stream_row_view_or_record(control: BareTable) -> None:
    client = TestClient(create_app(control))
    token = _session(client)
    session = {"X-Host-Token": token}
    assert client.post("/api/games", json=START, headers=session).status_code == 200
    client.post("/api/hints", json={"on": False}, headers=session)
    game_id = client.get("/api/status").json()["game"]["id"]
    seen = [
        _stream_text(client),  # with the cookie: the host's own stream
        _stream_text(client, **session),
        json.dumps(client.get("/api/events?after=0", headers=session).json()),
        json.dumps(client.get("/api/state", headers=session).json()),
        json.dumps(client.get("/api/status", headers=session).json()),
        json.dumps(client.get("/api/verdict", headers=session).json()),
        client.get(f"/api/games/{game_id}/record", headers=session).text,
    ]
    assert '"kind"' in seen[0] and "event: snapshot" in seen[0]
    for text in seen:
        assert token not in text
    raw = control.reader.record_json(game_id)
    assert token not in json.dumps(raw)


def test_sessions_are_kept_hashed_and_end_after_twelve_hours_unused(tmp_path: Path) -> None:
    now = [1_000_000.0]
    path = tmp_path / "host-sessions.json"
    sessions = HostSessions(PIN, path, clock=lambda: now[0])
    token = sessions.open()
    sessions.save()
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    assert token not in text and PIN not in text
    now[0] += IDLE_S - 60
    again = HostSessions(PIN, path, clock=lambda: now[0])  # a restart, same PIN
    assert again.check(token)
    now[0] += IDLE_S - 60  # used just now: counted from then
    assert again.check(token)
    now[0] += IDLE_S
    assert not again.check(token)
    assert not again.check("not a token \udcff")


def test_a_restart_with_another_pin_ends_the_sessions_for_good(tmp_path: Path) -> None:
    path = tmp_path / "host-sessions.json"
    sessions = HostSessions(PIN, path)
    token = sessions.open()
    sessions.save()
    assert HostSessions(PIN, path).check(token)
    assert not HostSessions("98765", path).check(token)
    assert not HostSessions(PIN, path).check(token)  # back to the old PIN: still ended
    (tmp_path / "damaged.json").write_text("{not json")
    assert not HostSessions(PIN, tmp_path / "damaged.json").check(token)


def _service(data: Path, pin: str) -> TableService:
    settings = ServiceSettings(
        data_dir=data,
        pin=pin,
        players=2,
        camera="none",
        board="none",
        bots=False,
        gpio=GpioPins(shutdown_button=3, pin_factory="mock"),
    )
    service = TableService(settings)
    service.start()
    return service


def test_the_pin_alone_waits_until_the_tables_button_clears_the_lock_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = _service(tmp_path, PIN)
    try:
        app = create_app(service)
        host = _from(app, "10.0.1.1")
        wait_until(lambda: service.owner.status.get("gpio", {}).get("shutdown_button"), 5)
        _lock_out(app)
        for _ in range(2):
            r = host.get("/api/status", headers=HOST)
            assert r.status_code == 429 and "shutdown button" in r.json()["detail"]
        factory = service.io.factory
        with caplog.at_level(logging.WARNING, logger="railtable"):
            factory.pin(3).drive_low()  # pressed ...
            time.sleep(0.6)
            factory.pin(3).drive_high()  # ... and let go well before the 3 s hold
            guard: PinGuard = app.state.pin_guard
            wait_until(lambda: not guard.everyone, 5)
        assert host.get("/api/status", headers=HOST).json()["you"]["role"] == "host"
        lines = [r.getMessage() for r in caplog.records if "lock-out" in r.getMessage()]
        assert lines == [
            "shutdown button pressed briefly: wrong-PIN lock-out cleared (10 wrong PINs forgotten)"
        ]
        assert service.on_stop is None  # a short press never shuts down
    finally:
        service.stop()


def test_a_restarted_service_keeps_its_sessions_unless_the_pin_changed(tmp_path: Path) -> None:
    service = _service(tmp_path, PIN)
    try:
        token = _session(TestClient(create_app(service)))
    finally:
        service.stop()
    session = {"X-Host-Token": token}
    service = _service(tmp_path, PIN)  # the same PIN: the host mid-game is still the host
    try:
        client = TestClient(create_app(service))
        assert client.get("/api/status", headers=session).json()["you"]["role"] == "host"
    finally:
        service.stop()
    service = _service(tmp_path, "24680")  # `--pin` another: every session ended
    try:
        client = TestClient(create_app(service))
        assert client.get("/api/status", headers=session).status_code == 403
        assert client.get("/api/status", headers={"X-Table-Pin": "24680"}).status_code == 200
    finally:
        service.stop()
