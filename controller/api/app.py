"""The HTTP API for the phone page (FastAPI): the app, its routers, and errors in one line.

Every route knows who is asking (`deps.Who`): a spectator by default, a seat with its seat token,
the host with the table PIN. Malformed or refused requests get a 4xx naming the problem, never a
500; nothing private (another seat's hand, a hidden split, the random seed) leaves for someone who
may not see it. Every route is `async` and never blocks the event loop: reads come from the game
owner's snapshots or a worker thread, changes are commands awaited from the owner.

The page itself is `/` (controller/web/index.html) and its style and scripts are under `/static/`
(app.css, js/*.js as ES modules): all served from the Pi, nothing from the internet.
"""

from __future__ import annotations

import html
import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from controller.api import (
    game_routes,
    history_routes,
    host_routes,
    phones,
    session_routes,
    stream,
)
from controller.api.deps import PinGuard, Table
from controller.api.http import BodyLimit
from controller.api.http import SafeJSONResponse as JSONResponse
from controller.api.limits import WriteLimits
from controller.api.models import MAX_DETAIL, PROBLEMS, STATUS
from controller.api.workers import shared
from controller.game.access import Refused
from controller.game.host_sessions import HostSessions
from controller.game.store import StoreError
from controller.words.language import COOKIE, language_of
from controller.words.page import page_in

WEB = Path(__file__).parents[1] / "web"
PAGE = (WEB / "index.html").read_text()
FAVICON = (WEB / "favicon.svg").read_bytes()
# A browser runs a module script only with a JavaScript type; some systems map .js otherwise.
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/css", ".css")


class PageFiles(StaticFiles):
    """The page's style and scripts, revalidated on every load (a 304 while unchanged), so a phone
    never runs yesterday's script against an updated Pi."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


def _escaped(text: str) -> str:
    """Text that encodes: a lone surrogate (a JSON body may carry one) shown as its escape."""
    return text.encode("utf-8", "backslashreplace").decode()


def _short(detail: str) -> str:
    """One line of at most MAX_DETAIL characters: a refusal may quote what it was sent."""
    line = " ".join(_escaped(detail).split())
    return line if len(line) <= MAX_DETAIL else line[: MAX_DETAIL - 1] + "…"


def create_app(table: Table, address: str | Callable[[], str] = "") -> FastAPI:
    """The API over a running table; `address` is the one phones open (the seats' links; a
    function: asked each time, as the network may change), else the address a request came to."""
    app = FastAPI(
        title="railtable",
        description="The table service's API: what lies on the table, the game, and its players.",
        version="0.1.0",
        responses=PROBLEMS,
        default_response_class=JSONResponse,
        docs_url=None,  # Swagger UI comes from a CDN: blank on a table's network with no uplink
        redoc_url=None,
    )
    app.state.table = table
    app.state.address = address if callable(address) else lambda: address
    app.state.pin_guard = guard = PinGuard()
    # The table's own (kept in its data folder) where it has them, else in memory for this app.
    app.state.host_sessions = getattr(table, "host_sessions", None) or HostSessions(table.pin)
    clearing = getattr(table, "lockout_cleared", None)  # the table's button clears the lock-out
    if isinstance(clearing, list):
        clearing.append(guard.clear)
    app.state.write_limits = WriteLimits()
    app.state.seat_phones = phones.SeatPhones()  # which phone holds each seat
    shared()  # the worker threads start with the app: a burst of requests adds none
    app.add_middleware(BodyLimit)

    @app.exception_handler(Refused)
    async def refused(_: Request, error: Refused) -> JSONResponse:
        return JSONResponse({"detail": _short(str(error))}, status_code=STATUS[error.why])

    @app.exception_handler(StarletteHTTPException)
    async def refused_here(_: Request, error: StarletteHTTPException) -> Response:
        if error.status_code in (204, 304):
            return Response(status_code=error.status_code, headers=error.headers)
        detail = error.detail
        return JSONResponse(
            {"detail": _escaped(detail) if isinstance(detail, str) else detail},
            status_code=error.status_code,
            headers=error.headers,
        )

    @app.exception_handler(StoreError)
    async def unreadable(_: Request, error: StoreError) -> JSONResponse:
        return JSONResponse({"detail": _short(str(error))}, status_code=503)

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
            for e in error.errors()
        )
        return JSONResponse({"detail": _short(f"malformed request: {problems}")}, status_code=422)

    @app.get("/", include_in_schema=False)
    async def page(request: Request) -> HTMLResponse:
        """The page in the phone's language (its choice, else its browser's)."""
        chosen = language_of(request.cookies.get(COOKIE), request.headers.get("accept-language"))
        return HTMLResponse(page_in(chosen, PAGE), headers={"Vary": "Accept-Language, Cookie"})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(
            FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"}
        )

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(api_page(app.openapi()))

    app.mount("/static", PageFiles(directory=WEB), name="static")
    for area in (game_routes, host_routes, session_routes, history_routes, phones, stream):
        app.include_router(area.router)
    return app


def api_page(spec: dict[str, Any]) -> str:
    """The API described on one plain page, from its OpenAPI description and served by the Pi
    itself (no script, nothing from the internet); /openapi.json is the whole description."""
    rows = []
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            rows.append(
                f"<tr><td><code>{method.upper()}</code></td><td><code>{html.escape(path)}</code>"
                f"</td><td>{html.escape(op.get('summary', ''))}</td></tr>"
            )
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<title>railtable API</title><link rel=stylesheet href=/static/app.css>"
        "<h1>railtable: the table's API</h1><p>Who asks: a spectator by default, a seat with "
        "its <code>X-Seat-Token</code> header, the host with <code>X-Table-Pin</code>, or with "
        "<code>X-Host-Token</code> once <code>POST /api/host/session</code> gave one. The "
        "whole description, for any OpenAPI tool: <a href=/openapi.json>/openapi.json</a>.</p>"
        "<table><tr><th>Method</th><th>Path</th><th>What it does</th></tr>"
        + "".join(rows)
        + "</table></html>"
    )
