"""Runs the table service and its HTTP API in one process until stopped: the game's owner on its
thread, the HTTP API on the asyncio event loop."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Sequence

import uvicorn

from controller.api.app import create_app
from controller.api.http import server_config
from controller.table.service import ServiceSettings, TableService


def configure_logging() -> None:
    """One event a line on stderr, with its level: journald keeps it as it is."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )


async def run_service(
    settings: ServiceSettings, host: str, port: int, trusted_proxies: Sequence[str] = ()
) -> None:
    """Start the table, serve the API, run the table's loop; both end on SIGINT or SIGTERM.
    X-Forwarded-For is believed only from `trusted_proxies` (`[web] trusted_proxies`)."""
    service = TableService(settings)
    await asyncio.to_thread(service.start)
    gc.collect()
    gc.freeze()  # what start-up made stays: full collections then take ms, not tens of ms
    app = create_app(service)
    # Phones keep their event streams open: a stop must not wait for them to hang up.
    config = server_config(app, host, port, trusted_proxies, timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    service.on_stop = lambda: setattr(server, "should_exit", True)
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    print(
        f"railtable: table service on http://{shown}:{port}/ (API: /docs); "
        f"host PIN {service.pin}; data in {settings.data_dir}; Ctrl-C stops it",
        flush=True,
    )
    try:
        await server.serve()
    finally:
        await asyncio.to_thread(service.stop)
