"""`railtable bench load`: the service under load and attack, its clients in another process.

The service runs as `railtable serve` does (the simulated table, bots playing, the same HTTP
server settings: `controller.api.http.server_config`) in a child process, with a probe that
writes, for each log row a settled table produced, when the last magnet changed on the virtual
board before it (`row <id> <monotonic s>`).
This process (never the service's) then runs, on one asyncio loop, all on loopback:
- `phones` live streams, each from its own loopback address (127.1.x.y: the service caps streams
  per address), noting when each row arrives;
- `rate` requests a second to `/api/status`, sent on schedule whether or not earlier ones were
  answered, each timed, from 200 addresses in turn (127.8.x.y);
- `hostile` clients in six kinds, taken in turn: backlog streams (`?after=0`, hung up after the
  first bytes), slow headers (a header line every 2 s, never the end), PIN guessers that rotate
  both their source address and `X-Forwarded-For` on every guess, slow bodies (`SLOW_BODIES`
  requests from one address, their headers whole, then a body byte every 2 s), stream bursts
  (`BURST` live streams at once from one address, held `BURST_HOLD_S`, again) and rename floods
  (a seat renaming itself as fast as answers come, two names in turn).
Every client is on loopback and stops by itself when the load's time is up.
`CLOCK_MONOTONIC` is one clock for both processes, so a magnet's time and a row's arrival at a
phone subtract. The service's resident memory, threads and open descriptors are read from /proc
before the clients come, at their peak, and `after_s` after they left.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PIN = "97531"
HOLD_S = 2.0  # a slow-headers client sends a line this often, a slow-body client a byte
SLOW_BODIES = 50  # connections a slow-body client holds at once, from one address
BURST = 40  # live streams a burst opens at once, from one address
BURST_HOLD_S = 2.0  # a burst's streams are held this long, then closed, then the next burst
STATUS_ADDRESSES = 200  # the status requests come from these in turn
RENAME_SEATS = 4  # the bench's game: rename floods take seats 0..3 in turn
STARTUP_S = 60.0
IO_TIMEOUT_S = 10.0
_FELT = re.compile(rb'"felt": \[([^\]]*)\]')

_SERVICE = """
import sys
from controller.bench.load import serve_probed
serve_probed(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
"""


# ---- the service's process
def serve_probed(data: str, port: int, stamps: str, camera: str) -> None:
    """Run the table service as `railtable serve` does, stamping rows with their magnet time."""
    from controller.game.live import LiveGame
    from controller.table.service import ServiceSettings
    from hardware.virtual_board import VirtualBoard

    out = open(stamps, "a", buffering=1)  # noqa: SIM115 (open for the process's life)
    probe: dict[str, float | None] = {"changed": None, "judging": None, "judged_at": None}

    def stamped(method: Callable[..., float]) -> Callable[..., float]:
        def changed(board: VirtualBoard, row: int, col: int) -> float:
            probe["changed"] = time.monotonic()
            return method(board, row, col)

        return changed

    VirtualBoard.place = stamped(VirtualBoard.place)  # type: ignore[method-assign]
    VirtualBoard.lift = stamped(VirtualBoard.lift)  # type: ignore[method-assign]
    observe, init = LiveGame.observe, LiveGame.__init__

    def observing(game: LiveGame, observation: Any, early: bool = False) -> Any:
        probe["judging"] = probe["changed"]
        probe["judged_at"] = time.monotonic()
        try:
            return observe(game, observation, early)
        finally:
            probe["judging"] = None

    def listened(game: LiveGame, *args: Any, **kwargs: Any) -> None:
        init(game, *args, **kwargs)

        def written(event: Any) -> None:
            at, judged = probe["judging"], probe["judged_at"]
            if at is not None and judged is not None:
                out.write(f"row {event.id} {at:.6f} {judged:.6f}\n")
                probe["changed"] = None  # later rows of the same change are not timed again

        game.listeners.append(written)

    feel = LiveGame.feel

    def felt(game: LiveGame, locations: Any) -> None:
        before = game.felt
        feel(game, locations)
        at = probe["changed"]
        if game.felt and game.felt != before and at is not None:
            out.write(f"felt {','.join(game.felt)} {at:.6f} {time.monotonic():.6f}\n")

    LiveGame.feel = felt  # type: ignore[method-assign,assignment]
    LiveGame.observe = observing  # type: ignore[method-assign,assignment]
    LiveGame.__init__ = listened  # type: ignore[method-assign,assignment]
    settings = ServiceSettings(data_dir=Path(data), pin=PIN, players=4, seed=1, camera=camera)
    asyncio.run(_serve(settings, port))


async def _serve(settings: Any, port: int) -> None:
    """What `railtable serve` runs (controller/serve.py): the table, then its HTTP server with
    the same settings, until SIGTERM."""
    import gc

    import uvicorn

    from controller.api.app import create_app
    from controller.api.http import server_config, warm
    from controller.table.service import TableService

    service = TableService(settings)
    await asyncio.to_thread(service.start)
    app = create_app(service)
    await warm(app)
    gc.collect()
    gc.freeze()
    config = server_config(app, "127.0.0.1", port, timeout_graceful_shutdown=3)
    try:
        await uvicorn.Server(config).serve()
    finally:
        await asyncio.to_thread(service.stop)


# ---- what the clients saw
@dataclass
class Seen:
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


@dataclass(frozen=True)
class LoadReport:
    """The figures of one run (times in ms, memory in MB)."""

    seconds: float
    phones: int
    rate_per_s: int
    hostile: int
    camera: str
    cpus: int
    load_average_1min: float
    status_requests: int
    status_failed: int
    status_p50_ms: float
    status_p99_ms: float
    status_max_ms: float
    changes_timed: int  # (phone, magnet change) pairs
    change_to_phone_p50_ms: float  # to the first word of it: a square felt, or the verdict
    change_to_phone_p99_ms: float
    change_to_phone_max_ms: float
    change_to_verdict_p50_ms: float  # to the verdict's row (the camera's settling included)
    change_to_verdict_p99_ms: float
    judge_to_phone_p50_ms: float  # the part after the table settled: referee, log, phones
    judge_to_phone_p99_ms: float
    phones_connected: int
    phone_refusals: int
    guesses: int
    wrong_pins_judged: int
    wrong_pins_judged_per_min: int  # the most in any 60 s of the run
    backlog_streams: int
    slow_connections: int
    slow_bodies: int
    slow_bodies_408: int
    slow_bodies_refused: int
    slow_body_held_max_s: float  # the longest the service let one slow body go on
    stream_bursts: int
    burst_most_streams: int  # of BURST at once from one address
    renames_sent: int
    renames_accepted: int
    renames_refused_429: int
    host_requests: int  # the host's requests with its session while the guessers guessed
    host_answered: int  # answered 200: must be all of them
    fds_before: int
    fds_during: int
    fds_after: int
    rss_mb_before: float
    rss_mb_during: float
    rss_mb_after: float
    threads_before: int
    threads_during: int
    threads_after: int
    after_s: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _proc(pid: int) -> tuple[float, int, int]:
    """The process's resident memory (MB), thread count and open descriptors."""
    rss, threads = 0.0, 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    return rss, threads, len(os.listdir(f"/proc/{pid}/fd"))


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else 0.0


def _address(group: int, n: int) -> str:
    """A loopback address of its own (127.group.x.y)."""
    return f"127.{group}.{(n // 250) % 250}.{n % 250 + 1}"


async def _connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0), limit=1 << 22),
        IO_TIMEOUT_S,
    )


async def _status_line(reader: asyncio.StreamReader) -> int:
    line = await asyncio.wait_for(reader.readline(), IO_TIMEOUT_S)
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


async def _phone(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """A spectator's phone following the live stream; it reconnects as a browser would."""
    connected = False
    last_felt = b""
    while not stop.is_set():
        try:
            reader, writer = await _connect(port, _address(1, n))
        except (OSError, TimeoutError):
            await asyncio.sleep(1.0)
            continue
        try:
            writer.write(
                b"GET /api/stream HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n"
            )
            if await _status_line(reader) != 200:
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
        reader, writer = await _connect(port, source)
        try:
            writer.write(b"GET /api/status HTTP/1.1\r\nHost: table\r\nConnection: close\r\n\r\n")
            code = await _status_line(reader)
            await asyncio.wait_for(reader.read(), IO_TIMEOUT_S)
        finally:
            writer.close()
        if code != 200:
            seen.status_failed += 1
            return
        seen.status_ms.append((time.perf_counter() - started) * 1000)
    except (OSError, TimeoutError):
        seen.status_failed += 1


async def _requests(port: int, rate: int, seen: Seen, stop: asyncio.Event) -> None:
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
        task = asyncio.create_task(_status(port, seen, _address(8, sent % STATUS_ADDRESSES)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=IO_TIMEOUT_S)


async def _backlog(port: int, n: int, seen: Seen, stop: asyncio.Event) -> None:
    """Open the stream from row 0, take the first bytes, hang up; again."""
    rng = random.Random(n)
    while not stop.is_set():
        try:
            reader, writer = await _connect(port, _address(2, rng.randrange(62500)))
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
            reader, writer = await _connect(port, _address(3, rng.randrange(62500)))
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
            reader, writer = await _connect(port, _address(4, rng.randrange(62500)))
            try:
                writer.write(
                    f"GET /api/status HTTP/1.1\r\nHost: table\r\nX-Table-Pin: {pin}\r\n"
                    f"X-Forwarded-For: {forwarded}\r\nConnection: close\r\n\r\n".encode()
                )
                code = await _status_line(reader)
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
    source = _address(5, n)

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await _connect(port, source)
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
    source = _address(6, n)

    async def one() -> tuple[int, asyncio.StreamWriter | None]:
        try:
            reader, writer = await _connect(port, source)
            writer.write(b"GET /api/stream HTTP/1.1\r\nHost: table\r\n\r\n")
            return await _status_line(reader), writer
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
            reader, writer = await _connect(port, _address(7, n))
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
                code = await _status_line(reader)
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


async def _host(port: int, seen: Seen, stop: asyncio.Event) -> None:
    """The host's phone with its session: a host-only request a second while guessers lock the
    PIN out (a session is never refused for other devices' wrong PINs)."""
    while not stop.is_set() and seen.host_token:
        seen.host_requests += 1
        try:
            reader, writer = await _connect(port, _address(9, 1))
            try:
                writer.write(
                    "GET /api/seats/0/qr HTTP/1.1\r\nHost: table\r\nX-Host-Token: "
                    f"{seen.host_token}\r\nConnection: close\r\n\r\n".encode()
                )
                code = await _status_line(reader)
                await asyncio.wait_for(reader.read(), IO_TIMEOUT_S)
            finally:
                writer.close()
            seen.host_answered += code == 200
        except (OSError, TimeoutError):
            pass
        await asyncio.sleep(1.0)


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


def _host_session(port: int) -> str:
    """The host's session token."""
    return _host_token(port, "/api/host/session")


def _seat_tokens(port: int) -> list[str]:
    """Tokens for the bench game's seats, asked as the host."""
    tokens = [_host_token(port, f"/api/seats/{seat}/token") for seat in range(RENAME_SEATS)]
    return [token for token in tokens if token]


async def _clients(
    port: int, phones: int, rate: int, hostile: int, seconds: float, pid: int
) -> tuple[Seen, tuple[float, int, int]]:
    seen = Seen()
    if hostile:
        seen.seat_tokens = await asyncio.to_thread(_seat_tokens, port)
        seen.host_token = await asyncio.to_thread(_host_session, port)
    stop = asyncio.Event()
    kinds: list[Callable[[int, int, Seen, asyncio.Event], Coroutine[Any, Any, None]]] = [
        _backlog,
        _slow_headers,
        _guesser,
        _slow_bodies,
        _stream_burst,
        _rename_flood,
    ]
    tasks = [asyncio.create_task(_phone(port, n, seen, stop)) for n in range(phones)]
    tasks.append(asyncio.create_task(_requests(port, rate, seen, stop)))
    tasks.append(asyncio.create_task(_host(port, seen, stop)))
    tasks += [
        asyncio.create_task(kinds[n % len(kinds)](port, n, seen, stop)) for n in range(hostile)
    ]
    peak = (0.0, 0, 0)
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        await asyncio.sleep(min(1.0, max(0.0, ends - time.monotonic())))
        rss, threads, fds = _proc(pid)
        peak = (max(peak[0], rss), max(peak[1], threads), max(peak[2], fds))
    stop.set()
    await asyncio.sleep(0.5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return seen, peak


@dataclass(frozen=True)
class _Timings:
    """In ms, each (phone, magnet change) once: `first` the first word of it on the phone (a
    square marked as felt, or the verdict), `verdict` the log row the referee wrote for it,
    `judged` that row after the owner began judging (the camera's settling excluded)."""

    first: list[float]
    verdict: list[float]
    judged: list[float]


def _changes(stamps: Path, seen: Seen) -> _Timings:
    """Each magnet change's arrival at each phone, from the probe's stamps: `row <id> <magnet
    s> <judged s>` for a row a settled table wrote, `felt <squares> <magnet s> <s>` for squares
    first shown as felt."""
    rows: dict[int, tuple[float, float]] = {}
    felt: dict[str, list[float]] = {}
    for line in stamps.read_text().splitlines():
        kind, what, magnet, when = line.split()
        if kind == "row":
            rows[int(what)] = (float(magnet), float(when))
        else:
            felt.setdefault(what, []).append(float(magnet))
    first: dict[tuple[int, float], float] = {}
    verdict: list[float] = []
    judged: list[float] = []
    for phone, row, t in seen.arrivals:
        if row in rows:
            at, began = rows[row]
            verdict.append((t - at) * 1000)
            judged.append((t - began) * 1000)
            first[phone, at] = min(first.get((phone, at), t), t)
    for phone, squares, t in seen.felt:
        ats = [at for at in felt.get(squares, ()) if at <= t]
        if ats:
            at = max(ats)  # the latest change felt there before it arrived
            first[phone, at] = min(first.get((phone, at), t), t)
    return _Timings([(t - at) * 1000 for (_, at), t in first.items()], verdict, judged)


def _most_in_a_minute(times: list[float]) -> int:
    """The most events within any 60 s (all of them, in a shorter run)."""
    ordered, most, first = sorted(times), 0, 0
    for last, at in enumerate(ordered):
        while at - ordered[first] >= 60.0:
            first += 1
        most = max(most, last - first + 1)
    return most


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /api/status HTTP/1.1\r\nHost: table\r\nConnection: close\r\n\r\n")
                if s.recv(12).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the table service did not start (bench load)")


def run(
    seconds: float = 60.0,
    phones: int = 200,
    rate: int = 50,
    hostile: int = 20,
    after_s: float = 60.0,
    warm_up_s: float = 10.0,
    camera: str = "simulated",
) -> LoadReport:
    """Start the service, load it for `seconds`, wait `after_s`; the figures."""
    with tempfile.TemporaryDirectory(prefix="railtable-load-") as folder:
        stamps = Path(folder) / "stamps"
        stamps.touch()
        port = _free_port()
        process = subprocess.Popen(
            [sys.executable, "-c", _SERVICE, folder, str(port), str(stamps), camera],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_up(port, process)
            time.sleep(warm_up_s)  # the bots play a while: memory settles
            before = _proc(process.pid)
            seen, during = asyncio.run(_clients(port, phones, rate, hostile, seconds, process.pid))
            time.sleep(after_s)
            after = _proc(process.pid)
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        timings = _changes(stamps, seen)
    return LoadReport(
        seconds=seconds,
        phones=phones,
        rate_per_s=rate,
        hostile=hostile,
        camera=camera,
        cpus=os.cpu_count() or 0,
        load_average_1min=round(os.getloadavg()[0], 2),
        status_requests=len(seen.status_ms) + seen.status_failed,
        status_failed=seen.status_failed,
        status_p50_ms=_quantile(seen.status_ms, 0.5),
        status_p99_ms=_quantile(seen.status_ms, 0.99),
        status_max_ms=round(max(seen.status_ms, default=0.0), 1),
        changes_timed=len(timings.first),
        change_to_phone_p50_ms=_quantile(timings.first, 0.5),
        change_to_phone_p99_ms=_quantile(timings.first, 0.99),
        change_to_phone_max_ms=round(max(timings.first, default=0.0), 1),
        change_to_verdict_p50_ms=_quantile(timings.verdict, 0.5),
        change_to_verdict_p99_ms=_quantile(timings.verdict, 0.99),
        judge_to_phone_p50_ms=_quantile(timings.judged, 0.5),
        judge_to_phone_p99_ms=_quantile(timings.judged, 0.99),
        phones_connected=seen.phones_connected,
        phone_refusals=seen.phone_refusals,
        guesses=seen.guesses,
        wrong_pins_judged=len(seen.judged_at),
        wrong_pins_judged_per_min=_most_in_a_minute(seen.judged_at),
        backlog_streams=seen.backlog_streams,
        slow_connections=seen.slow_connections,
        slow_bodies=seen.slow_bodies,
        slow_bodies_408=seen.slow_bodies_408,
        slow_bodies_refused=seen.slow_bodies_refused,
        slow_body_held_max_s=round(max(seen.slow_body_held_s, default=0.0), 1),
        stream_bursts=seen.bursts,
        burst_most_streams=seen.burst_most_streams,
        renames_sent=sum(seen.renames.values()),
        renames_accepted=seen.renames.get(200, 0),
        renames_refused_429=seen.renames.get(429, 0),
        host_requests=seen.host_requests,
        host_answered=seen.host_answered,
        fds_before=before[2],
        fds_during=max(during[2], before[2]),
        fds_after=after[2],
        rss_mb_before=round(before[0], 1),
        rss_mb_during=round(max(during[0], before[0]), 1),
        rss_mb_after=round(after[0], 1),
        threads_before=before[1],
        threads_during=max(during[1], before[1]),
        threads_after=after[1],
        after_s=after_s,
    )


if __name__ == "__main__":
    print(json.dumps(run(seconds=10, phones=20, rate=10, hostile=6, after_s=2).to_json()))
