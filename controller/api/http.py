"""The HTTP server as the table runs it: uvicorn's HTTP/1.1 with deadlines, forwarded headers
believed only from configured proxies, connections and request bodies bounded.

uvicorn bounds the idle time between requests (`IDLE_S`) but not the time a client takes to send
one request's headers or its body: a hundred clients sending a byte every few seconds would hold
their connections for as long as they like (slowloris), and a thousand took every descriptor the
process had. Here the headers of each request must be complete within `HEADERS_WITHIN_S` of its
first byte (or of the connection's opening), and its body within `BODY_WITHIN_S` of its headers
(408, then closed); the connections open at once are capped per address and in all below the
file limit (`controller.api.limits`). A body is read only up to `MAX_BODY_BYTES` (413 beyond): no
route takes more than a few hundred bytes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import h11
import uvicorn
from fastapi import HTTPException
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.api.limits import Admission, ConnectionCaps, ConnectionGuard, caps_now

HEADERS_WITHIN_S = 10.0
BODY_WITHIN_S = 20.0  # after the headers: a request is whole within 30 s of its first byte
IDLE_S = 5  # an idle keep-alive connection is closed after this many seconds
MAX_BODY_BYTES = 64 * 1024


def server_config(
    app: Any, host: str, port: int, trusted_proxies: Sequence[str] = (), **more: Any
) -> uvicorn.Config:
    """uvicorn's settings for the table: X-Forwarded-For names the client only on a connection
    from one of `trusted_proxies` (none by default: then the header is never read, and a PIN
    guesser cannot invent a new address per guess); header, body and idle deadlines (`http` in
    `more` replaces the protocol that keeps them, for a test with shorter ones); connections
    capped under the process's file limit now (`caps` in `more`: other caps)."""
    protocol = more.pop("http", HeadersDeadline)
    caps: ConnectionCaps = more.pop("caps", None) or caps_now()
    return TableConfig(
        ConnectionGuard(caps, trusted_proxies),
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


class TableConfig(uvicorn.Config):
    """uvicorn's settings, with the server's connection guard (one a server)."""

    def __init__(self, guard: ConnectionGuard, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard


class HeadersDeadline(H11Protocol):
    """H11Protocol that closes a connection whose request headers come too slowly, answers 408
    and closes one whose body comes too slowly, and refuses a connection over the caps (503, then
    closed at once: the descriptor is free again)."""

    headers_within_s = HEADERS_WITHIN_S
    body_within_s = BODY_WITHIN_S
    _deadline: asyncio.TimerHandle | None = None
    _body_deadline: asyncio.TimerHandle | None = None
    _counted: str | None = None  # the address this connection counts against

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard = self._guard()
        if guard is not None:
            address = self.client[0] if self.client else "?"
            admitted = guard.admit(address)
            if admitted is not Admission.ADMITTED:
                transport.write(_refusal(503, admitted.value, retry_after_s=1))
                transport.close()
                return
            self._counted = address
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self.cycle is not None:
            self._disarm()  # a request's headers are complete: its cycle began
        self._watch_body()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._watch_body(closed=True)
        guard = self._guard()
        if guard is not None and self._counted is not None:
            guard.release(self._counted)
            self._counted = None
        super().connection_lost(exc)

    def _guard(self) -> ConnectionGuard | None:
        return self.config.guard if isinstance(self.config, TableConfig) else None

    def _watch_body(self, closed: bool = False) -> None:
        """The body's deadline runs from the headers' end while the body is still coming."""
        coming = not closed and self.conn.their_state is h11.SEND_BODY
        if coming and self._body_deadline is None:
            self._body_deadline = self.loop.call_later(self.body_within_s, self._body_too_slow)
        elif not coming and self._body_deadline is not None:
            self._body_deadline.cancel()
            self._body_deadline = None

    def _body_too_slow(self) -> None:
        self._body_deadline = None
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            self.transport.write(_refusal(408, "the request's body came too slowly"))
        if cycle is not None:  # the route waiting for the body hears the client left
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

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


def _refusal(status: int, detail: str, retry_after_s: int = 0) -> bytes:
    """A whole answer written straight to the connection, which then closes."""
    body = json.dumps({"detail": detail}).encode()
    reason = {408: "Request Timeout", 503: "Service Unavailable"}[status]
    retry = f"retry-after: {retry_after_s}\r\n" if retry_after_s else ""
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n{retry}connection: close\r\n\r\n"
    ).encode() + body


class SafeJSONResponse(JSONResponse):
    """JSON whose text may hold lone surrogates (a JSON body may carry "\\ud800", and a refusal
    may quote it): they go out as JSON escapes, never as an encoding error and a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
        ).encode("utf-8", "backslashreplace")


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
