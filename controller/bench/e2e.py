"""End-to-end figures of the service: a magnet placed on the virtual board to the event at every
phone's SSE stream, the memory of the service running the simulated table, and its start-up: to
its first answer (`startup_s`) and to the table ready to judge a move (`ready_s`).
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from controller.api.app import create_app
from controller.game.access import Asker
from controller.table.service import ServiceSettings, TableService

_MAIN = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def _latency(samples: int, phones: int, folder: Path) -> list[float]:
    """Place and lift a minecart on its starting track; time each change to every phone."""
    settings = ServiceSettings(
        data_dir=folder, pin="1234", players=2, seed=3, camera="none", bots=False, tick_s=0.02
    )
    service = TableService(settings)
    await asyncio.to_thread(service.start)
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(service),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            proxy_headers=False,
        )
    )
    tasks = [asyncio.create_task(server.serve())]
    times: list[float] = []
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        await service.owner.call(
            lambda game: game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
        )
        board, link = service.inputs.virtual_board, service.inputs.link
        assert board is not None and link is not None
        link.wait_connected(10)
        layout = await service.owner.call(
            lambda game: game.open.info.layout(game.open.state.options)  # type: ignore[union-attr]
        )
        sensor = layout.location("F12").sensor  # a red starting track
        assert sensor is not None
        row, col = sensor
        received: list[asyncio.Queue[float]] = [asyncio.Queue() for _ in range(phones)]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            readers = [asyncio.create_task(_listen(client, q)) for q in received]
            await asyncio.sleep(0.5)
            for i in range(samples):
                for q in received:
                    while not q.empty():
                        q.get_nowait()
                start = time.perf_counter()
                if i % 2 == 0:
                    board.place(row, col)
                else:
                    board.lift(row, col)
                arrivals = [await asyncio.wait_for(q.get(), 10) for q in received]
                times.extend((t - start) * 1000 for t in arrivals)
                await asyncio.sleep(0.3)  # let the verdict's later events pass
            for reader in readers:
                reader.cancel()
    finally:
        server.should_exit = True
        await asyncio.wait_for(asyncio.gather(tasks[0], return_exceptions=True), 10)
        await asyncio.to_thread(service.stop)
    return times


async def _listen(client: httpx.AsyncClient, queue: asyncio.Queue[float]) -> None:
    async with client.stream("GET", "/api/stream") as response:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                queue.put_nowait(time.perf_counter())


def _rss_mb(pid: int) -> float:
    """A process's resident memory (0: it has ended)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    """A process's children (Linux: the camera's process)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(child) for child in task.read_text().split()]
    return found


def _startup_and_memory(folder: Path, run_s: float = 10.0) -> tuple[float, float, float, float]:
    """Start `railtable serve` on the simulated table; the time to its first answer of
    /api/status (the starting app's) and to the table ready to judge a move (the status no longer
    starting), then its resident memory after `run_s` of bots playing, and its children's (the
    camera's process). -1: not within 30 s."""
    port = _free_port()
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", _MAIN, "serve", *("--data", str(folder)), *("--port", str(port))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        startup = ready = -1.0
        with httpx.Client(timeout=1) as client:
            while time.perf_counter() - start < 30 and ready < 0:
                try:
                    answer = client.get(f"http://127.0.0.1:{port}/api/status")
                except httpx.HTTPError:
                    time.sleep(0.01)
                    continue
                now = time.perf_counter() - start
                if answer.status_code != 200:
                    time.sleep(0.01)
                    continue
                startup = now if startup < 0 else startup
                if not answer.json().get("starting"):
                    ready = now
                else:
                    time.sleep(0.01)
        time.sleep(run_s)
        children = sum(_rss_mb(child) for child in _children(process.pid))
        return startup, ready, _rss_mb(process.pid), children
    finally:
        process.terminate()
        process.wait(10)


def bench(samples: int = 20, phones: int = 1, run_s: float = 10.0) -> dict[str, Any]:
    """The figures, as one JSON-able dict (`run_s`: the bots' play before memory is read)."""
    with tempfile.TemporaryDirectory(prefix="railtable-e2e-") as folder:
        times = asyncio.run(_latency(samples, phones, Path(folder) / "latency"))
        startup, ready, rss, children_rss = _startup_and_memory(Path(folder) / "serve", run_s)
    return {
        "samples": samples,
        "phones": phones,
        "change_to_sse_p50_ms": round(_quantile(times, 0.5), 1),
        "change_to_sse_p99_ms": round(_quantile(times, 0.99), 1),
        "change_to_sse_max_ms": round(max(times), 1) if times else 0.0,
        "rss_mb": round(rss, 1),
        "children_rss_mb": round(children_rss, 1),  # the camera's process
        "startup_s": round(startup, 2),  # serve started -> its first answer of /api/status
        "ready_s": round(ready, 2),  # -> ready to judge a move (the status no longer starting)
    }


if __name__ == "__main__":
    print(json.dumps(bench()))
