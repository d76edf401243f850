"""The service under attack (issue 22): PIN guessing, forwarded headers, stale seat tokens, odd
headers and numbers, replays of a game still being played."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.api.deps import MAX_ADDRESSES, TABLE_TRIES, PinGuard
from tests.support.api import HOST, BareTable, start_game
from tests.support.serving import answering, free_port, serving


def test_wrong_pins_from_many_addresses_are_limited_for_the_table_as_a_whole() -> None:
    now = [0.0]
    guard = PinGuard(clock=lambda: now[0])
    for i in range(TABLE_TRIES):
        assert guard.wait_s(f"10.0.0.{i}") == 0.0
        guard.failed(f"10.0.0.{i}")
    assert guard.wait_s("10.0.9.9") > 0  # a new address gains nothing
    now[0] += 61.0
    assert guard.wait_s("10.0.9.9") == 0.0


def test_the_pin_limiter_forgets_and_stays_small() -> None:
    now = [0.0]
    guard = PinGuard(clock=lambda: now[0])
    for i in range(5 * MAX_ADDRESSES):
        now[0] += 1.0
        guard.failed(f"a{i}")
    assert len(guard.failures) <= MAX_ADDRESSES


def test_a_pin_header_that_is_not_ascii_is_a_wrong_pin_not_a_crash(client: TestClient) -> None:
    r = client.get("/api/status", headers={"X-Table-Pin": "4321é".encode()})
    assert r.status_code == 403 and r.json()["detail"] == "wrong table PIN"


def test_a_seed_beyond_the_configs_bound_is_refused_in_words(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "offtherails", "seed": 2**63}, headers=HOST)
    assert r.status_code == 422 and "seed" in r.json()["detail"]


def test_a_seat_token_is_good_only_in_the_game_it_was_issued_for(client: TestClient) -> None:
    start_game(client, "trickoftherails", 4)
    token = client.post("/api/seats/3/token", headers=HOST).json()["token"]
    assert client.get("/api/state", headers={"X-Seat-Token": token}).json()["private"]["hand"]
    start_game(client, "derailed", 4)
    r = client.get("/api/state", headers={"X-Seat-Token": token})
    assert r.status_code == 403 and "earlier game" in r.json()["detail"]
    client.cookies.set("railtable_seat", token)
    assert client.get("/api/status").json()["you"]["role"] == "spectator"


def test_the_game_being_played_is_not_replayed(client: TestClient) -> None:
    start_game(client)
    game_id = client.get("/api/status").json()["game"]["id"]
    r = client.get(f"/api/games/{game_id}/replay?step=0")
    assert r.status_code == 409 and "still being played" in r.json()["detail"]


def test_forwarded_headers_do_not_give_a_guesser_new_addresses(tmp_path: Path) -> None:
    port = free_port()
    main = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen(
        [sys.executable, "-c", main, "serve", "--data", str(tmp_path), "--port", str(port),
         "--pin", "2468", "--camera", "none", "--board", "none", "--no-bots"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/api/status"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not answering(f"http://127.0.0.1:{port}"):
            time.sleep(0.1)
        codes = [
            httpx.get(
                url, headers={"X-Table-Pin": "0000", "X-Forwarded-For": f"203.0.113.{i}"}
            ).status_code
            for i in range(7)
        ]
    finally:
        process.terminate()
        process.wait(10)
    assert codes[:5] == [403] * 5 and codes[5:] == [429, 429], codes


def test_a_card_file_is_read_only_from_the_tables_card_folder(tmp_path: Path) -> None:
    control = BareTable(tmp_path / "log.sqlite3")
    folder = tmp_path / "cards"
    folder.mkdir()
    control.card_folder = folder  # type: ignore[attr-defined]
    client = TestClient(create_app(control))
    try:
        for bad in ("/etc/passwd", "../log.sqlite3", "/dev/zero", "cards/x.json", "missing.json"):
            body = {"game": "derailed", "options": {"players": 2, "card_file": bad}}
            r = client.post("/api/games", json=body, headers=HOST)
            assert r.status_code == 422 and "card_file" in r.json()["detail"], (bad, r.text)
            assert "root:" not in r.text
        (folder / "big.json").write_text(" " * 300_000)
        body = {"game": "derailed", "options": {"players": 2, "card_file": "big.json"}}
        r = client.post("/api/games", json=body, headers=HOST)
        assert r.status_code == 422 and "256 KB" in r.json()["detail"]
    finally:
        control.owner.stop()


def test_a_streams_backlog_is_the_open_games_alone(client: TestClient) -> None:
    start_game(client, "trickoftherails", 3)
    client.post("/api/games/current/end", headers=HOST)
    start_game(client)
    open_game = client.get("/api/status").json()["game"]["id"]
    with client.stream("GET", "/api/stream?after=0") as r:
        games = []
        for line in r.iter_lines():
            if line.startswith("event: snapshot"):
                break
            if line.startswith("data: "):
                games.append(json.loads(line[6:])["game"])
    assert games and set(games) == {open_game}


def test_live_streams_per_address_are_capped(client: TestClient) -> None:
    from controller.api import stream

    stream._OPEN["testclient"] = stream.STREAMS_PER_ADDRESS
    try:
        r = client.get("/api/stream")
        assert r.status_code == 429 and "too many live streams" in r.json()["detail"]
    finally:
        del stream._OPEN["testclient"]


def test_request_headers_sent_too_slowly_close_the_connection(tmp_path: Path) -> None:
    from controller.api.server import HeadersDeadline

    class Quick(HeadersDeadline):
        headers_within_s = 1.0

    with serving(BareTable(tmp_path / "log.sqlite3"), http=Quick) as url:
        assert httpx.get(f"{url}/api/status").status_code == 200
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
            slow.sendall(b"GET /api/status HTTP/1.1\r\n")
            time.sleep(0.4)
            slow.sendall(b"Host: table\r\n")  # a line now and then, never the end
            started = time.monotonic()
            assert slow.recv(100) == b""  # closed by the server
            assert time.monotonic() - started < 3
