"""`railtable bench load`'s hostile clients, six kinds taken in turn: backlog streams, slow
headers, PIN guessers, slow bodies, stream bursts and rename floods."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable, Coroutine
from typing import Any

from controller.bench.load_clients import IO_TIMEOUT_S, Seen, address, connect, status_line

HOLD_S = 2.0  # a slow-headers client sends a line this often, a slow-body client a byte
SLOW_BODIES = 50  # connections a slow-body client holds at once, from one address
BURST = 40  # live streams a burst opens at once, from one address
BURST_HOLD_S = 2.0  # a burst's streams are held this long, then closed, then the next burst

Hostile = Callable[[int, int, Seen, asyncio.Event], Coroutine[Any, Any, None]]


async def _backlog(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """Open the stream from row 0, take the first bytes, hang up; again."""
    rng = random.Random(n)
    while not stop.is_set():
        try:
            reader, writer = await connect(port, address(2, rng.randrange(62500)))
            writer.write(b"GET /api/stream?after=0 HTTP/1.1\r\nHost: table\r\n\r\n")
            await asyncio.wait_for(reader.read(1), IO_TIMEOUT_S)
            seen.backlog_streams += 1
            writer.close()
        except (OSError, TimeoutError):
            await asyncio.sleep(0.1)


async def _slow_headers(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """A request whose headers never end: a line every HOLD_S until the service hangs up."""
    rng = random.Random(n)
    while not stop.is_set():
        try:
            reader, writer = await connect(port, address(3, rng.randrange(62500)))
            seen.slow_connections += 1
            writer.write(b"GET /api/status HTTP/1.1\r\n")
            while not stop.is_set():
                writer.write(b"X-Slow: a\r\n")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if not await asyncio.wait_for(reader.read(100), HOLD_S):
                        break  # the service hung up
            writer.close()
        except (OSError, TimeoutError):
            await asyncio.sleep(0.1)


async def _guesser(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """Wrong PINs as fast as answers come, each from a new address naming another forwarded one."""
    rng = random.Random(n)
    while not stop.is_set():
        pin = f"{rng.randrange(10**6):06d}"
        forwarded = f"{rng.randrange(1, 224)}.{rng.randrange(256)}.{rng.randrange(256)}.1"
        try:
            reader, writer = await connect(port, address(4, rng.randrange(62500)))
            try:
                writer.write(
                    f"GET /api/status HTTP/1.1\r\nHost: table\r\nX-Table-Pin: {pin}\r\n"
                    f"X-Forwarded-For: {forwarded}\r\nConnection: close\r\n\r\n".encode()
                )
                code = await status_line(reader)
                await asyncio.wait_for(reader.read(), IO_TIMEOUT_S)
            finally:
                writer.close()
            seen.guesses += 1
            if code != 429:
                seen.judged_at.append(time.monotonic())
        except (OSError, TimeoutError):
            await asyncio.sleep(0.1)


async def _slow_bodies(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """SLOW_BODIES requests at once from one address, headers whole, then a body byte every
    HOLD_S: each timed until the service hangs up, then opened again."""
    source = address(5, n)

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await connect(port, source)
            except (OSError, TimeoutError):
                await asyncio.sleep(0.5)
                continue
            seen.slow_bodies += 1
            opened = time.monotonic()
            answer = b""
            try:
                writer.write(
                    b"POST /api/actions HTTP/1.1\r\nHost: table\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
                )
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        chunk = await asyncio.wait_for(reader.read(4096), HOLD_S)
                        if not chunk:
                            break  # the service hung up
                        answer += chunk
                    writer.write(b" ")
            except OSError:
                pass
            finally:
                writer.close()
            if answer.startswith(b"HTTP/1.1 408"):
                seen.slow_bodies_408 += 1
                seen.slow_body_held_s.append(time.monotonic() - opened)
            elif answer.startswith(b"HTTP/1.1 503"):
                seen.slow_bodies_refused += 1
                await asyncio.sleep(HOLD_S)
            elif not stop.is_set():
                seen.slow_body_held_s.append(time.monotonic() - opened)

    await asyncio.gather(*(one() for _ in range(SLOW_BODIES)))


async def _stream_burst(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """BURST live streams at once from one address, held BURST_HOLD_S, closed; again."""
    source = address(6, n)

    async def one() -> tuple[int, asyncio.StreamWriter | None]:
        try:
            reader, writer = await connect(port, source)
            writer.write(b"GET /api/stream HTTP/1.1\r\nHost: table\r\n\r\n")
            return await status_line(reader), writer
        except (OSError, TimeoutError, ValueError):
            return 0, None

    while not stop.is_set():
        opened = await asyncio.gather(*(one() for _ in range(BURST)))
        seen.bursts += 1
        seen.burst_most_streams = max(
            seen.burst_most_streams, sum(1 for code, _ in opened if code == 200)
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), BURST_HOLD_S)
        for _, writer in opened:
            if writer is not None:
                writer.close()
        await asyncio.sleep(0.5)


async def _rename_flood(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """A seat renaming itself as fast as answers come, two names in turn, on one connection."""
    if not seen.seat_tokens:
        return
    seat = n % len(seen.seat_tokens)
    sent = 0
    while not stop.is_set():
        try:
            reader, writer = await connect(port, address(7, n))
        except (OSError, TimeoutError):
            await asyncio.sleep(0.5)
            continue
        try:
            while not stop.is_set():
                body = json.dumps({"name": f"Flood {n} {sent % 2}"}).encode()
                head = (
                    f"POST /api/seats/{seat}/player HTTP/1.1\r\nHost: table\r\n"
                    f"X-Seat-Token: {seen.seat_tokens[seat]}\r\nContent-Type: application/json"
                    f"\r\nContent-Length: {len(body)}\r\n\r\n"
                )
                writer.write(head.encode() + body)
                sent += 1
                code = await status_line(reader)
                seen.renames[code] = seen.renames.get(code, 0) + 1
                length = 0
                while (line := await asyncio.wait_for(reader.readline(), IO_TIMEOUT_S)).strip():
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await asyncio.wait_for(reader.readexactly(length), IO_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


# the kinds in the order the hostile clients take them in turn
HOSTILE_KINDS: tuple[Hostile, ...] = (
    _backlog,
    _slow_headers,
    _guesser,
    _slow_bodies,
    _stream_burst,
    _rename_flood,
)
