"""`railtable bench load`'s friendly clients: the spectators' phones, the status requests, the
host's phone with its session, and the raw HTTP on loopback they all speak."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from dataclasses import dataclass, field

from controller.bench.load_service import PIN

STATUS_ADDRESSES = 200  # the status requests come from these in turn
RENAME_SEATS = 4  # the bench's game: rename floods take seats 0..3 in turn
IO_TIMEOUT_S = 10.0
_FELT = re.compile(rb'"felt": \[([^\]]*)\]')


# ---- what the clients saw
@dataclass
class Seen:
    """What the clients saw, counted as it comes: every client of the run adds to one."""

    status_ms: list[float] = field(default_factory=list)
    status_failed: int = 0
    arrivals: list[tuple[int, int, float]] = field(default_factory=list)  # (phone, row, s)
    felt: list[tuple[int, str, float]] = field(default_factory=list)  # (phone, squares, s)
    phones_connected: int = 0
    phone_refusals: int = 0
    guesses: int = 0
    judged_at: list[float] = field(default_factory=list)  # guesses answered other than 429
    backlog_streams: int = 0
    slow_connections: int = 0
    slow_bodies: int = 0  # connections opened
    slow_bodies_408: int = 0
    slow_bodies_refused: int = 0  # refused at once (503): over the address's cap
    slow_body_held_s: list[float] = field(default_factory=list)  # until the service hung up
    bursts: int = 0
    burst_most_streams: int = 0  # the most streams one burst got
    renames: dict[int, int] = field(default_factory=dict)  # status -> count
    seat_tokens: list[str] = field(default_factory=list)
    host_token: str = ""  # the host's session, opened before any guesser comes
    host_requests: int = 0  # the host's requests during the run (with its session)
    host_answered: int = 0  # of them, answered 200 (the guessers' lock-out never holds them)


# ---- HTTP on loopback
def address(group: int, n: int) -> str:
    """A loopback address of its own (127.group.x.y)."""
    return f"127.{group}.{(n // 250) % 250}.{n % 250 + 1}"


async def connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0), limit=1 << 22),
        IO_TIMEOUT_S,
    )


async def status_line(reader: asyncio.StreamReader) -> int:
    line = await asyncio.wait_for(reader.readline(), IO_TIMEOUT_S)
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


# ---- the phones
async def phone_stream(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """A spectator's phone following the live stream; it reconnects as a browser would."""
    connected = False
    last_felt = b""
    while not stop.is_set():
        try:
            reader, writer = await connect(port, address(1, n))
        except (OSError, TimeoutError):
            await asyncio.sleep(1.0)
            continue
        try:
            writer.write(
                b"GET /api/stream HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n"
            )
            if await status_line(reader) != 200:
                seen.phone_refusals += 1
                await asyncio.sleep(1.0)
                continue
            if not connected:
                connected = True
                seen.phones_connected += 1
            while not stop.is_set():
                line = await reader.readline()
                if not line:
                    break
                if line.startswith(b"id: "):
                    seen.arrivals.append((n, int(line[4:]), time.monotonic()))
                elif line.startswith(b"data: {") and b'"version"' in line[:20]:
                    found = _FELT.search(line)
                    squares = found.group(1).replace(b'"', b"").replace(b" ", b"") if found else b""
                    if squares != last_felt:
                        last_felt = squares
                        if squares:
                            seen.felt.append((n, squares.decode(), time.monotonic()))
        except (OSError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()


async def _status(port: int, seen: Seen, source: str = "127.0.0.1") -> None:
    """One timed GET /api/status on a connection of its own."""
    started = time.perf_counter()
    try:
        reader, writer = await connect(port, source)
        try:
            writer.write(b"GET /api/status HTTP/1.1\r\nHost: table\r\nConnection: close\r\n\r\n")
            code = await status_line(reader)
            await asyncio.wait_for(reader.read(), IO_TIMEOUT_S)
        finally:
            writer.close()
        if code != 200:
            seen.status_failed += 1
            return
        seen.status_ms.append((time.perf_counter() - started) * 1000)
    except (OSError, TimeoutError):
        seen.status_failed += 1


async def status_requests(port: int, rate: int, seen: Seen, stop: asyncio.Event) -> None:
    """`rate` status requests a second, on schedule (not waiting for earlier answers), from
    STATUS_ADDRESSES addresses in turn: phones asking, each from its own (the service caps the
    connections one address holds at once, and a slow answer keeps one open)."""
    tasks: set[asyncio.Task[None]] = set()
    due = time.monotonic()
    sent = 0
    while not stop.is_set():
        due += 1.0 / rate
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        sent += 1
        task = asyncio.create_task(_status(port, seen, address(8, sent % STATUS_ADDRESSES)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=IO_TIMEOUT_S)


async def host_phone(port: int, seen: Seen, stop: asyncio.Event) -> None:
    """The host's phone with its session: a host-only request a second while guessers lock the
    PIN out (a session is never refused for other devices' wrong PINs)."""
    while not stop.is_set() and seen.host_token:
        seen.host_requests += 1
        try:
            reader, writer = await connect(port, address(9, 1))
            try:
                writer.write(
                    "GET /api/seats/0/qr HTTP/1.1\r\nHost: table\r\nX-Host-Token: "
                    f"{seen.host_token}\r\nConnection: close\r\n\r\n".encode()
                )
                code = await status_line(reader)
                await asyncio.wait_for(reader.read(), IO_TIMEOUT_S)
            finally:
                writer.close()
            seen.host_answered += code == 200
        except (OSError, TimeoutError):
            pass
        await asyncio.sleep(1.0)


# ---- tokens, asked before the clients come
def _host_token(port: int, path: str) -> str:
    """POST `path` with the host's PIN (before any guesser comes): the token it answers, or ""."""
    with socket.create_connection(("127.0.0.1", port), timeout=IO_TIMEOUT_S) as s:
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: table\r\nX-Table-Pin: {PIN}"
            "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return str(json.loads(body)["token"]) if head.startswith(b"HTTP/1.1 200") else ""


def host_session(port: int) -> str:
    """The host's session token."""
    return _host_token(port, "/api/host/session")


def seat_tokens(port: int) -> list[str]:
    """Tokens for the bench game's seats, asked as the host."""
    tokens = [_host_token(port, f"/api/seats/{seat}/token") for seat in range(RENAME_SEATS)]
    return [token for token in tokens if token]
