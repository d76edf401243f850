"""Start-up in two phases: the starting app answers the status, the page and 503s before the full
app exists, the hand-over keeps a phone's connection, and `railtable serve` answers while its
heavy half is held back (a gate file, not a timing), stops on SIGTERM then, and says a start-up
error in one line."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from controller.api.app import create_app
from controller.api.server import server_config
from controller.api.starting import RETRY_AFTER_S, Handover, starting_app
from controller.serve import START_GATE
from tests.support.api import BareTable
from tests.support.serving import MAIN, answering, free_port
from tests.support.waiting import wait_until


def _asgi(app: Handover | object) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://table")  # type: ignore[arg-type]


def test_the_starting_app_answers_status_page_and_503() -> None:
    async def asked() -> list[httpx.Response]:
        async with _asgi(starting_app) as client:
            return [
                await client.get("/api/status"),
                await client.get("/"),
                await client.get("/api/games/available"),
                await client.post("/api/actions", json={"action": {"type": "x"}}),
                await client.post("/api/status"),
            ]

    status, page, games, action, posted = asyncio.run(asked())
    assert status.status_code == 200
    assert status.json()["starting"] is True and status.json()["state"] == "starting"
    assert status.json()["you"]["role"] == "spectator"
    assert page.status_code == 200 and "The table is starting" in page.text
    assert 'http-equiv="refresh"' in page.text  # it carries on by itself
    for refused in (games, action, posted):
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == str(RETRY_AFTER_S)
        assert refused.json()["starting"] is True


def test_the_starting_page_speaks_the_phones_language() -> None:
    """By the browser's Accept-Language, or the phone's own choice (its cookie) before it."""

    async def asked() -> list[httpx.Response]:
        async with _asgi(starting_app) as client:
            german = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"}
            return [
                await client.get("/", headers=german),
                await client.get("/api/status", headers={"Accept-Language": "fr"}),
                await client.get("/", headers={**german, "Cookie": "railtable-language=es"}),
                await client.get("/api/games", headers=german),
                await client.get("/", headers={"Cookie": "railtable-language=<x>; bad"}),
            ]

    german, french, spanish, refused, odd = asyncio.run(asked())
    assert '<html lang="de">' in german.text and "Der Tisch startet" in german.text
    assert "The table is starting" not in german.text
    assert french.json()["detail"] == "la table démarre"
    assert french.json()["starting"] is True and french.json()["state"] == "starting"
    assert '<html lang="es">' in spanish.text and "La mesa está arrancando" in spanish.text
    assert refused.status_code == 503 and refused.json()["detail"] == "der Tisch startet"
    assert '<html lang="en">' in odd.text and "The table is starting" in odd.text


def test_the_handover_answers_with_the_full_app_once_ready(tmp_path: Path) -> None:
    handover = Handover()
    control = BareTable(tmp_path / "log.sqlite3")

    async def asked() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        async with _asgi(handover) as client:
            before = await client.get("/api/status")
            handover.ready(create_app(control))
            return before, await client.get("/api/status"), await client.get("/api/games/available")

    try:
        before, after, games = asyncio.run(asked())
    finally:
        control.owner.stop()
    assert before.json()["starting"] is True and handover.is_ready
    assert after.status_code == 200 and after.json()["starting"] is False
    assert games.status_code == 200 and games.json()


def _ask(conn: socket.socket, path: str) -> bytes:
    """One request on a kept-alive connection; the whole answer (by its Content-Length)."""
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.fixture
def handed_over(tmp_path: Path) -> Iterator[tuple[Handover, BareTable, int]]:
    """A server over a Handover on a loopback port (the starting app's until told)."""
    handover, control, port = Handover(), BareTable(tmp_path / "log.sqlite3"), free_port()
    server = uvicorn.Server(server_config(handover, "127.0.0.1", port, loop="asyncio"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, 10, "the server started", every=0.02)
        yield handover, control, port
    finally:
        server.should_exit = True
        thread.join(10)
        control.owner.stop()


def test_a_connection_opened_while_starting_is_answered_by_the_full_app_after(
    handed_over: tuple[Handover, BareTable, int],
) -> None:
    handover, control, port = handed_over
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        first = _ask(conn, "/api/status")
        assert first.startswith(b"HTTP/1.1 200") and b'"starting": true' in first
        handover.ready(create_app(control))
        second = _ask(conn, "/api/status")  # the same connection, kept
        assert second.startswith(b"HTTP/1.1 200") and b'"starting":false' in second


def _serve(data: Path, port: int, gate: Path) -> subprocess.Popen[str]:
    env = {**os.environ, START_GATE: str(gate)}
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--host", "127.0.0.1",
         "--port", str(port), "--pin", "2468", "--camera", "none", "--board", "none",
         "--no-bots"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _status(url: str) -> dict[str, object] | None:
    try:
        answer = httpx.get(f"{url}/api/status", timeout=2)
    except httpx.HTTPError:
        return None
    return answer.json() if answer.status_code == 200 else None


def test_serve_answers_before_its_table_is_ready_then_serves_the_game(tmp_path: Path) -> None:
    port, gate = free_port(), tmp_path / "gate"
    url = f"http://127.0.0.1:{port}"
    process = _serve(tmp_path / "data", port, gate)
    try:
        wait_until(lambda: _status(url) is not None or process.poll() is not None, 30, "answering")
        status = _status(url)
        assert status is not None and status["starting"] is True  # the heavy half held back
        assert "The table is starting" in httpx.get(url + "/").text
        refused = httpx.get(url + "/api/events")
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        gate.touch()
        wait_until(lambda: answering(url) or process.poll() is not None, 60, "the table ready")
        ready = _status(url)
        assert ready is not None and ready["starting"] is False and ready["game"] is not None
        assert httpx.get(url + "/api/events").status_code == 200
        assert 'src="/static/js/main.js"' in httpx.get(url + "/").text  # the phone page now
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err


def test_sigterm_while_starting_stops_the_service(tmp_path: Path) -> None:
    port, gate = free_port(), tmp_path / "gate"
    url = f"http://127.0.0.1:{port}"
    process = _serve(tmp_path / "data", port, gate)
    try:
        wait_until(lambda: _status(url) is not None or process.poll() is not None, 30, "answering")
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode in (0, -signal.SIGTERM), err
    assert "Traceback" not in err, err


def test_a_start_up_error_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "railtable.sqlite3").write_bytes(b"not a database at all " * 200)
    gate = tmp_path / "gate"
    gate.touch()  # no holding back: the heavy half meets the corrupt log at once
    process = _serve(data, free_port(), gate)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert err.strip().splitlines()[-1].startswith("railtable serve: event log"), err
    assert "Traceback" not in err, err
