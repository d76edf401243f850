"""The venue page's HTTP side (FastAPI): the page, the evening as JSON and as a live stream,
CSV exports, and the organiser's tournament routes (behind the organiser's PIN).

Every route is `async` and reads the `Evening`'s cached view; the MQTT client's thread is the
only writer. Bad input gets a 4xx with one line naming what was wrong.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import mimetypes
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from controller.venue.evening import Evening
from controller.venue.tournament import TournamentError
from controller.words.language import CODES, COOKIE, Language, language_of
from controller.words.page import page_in

WEB = Path(__file__).parent / "web"
WORDS_JS = Path(__file__).parents[1] / "web" / "js" / "words.js"  # the phone page's, shared
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/css", ".css")


Pin = Annotated[str | None, Header(alias="X-Organiser-PIN")]


def spoken(request: Request) -> Language:
    """The asker's language: `?language=` (a big screen's address), else its choice on the page
    (a cookie), else its browser's Accept-Language."""
    asked = request.query_params.get("language")
    if asked in CODES:
        return Language(asked)
    return language_of(request.cookies.get(COOKIE), request.headers.get("accept-language"))


class NewTournament(BaseModel):
    name: str = Field("tournament", max_length=60)
    players: list[str] = Field(min_length=2, max_length=400)


class NewRound(BaseModel):
    game: str = Field(max_length=40)
    tables: list[str] | None = Field(None, max_length=500)


def create_venue_app(evening: Evening, pin: str, name: str, health: Any = None) -> FastAPI:
    """The venue page over an evening; `pin` guards the tournament routes."""
    app = FastAPI(title="railtable venue", version="0.1.0")
    page = (WEB / "index.html").read_text()  # translated, then the venue's name put in

    def organiser(given: str | None) -> None:
        if not given or not hmac.compare_digest(given.encode(), pin.encode()):
            raise HTTPException(403, "the organiser's PIN is needed for the tournament")

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return JSONResponse(
            {"detail": f"{where or 'request'}: {first.get('msg', 'malformed')}"}, 422
        )

    @app.exception_handler(TournamentError)
    async def refused(_: Request, error: TournamentError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, 409)

    _page_routes(app, page, name)

    @app.get("/api/venue", summary="Every table, the games finished, standings, the tournament")
    async def view(request: Request) -> dict[str, Any]:
        return {**evening.view(spoken(request)), "venue": name, "broker": _health(health)}

    @app.get("/api/venue/stream", summary="The venue as server-sent events, on every change")
    async def stream(request: Request) -> StreamingResponse:
        language = spoken(request)

        async def events() -> AsyncIterator[str]:
            seen = -1
            while not await request.is_disconnected():
                if evening.version != seen:
                    seen = evening.version
                    body = {**evening.view(language), "venue": name, "broker": _health(health)}
                    yield f"id: {seen}\nevent: venue\ndata: {json.dumps(body)}\n\n"
                await asyncio.sleep(0.1)

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )

    @app.get("/api/venue/games.csv", response_class=PlainTextResponse)
    async def games_csv(request: Request) -> PlainTextResponse:
        return _csv(evening.games_csv(spoken(request)), "games")

    @app.get("/api/venue/standings.csv", response_class=PlainTextResponse)
    async def standings_csv(request: Request) -> PlainTextResponse:
        return _csv(evening.standings_csv(spoken(request)), "standings")

    @app.post("/api/tournament", summary="Start a tournament with its players (organiser)")
    async def start(body: NewTournament, x_organiser_pin: Pin = None) -> dict[str, Any]:
        organiser(x_organiser_pin)
        await asyncio.to_thread(evening.start_tournament, body.name, body.players)
        return evening.view()["tournament"]  # type: ignore[no-any-return]

    @app.post("/api/tournament/rounds", summary="Seat the next round of a game (organiser)")
    async def next_round(body: NewRound, x_organiser_pin: Pin = None) -> dict[str, Any]:
        organiser(x_organiser_pin)
        made = await asyncio.to_thread(evening.next_round, body.game, body.tables)
        return made.to_json()

    @app.delete("/api/tournament", summary="End the tournament (organiser)")
    async def end(x_organiser_pin: Pin = None) -> dict[str, str]:
        organiser(x_organiser_pin)
        await asyncio.to_thread(evening.end_tournament)
        return {"detail": "the tournament is over"}

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


def _page_routes(app: FastAPI, page: str, name: str) -> None:
    """The page itself, in the asker's language, and the phone page's words.js it shares."""

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        language = spoken(request)
        out = HTMLResponse(page_in(language, page).replace("{{VENUE}}", _html(name)))
        if request.query_params.get("language") in CODES:  # kept, as the page's chooser keeps it
            out.set_cookie(COOKIE, language.value, max_age=365 * 24 * 3600, samesite="lax")
        return out

    @app.get("/static/words.js", include_in_schema=False)
    async def words_js() -> FileResponse:
        return FileResponse(WORDS_JS, media_type="text/javascript")


def _csv(text: str, what: str) -> PlainTextResponse:
    return PlainTextResponse(
        text,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="railtable-{what}.csv"'},
    )


def _health(health: Any) -> dict[str, str]:
    if health is None:
        return {"state": "unknown", "detail": ""}
    return {"state": str(health.state), "detail": str(health.detail)}


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
