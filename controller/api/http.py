"""The HTTP server as the table runs it: uvicorn's HTTP/1.1 with deadlines, forwarded headers
believed only from configured proxies, and request bodies bounded.

uvicorn bounds the idle time between requests (`IDLE_S`) but not the time a client takes to send
one request's headers: a hundred clients sending a header line every few seconds would hold their
connections for as long as they like (slowloris). Here the headers of each request must be
complete within `HEADERS_WITHIN_S` of its first byte (or of the connection's opening). A body is
read only up to `MAX_BODY_BYTES` (413 beyond): no route takes more than a few hundred bytes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import uvicorn
from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADERS_WITHIN_S = 10.0
IDLE_S = 5  # an idle keep-alive connection is closed after this many seconds
MAX_BODY_BYTES = 64 * 1024


def server_config(
    app: Any, host: str, port: int, trusted_proxies: Sequence[str] = (), **more: Any
) -> uvicorn.Config:
    """uvicorn's settings for the table: X-Forwarded-For names the client only on a connection
    from one of `trusted_proxies` (none by default: then the header is never read, and a PIN
    guesser cannot invent a new address per guess); header and idle deadlines (`http` in `more`
    replaces the protocol that keeps them, for a test with shorter ones)."""
    protocol = more.pop("http", HeadersDeadline)
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies),
        http=protocol,
        timeout_keep_alive=IDLE_S,
        **more,
    )


class HeadersDeadline(H11Protocol):
    """H11Protocol that closes a connection whose request headers come too slowly."""

    headers_within_s = HEADERS_WITHIN_S
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self.cycle is not None:
            self._disarm()  # a request's headers are complete: its cycle began

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.headers_within_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()


class BodyTooLarge(HTTPException):
    """A request body over the limit, found as it arrives (a route answers it 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over {limit // 1024} KB")


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes is answered 413 before a route reads
    it whole (by its Content-Length, or as it arrives when it has none)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _too_large(send, self.limit)
                return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if not started:
                await _too_large(send, self.limit)


async def _too_large(send: Send, limit: int) -> None:
    body = f'{{"detail":"request body over {limit // 1024} KB"}}'.encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


WARM_PATHS = ("/api/status", "/api/warm-up-not-found")


async def warm(app: ASGIApp) -> None:
    """One request of each kind through the app, in process, before any phone comes: FastAPI and
    Starlette build parts of their machinery at the first request that needs them (the first
    answer took 40 ms, the first 404 79 ms, and 157 validators were made then, which a load
    measured from start counted as the phones' memory)."""
    for path in WARM_PATHS:
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"table")],
            "client": ("127.0.0.1", 0),
            "server": ("127.0.0.1", 80),
        }

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(_message: Message) -> None:
            return None

        await app(scope, receive, send)
