"""Connections under attack (issue 37), with real sockets against a real uvicorn: a slow request
body dropped, open connections capped per address and in all under the file limit (a stream
counted from its acceptance), a burst of streams from one address held to its cap."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
import time
from pathlib import Path

import httpx
import pytest

from controller.api import server, stream
from controller.api.server import ConnectionCaps, HeadersDeadline, connection_caps, server_config
from tests.support.api import BareTable
from tests.support.serving import serving, serving_process

UNIT = Path(__file__).parents[3] / "systemd" / "railtable.service"
ASK = b"GET /api/status HTTP/1.1\r\nHost: table\r\n\r\n"
SLOW_BODY = (
    b"POST /api/actions HTTP/1.1\r\nHost: table\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{"
)


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))


def _answer(sock: socket.socket) -> bytes:
    """The server's first bytes on `sock`: an answer, or b"" if it closed (or reset) it."""
    try:
        return sock.recv(4096)
    except ConnectionResetError:
        return b""


def _served_here(sock: socket.socket) -> bool:
    """A status request on `sock` is answered 200 (the connection was admitted)."""
    sock.sendall(ASK)
    return _answer(sock).startswith(b"HTTP/1.1 200")


def test_a_request_body_sent_too_slowly_is_answered_408_and_closed(tmp_path: Path) -> None:
    class Quick(HeadersDeadline):
        body_within_s = 1.0

    with serving(BareTable(tmp_path / "log.sqlite3"), http=Quick) as url:
        with _connect(_port(url), "127.0.0.1") as slow:
            slow.sendall(SLOW_BODY)  # the headers whole, then a byte now and then
            started = time.monotonic()
            slow.settimeout(0.3)
            answer = b""
            while time.monotonic() - started < 4:
                with contextlib.suppress(OSError):
                    slow.sendall(b" ")
                try:
                    chunk = slow.recv(4096)
                except TimeoutError:
                    continue
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                answer += chunk
            held_s = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"came too slowly" in answer
        assert held_s < 3, held_s
        assert httpx.get(f"{url}/api/status").status_code == 200
    assert server.HEADERS_WITHIN_S + server.BODY_WITHIN_S <= 30  # dropped within 30 s


def test_open_connections_are_capped_per_address_and_in_all(tmp_path: Path) -> None:
    caps = ConnectionCaps(per_address=3, total=5)
    with serving(BareTable(tmp_path / "log.sqlite3"), caps=caps) as url:
        port = _port(url)
        with contextlib.ExitStack() as held:
            streams = []
            for _ in range(2):  # a stream counts from its acceptance, before any byte of it
                s = held.enter_context(_connect(port, "127.0.0.1"))
                s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: table\r\n\r\n")
                streams.append(s)
            plain = held.enter_context(_connect(port, "127.0.0.1"))
            assert _served_here(plain)
            for s in streams:
                assert _answer(s).startswith(b"HTTP/1.1 200")
            with _connect(port, "127.0.0.1") as over:
                refused = _answer(over)  # before it sent anything: the answer, then the end
                assert refused.startswith(b"HTTP/1.1 503") and b"from your address" in refused
            others = [held.enter_context(_connect(port, "127.0.0.2")) for _ in range(2)]
            assert all(_served_here(s) for s in others)
            with _connect(port, "127.0.0.3") as over:
                refused = _answer(over)
                assert refused.startswith(b"HTTP/1.1 503") and b"connections open" in refused
            plain.close()  # one closes: its place is free again
            time.sleep(0.2)
            with _connect(port, "127.0.0.3") as again:
                assert _served_here(again)


def test_the_caps_come_from_the_file_limit_and_the_unit_sets_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert connection_caps(1024) == ConnectionCaps(per_address=32, total=768)
    assert connection_caps(4096) == ConnectionCaps(per_address=32, total=3072)
    assert connection_caps(200).total == server.MIN_CONNECTIONS
    monkeypatch.setattr(resource, "getrlimit", lambda _: (2048, 4096))
    config = server_config(None, "127.0.0.1", 0)
    assert isinstance(config, server.TableConfig)
    assert config.guard.caps == connection_caps(2048)
    unit = [line.split("=", 1) for line in UNIT.read_text().splitlines() if "=" in line]
    files = [int(value) for key, value in unit if key == "LimitNOFILE"]
    assert files == [4096] and connection_caps(files[0]).total < files[0]


Opened = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _slow_bodies(port: int, source: str, count: int) -> list[Opened]:
    """`count` connections from `source` whose request body never ends (those that opened)."""

    async def one() -> Opened | None:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 2
            )
            writer.write(SLOW_BODY)
            return reader, writer  # kept: a writer let go closes its connection
        except (OSError, TimeoutError):
            return None

    opened = await asyncio.gather(*(one() for _ in range(count)))
    return [r for r in opened if r is not None]


async def _still_open(opened: list[Opened]) -> int:
    async def open_(reader: asyncio.StreamReader) -> bool:
        try:
            await asyncio.wait_for(reader.read(), 2.0)  # what it said, to the end
            return False
        except TimeoutError:
            return True  # not closed
        except OSError:
            return False

    return sum(await asyncio.gather(*(open_(r) for r, _ in opened)))


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_slow_bodies_from_one_address_take_no_more_than_its_cap_under_a_low_file_limit(
    tmp_path: Path,
) -> None:
    """Issue 37's attack, smaller: the service under a file limit of 512 (so 256 connections),
    600 slow bodies from one address; the status still answers everyone else at once, and the
    descriptors come back when they go."""

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))

    with serving_process(tmp_path, before=low_limit) as (url, process):
        port = _port(url)
        before = _fds(process.pid)

        async def attack() -> tuple[int, int, float]:
            opened = await _slow_bodies(port, "127.0.0.9", 600)
            held = await _still_open(opened)
            started = time.monotonic()
            try:
                async with httpx.AsyncClient() as client:
                    status = (await client.get(f"{url}/api/status", timeout=3)).status_code
            except httpx.HTTPError:
                status = 0
            took = time.monotonic() - started
            for _, writer in opened:
                writer.close()
            return held, status, took

        held, status, took = asyncio.run(attack())
        assert held <= server.CONNECTIONS_PER_ADDRESS, held
        assert status == 200 and took < 1, (status, took)
        deadline = time.monotonic() + 5
        while _fds(process.pid) > before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _fds(process.pid) <= before


def test_a_burst_of_streams_from_one_address_gets_no_more_than_its_cap(tmp_path: Path) -> None:
    burst = server.CONNECTIONS_PER_ADDRESS - 2  # each connection admitted: the streams' cap

    async def open_all(url: str) -> list[int]:
        done = asyncio.Event()
        codes: list[int] = []

        async def one(client: httpx.AsyncClient) -> None:
            async with client.stream("GET", f"{url}/api/stream") as r:
                codes.append(r.status_code)
                if r.status_code == 200:
                    await done.wait()

        limits_ = httpx.Limits(max_connections=burst, max_keepalive_connections=0)
        async with httpx.AsyncClient(limits=limits_, timeout=10) as client:
            tasks = [asyncio.create_task(one(client)) for _ in range(burst)]
            while len(codes) < burst:
                await asyncio.sleep(0.05)
            done.set()
            await asyncio.gather(*tasks)
        return codes

    with serving(BareTable(tmp_path / "log.sqlite3")) as url:
        codes = asyncio.run(open_all(url))
        assert codes.count(200) == stream.STREAMS_PER_ADDRESS, codes
        assert codes.count(429) == burst - stream.STREAMS_PER_ADDRESS, codes
        deadline = time.monotonic() + 5
        while stream._OPEN and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not stream._OPEN  # every slot released when its stream ended
        with httpx.stream("GET", f"{url}/api/stream", timeout=5) as again:
            assert again.status_code == 200
