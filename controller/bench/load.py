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
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from controller.bench.load_clients import (
    Seen,
    host_phone,
    host_session,
    phone_stream,
    seat_tokens,
    status_requests,
)
from controller.bench.load_hostile import HOSTILE_KINDS
from controller.bench.load_report import LoadReport, Resources, change_timings

STARTUP_S = 60.0

_SERVICE = """
import sys
from controller.bench.load_service import serve_probed
serve_probed(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
"""


def _proc(pid: int) -> Resources:
    """The process's resident memory (MB), thread count and open descriptors."""
    rss, threads = 0.0, 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    return Resources(rss, threads, len(os.listdir(f"/proc/{pid}/fd")))


async def _clients(
    port: int, phones: int, rate: int, hostile: int, seconds: float, pid: int
) -> tuple[Seen, Resources]:
    """Every client at once for `seconds`: the phones, the status requests, the host's phone and
    the hostile kinds in turn; what they saw, and the service at its peak meanwhile."""
    seen = Seen()
    if hostile:
        seen.seat_tokens = await asyncio.to_thread(seat_tokens, port)
        seen.host_token = await asyncio.to_thread(host_session, port)
    stop = asyncio.Event()
    tasks = [asyncio.create_task(phone_stream(port, n, seen, stop)) for n in range(phones)]
    tasks.append(asyncio.create_task(status_requests(port, rate, seen, stop)))
    tasks.append(asyncio.create_task(host_phone(port, seen, stop)))
    tasks += [
        asyncio.create_task(HOSTILE_KINDS[n % len(HOSTILE_KINDS)](port, n, seen, stop))
        for n in range(hostile)
    ]
    peak = Resources(0.0, 0, 0)
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        await asyncio.sleep(min(1.0, max(0.0, ends - time.monotonic())))
        peak = peak.peak(_proc(pid))
    stop.set()
    await asyncio.sleep(0.5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return seen, peak


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
        timings = change_timings(stamps, seen)
    return LoadReport.of(
        seconds=seconds,
        phones=phones,
        rate=rate,
        hostile=hostile,
        camera=camera,
        after_s=after_s,
        seen=seen,
        timings=timings,
        process=(before, during, after),
    )


if __name__ == "__main__":
    print(json.dumps(run(seconds=10, phones=20, rate=10, hostile=6, after_s=2).to_json()))
