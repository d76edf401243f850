"""The table's answers while it starts, then the full app's: a plain ASGI app (no FastAPI, nothing
heavy imported) answers `/api/status` with a "starting" state, `/` with a page that reloads itself,
and anything else 503 with Retry-After, until `Handover.ready` gives it the full app. uvicorn serves
the one `Handover` all along, on the one socket: no connection a phone opened is dropped. Its
words are in the phone's language (its cookie, else its browser's Accept-Language)."""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import CookieError, SimpleCookie
from typing import Any

from controller.words.language import COOKIE, Language, Tongue, language_of, tongue

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

RETRY_AFTER_S = 1  # a request refused while starting: asked again this soon
STARTING_DETAIL = "the table is starting"


def status(say: Tongue) -> dict[str, Any]:
    """`/api/status` while the table starts, its detail in `say`'s language."""
    detail = say.tr("the table is starting")
    return {
        **STATUS,
        "detail": detail,
        "camera": {"state": "starting", "detail": detail},
        "board": {"state": "starting", "detail": detail},
    }


STATUS: dict[str, Any] = {
    "starting": True,
    "state": "starting",
    "mode": "starting",
    "detail": STARTING_DETAIL,
    "game": None,
    "camera": {"state": "starting", "detail": STARTING_DETAIL},
    "board": {"state": "starting", "detail": STARTING_DETAIL},
    "store": {"state": "ok", "detail": ""},
    "you": {"role": "spectator", "seat": None},
}
"""`/api/status` while the table starts: `starting` (false in the full app's) is what the page
reads; the inputs' parts are there, saying so, for whatever reads them."""

PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{retry}">
<title>{title}</title>
<style>body{{font:1.2rem system-ui,sans-serif;margin:2rem;color:#222}}</style>
</head><body><h1 translate="no">railtable</h1>
<p id="verdict" role="status">{starting}</p>
</body></html>
"""
"""`/` while the table starts: it says so and reloads itself each second, the real page then."""


def page(say: Tongue) -> str:
    """The starting page in `say`'s language."""
    return PAGE.format(
        lang=say.language.value,
        retry=RETRY_AFTER_S,
        title=html.escape(say.tr("railtable: starting")),
        starting=html.escape(say.tr("The table is starting… this page carries on by itself.")),
    )


def _language(scope: Scope) -> Language:
    """The asking phone's language, from its request's headers."""
    cookie = accept = None
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            try:
                jar: SimpleCookie = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                continue
            if COOKIE in jar:
                cookie = jar[COOKIE].value
        elif name == b"accept-language":
            accept = value.decode("latin-1")
    return language_of(cookie, accept)


async def _answer(
    send: Send, status: int, body: bytes, kind: bytes, more: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    headers = [
        (b"content-type", kind),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *more,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def starting_app(scope: Scope, receive: Receive, send: Send) -> None:
    """The answers while the table starts (HTTP only; a websocket is refused)."""
    if scope["type"] != "http":
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1013})  # try again later
        return
    path = scope.get("path", "")
    reading = scope.get("method", "GET") in ("GET", "HEAD")
    say = tongue(_language(scope))
    if reading and path == "/api/status":
        await _answer(send, 200, json.dumps(status(say)).encode(), b"application/json")
        return
    if reading and path in ("/", "/index.html"):
        await _answer(send, 200, page(say).encode(), b"text/html; charset=utf-8")
        return
    body = json.dumps({"detail": say.tr("the table is starting"), "starting": True}).encode()
    retry = ((b"retry-after", str(RETRY_AFTER_S).encode()),)
    await _answer(send, 503, body, b"application/json", retry)


class Handover:
    """One ASGI app for the server's whole life: the starting app's answers until `ready` gives
    the full app, which answers every request from then on (one already being answered by the
    starting app finishes there). The lifespan is answered here: the full app has no hooks."""

    def __init__(self, starting: ASGIApp = starting_app) -> None:
        self.starting = starting
        self.app: ASGIApp | None = None

    @property
    def is_ready(self) -> bool:
        """Whether the full app answers now."""
        return self.app is not None

    def ready(self, app: ASGIApp) -> None:
        """The full app answers every request from now on."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        app = self.app if self.app is not None else self.starting
        await app(scope, receive, send)
