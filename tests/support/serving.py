"""The HTTP API served on a loopback port for a test, in this process or in one of its own."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from controller.api.app import create_app
from controller.api.server import server_config
from tests.support.waiting import wait_until


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answering(url: str) -> bool:
    """Whether the service at `url` answers its status now, started (not its starting page)."""
    try:
        r = httpx.get(f"{url}/api/status", timeout=1)
        return r.status_code == 200 and not r.json().get("starting")
    except (httpx.HTTPError, ValueError):
        return False


def running(command: list[str], url: str) -> subprocess.Popen[bytes]:
    """`command`, a service, started and answering at `url` (killed if not within a minute)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: answering(url) or process.poll() is not None, 60, "the service", 0.1)
    except AssertionError:
        process.kill()
        raise
    if process.poll() is not None:
        raise AssertionError(f"the service stopped before answering: exit {process.returncode}")
    return process


@contextlib.contextmanager
def serving(control: Any, trusted_proxies: tuple[str, ...] = (), **more: Any) -> Iterator[str]:
    """The app over `control` (anything with the table's interface, a stand-in included) on a
    free loopback port: yields its address; the server stops, and `control.owner` with it.
    `more` goes to uvicorn's settings (`http`: a protocol with shorter deadlines)."""
    port = free_port()
    config = server_config(
        create_app(control), "127.0.0.1", port, trusted_proxies, loop="asyncio", **more
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, 10, "the server started", every=0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        control.owner.stop()


MAIN = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"


@contextlib.contextmanager
def serving_process(
    data: Path, before: Callable[[], None] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`railtable serve` on a bare table (no camera, board or bots) in a process of its own, on a
    free loopback port, answering: yields its address and the process; it is stopped after.
    `before` runs in the child before the service (a lower file limit, say)."""
    port = free_port()
    config = data / "railtable.toml"
    config.write_text("")
    process = subprocess.Popen(
        [sys.executable, "-c", MAIN, "serve", "--config", str(config), "--data", str(data),
         "--host", "127.0.0.1", "--port", str(port), "--pin", "2468", "--camera", "none",
         "--board", "none", "--no-bots"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=before,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: answering(url), 30, "the service answering", every=0.1)
        yield url, process
    finally:
        process.terminate()
        process.wait(10)
