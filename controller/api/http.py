"""The HTTP answers' own parts (FastAPI): JSON that carries lone surrogates, a body bounded as it
arrives (413 beyond `MAX_BODY_BYTES`: no route takes more than a few hundred bytes), and the app
warmed before any phone comes. The server's settings, deadlines and connection caps are in
`controller.api.server`."""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 64 * 1024


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
