"""The HTTP API served on a loopback port for a test, as `railtable serve` configures it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from controller.api.app import create_app
from controller.api.http import server_config


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        control.owner.stop()
