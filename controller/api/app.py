"""The HTTP API for the phone page (FastAPI): status, views, verdicts, the live stream, actions.

Every route knows who is asking (`Asker`): a spectator by default, a seat with its seat token, the
host with the table PIN. Malformed or refused requests get a 4xx naming the problem, never a 500;
nothing private (another seat's hand, a hidden split, the random seed) leaves for someone who may
not see it. The live stream is server-sent events whose id is the log row id, so a phone that
reconnects with `Last-Event-ID` misses nothing.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Protocol

import segno
from fastapi import Cookie, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from controller.game.access import Asker, Refused, Role, Why
from controller.game.live import TableSession
from controller.game.store import Event, EventKind
from controller.referee.judge import Referee, VerdictKind
from controller.referee.tables import Pieces, changed_locations
from rules.core import CHANCE, GameInfo, IllegalAction, State, Visibility
from rules.registry import GAMES, game_info, new_game

PAGE = (Path(__file__).parents[1] / "web" / "index.html").read_text()


class TableControl(Protocol):
    """What the API needs of the running service."""

    session: TableSession
    pin: str
    seat_tokens: dict[str, int]

    def status(self) -> dict[str, Any]: ...

    def wake(self) -> None: ...

    def camera_jpeg(self) -> bytes | None: ...

    def recalibrate(self) -> bool: ...


class ActionRequest(BaseModel):
    """An action no sensor sees, in the game's JSON form (docs/scenarios.md lists them)."""

    action: dict[str, Any]


class AnswerRequest(BaseModel):
    """The seat's pick for the referee's question: the option's number, from 0."""

    option: int = Field(ge=0)


class StartRequest(BaseModel):
    """A new game: its name, options (players among them) and, for a replayable test, a seed."""

    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0)


class UndoRequest(BaseModel):
    """How many players' actions to take back."""

    count: int = Field(default=1, ge=1, le=50)


class Problem(BaseModel):
    """What was wrong with a request, in one line."""

    detail: str


PROBLEMS: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "a body that is not JSON at all"},
    403: {"model": Problem, "description": "not allowed for who is asking"},
    404: {"model": Problem, "description": "no such thing (no game open)"},
    409: {"model": Problem, "description": "not now (no question to answer, nothing to undo)"},
    422: {"model": Problem, "description": "malformed, or refused by the rules"},
    429: {"model": Problem, "description": "too many wrong PINs: wait"},
}


class SeatToken(BaseModel):
    """A seat's token: the phone that holds it acts for that seat."""

    seat: int
    token: str


STATUS = {Why.NOT_ALLOWED: 403, Why.NOT_NOW: 409, Why.REFUSED: 422}
"""The HTTP status for each kind of refusal: the game says why, the API says it in HTTP."""

MAX_ID = 2**62  # row ids and game ids fit SQLite's integers with room to spare
PIN_TRIES = 5  # wrong PINs from one address within PIN_WINDOW_S before it must wait
PIN_WINDOW_S = 60.0


class PinGuard:
    """Counts wrong PINs per address: after PIN_TRIES in PIN_WINDOW_S, that address waits."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, list[float]] = {}

    def wait_s(self, address: str) -> float:
        now = self.clock()
        recent = [t for t in self.failures.get(address, []) if now - t < PIN_WINDOW_S]
        self.failures[address] = recent
        return 0.0 if len(recent) < PIN_TRIES else PIN_WINDOW_S - (now - recent[0])

    def failed(self, address: str) -> None:
        self.failures.setdefault(address, []).append(self.clock())


def asker(
    request: Request,
    x_table_pin: Annotated[str | None, Header()] = None,
    x_seat_token: Annotated[str | None, Header()] = None,
    railtable_seat: Annotated[str | None, Cookie(include_in_schema=False)] = None,
) -> Asker:
    """Who is asking: the host with the table PIN, a seat with its token, else a spectator.

    A page's live stream cannot send headers, so a GET may carry the seat token as the cookie
    `railtable_seat` instead; it only ever reads (a stale one reads as a spectator), and nothing
    that acts takes it, so no other site can act for a seat through it."""
    control: TableControl = request.app.state.control
    if x_table_pin is not None:
        guard: PinGuard = request.app.state.pin_guard
        address = request.client.host if request.client else "?"
        wait = guard.wait_s(address)
        if wait > 0:
            raise HTTPException(429, f"too many wrong PINs: try again in {math.ceil(wait)} s")
        if not control.pin or not secrets.compare_digest(x_table_pin, control.pin):
            guard.failed(address)
            raise HTTPException(403, "wrong table PIN")
        return Asker.host()
    if x_seat_token is not None:
        seat = control.seat_tokens.get(x_seat_token)
        if seat is None:
            raise HTTPException(403, "unknown seat token: join the seat again")
        return Asker.at(seat)
    if railtable_seat is not None and request.method == "GET":
        seat = control.seat_tokens.get(railtable_seat)
        if seat is not None:
            return Asker.at(seat)
    return Asker.spectator()


Who = Annotated[Asker, Depends(asker)]


def create_app(control: TableControl) -> FastAPI:
    """The API over a running table service."""
    app = FastAPI(
        title="railtable",
        description="The table service's API: what lies on the table, the game, and its players.",
        version="0.1.0",
        responses=PROBLEMS,
    )
    app.state.control = control
    app.state.pin_guard = PinGuard()
    session = control.session
    referees: dict[str, Referee] = {}  # per game, for replays of finished games

    @app.exception_handler(Refused)
    async def refused(_: Request, error: Refused) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=STATUS[error.why])

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
            for e in error.errors()
        )
        return JSONResponse({"detail": f"malformed request: {problems}"}, status_code=422)

    def host_only(who: Asker) -> None:
        if who.role is not Role.HOST:
            raise HTTPException(403, "the host only: send the table PIN")

    @app.get("/api/status", summary="The game, the inputs and their health, the pending verdict")
    def status(who: Who) -> dict[str, Any]:
        return {**control.status(), "you": {"role": who.role.value, "seat": who.seat}}

    @app.get("/api/games/available", summary="The games this table can referee")
    def available() -> list[dict[str, Any]]:
        return [
            {
                "name": info.name,
                "title": info.title,
                "min_players": info.min_players,
                "max_players": info.max_players,
                "options": [
                    {"name": o.name, "default": o.default, "choices": o.choices, "doc": o.doc}
                    for o in info.options
                ],
            }
            for info in GAMES.values()
        ]

    @app.get("/api/state", summary="The open game as the asker may see it")
    def state(who: Who) -> dict[str, Any]:
        current = session.state
        if current is None:
            raise HTTPException(404, "no game is open")
        seat = who.seat if who.role is Role.SEAT else None
        view = current.view(seat)
        public = view if seat is None else current.view(None)
        return {
            "game_id": session.record.id if session.record else None,
            "view": view,
            "private": {k: v for k, v in view.items() if public.get(k) != v},
            "phase": view.get("phase"),
            "current_player": current.current_player,
            "scores": current.scores(),
            "score_parts": [
                [{"what": what, "points": points} for what, points in parts]
                for parts in current.score_parts()
            ],
            "is_over": current.is_over,
        }

    @app.get("/api/table", summary="The mat in millimetres and what should lie on it now")
    def table(who: Who) -> dict[str, Any]:
        state, info, referee = session.state, session.info, session.referee
        if state is None or info is None or info.layout is None or referee is None:
            raise HTTPException(404, "no game with a table is open")
        pending = session.verdict
        return _table_json(
            info,
            state,
            referee,
            marked=list(pending.locations) if pending is not None else [],
            alert=pending is not None and pending.kind is VerdictKind.ALERT,
            last_move=sorted(session.last_move),
        )

    @app.get(
        "/api/camera.jpg",
        summary="The camera's view, annotated with what it read (host)",
        response_class=Response,
    )
    def camera(who: Who) -> Response:
        host_only(who)
        picture = control.camera_jpeg()
        if picture is None:
            raise HTTPException(404, "no camera picture yet (no camera, or not one frame read)")
        return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/choices", summary="What the asking seat may say now that no sensor sees")
    def choices(who: Who) -> list[dict[str, Any]]:
        state = session.state
        if state is None or who.role is not Role.SEAT or state.current_player != who.seat:
            return []
        return [
            {"text": a.words(), "action": a.to_json()}
            for a in state.legal_actions()
            if a.VISIBILITY is not Visibility.TABLE
        ]

    @app.get("/", include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse(PAGE)

    @app.get("/api/verdict", summary="What the referee last said, while it stands")
    def verdict(who: Who) -> dict[str, Any] | None:
        pending = session.verdict
        return None if pending is None else _verdict_for(pending.to_json(), who)

    @app.get("/api/events", summary="The log of the open game (or `game`), after a row id")
    def events(
        who: Who,
        after: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
        game: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    ) -> list[dict[str, Any]]:
        game_id = game or (session.record.id if session.record else None)
        if game_id is None:
            return []
        return [
            e for e in (_event_for(session, ev, who) for ev in session.log.events(game_id, after))
        ]

    @app.get(
        "/api/stream",
        summary="Server-sent events: every log row as it is written (id = row id)",
        response_class=StreamingResponse,
    )
    async def stream(
        who: Who,
        last_event_id: Annotated[int | None, Header(ge=0, le=MAX_ID)] = None,
        after: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
    ) -> StreamingResponse:
        start = last_event_id if last_event_id is not None else after
        if start is None:
            start = session.log.last_id()
        return StreamingResponse(
            _sse(control, who, start),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.post("/api/actions", summary="An action no sensor sees (a phone, a seat button)")
    def act(request: ActionRequest, who: Who) -> list[dict[str, Any]]:
        done = session.act(who, request.action)
        control.wake()
        return [e.to_json() for e in done]

    @app.post("/api/answer", summary="The seat's pick for the referee's question")
    def answer(request: AnswerRequest, who: Who) -> list[dict[str, Any]]:
        done = session.answer(who, request.option)
        control.wake()
        return [e.to_json() for e in done]

    @app.post("/api/games", summary="Start a game (host)")
    def start(request: StartRequest, who: Who) -> dict[str, Any]:
        host_only(who)
        session.start(request.game, request.options, request.seed)
        control.wake()
        return {"game_id": session.record.id if session.record else None}

    @app.post("/api/games/current/end", summary="End the open game (host)")
    def end(who: Who) -> dict[str, Any]:
        host_only(who)
        session.end()
        return {"ended": True}

    @app.post("/api/undo", summary="Take back the last players' actions (host)")
    def undo(request: UndoRequest, who: Who) -> list[dict[str, Any]]:
        host_only(who)
        done = session.undo(who, request.count)
        control.wake()
        return [e.to_json() for e in done]

    @app.post("/api/table/accept", summary="The table as it lies now is right (host)")
    def accept(who: Who) -> dict[str, Any]:
        host_only(who)
        session.accept_table(who)
        control.wake()
        return {"accepted": True}

    @app.post("/api/seats/{seat}/token", summary="A token for a seat's phone (host)")
    def seat_token(seat: Annotated[int, FastPath(ge=0, le=15)], who: Who) -> SeatToken:
        host_only(who)
        if session.state is None:
            raise HTTPException(409, "no game is open")
        players = int(session.state.options.get("players", 0))
        if not 0 <= seat < players:
            raise HTTPException(422, f"seat {seat} is not one of 0..{players - 1}")
        token = secrets.token_urlsafe(16)
        control.seat_tokens[token] = seat
        return SeatToken(seat=seat, token=token)

    @app.get("/api/seats/{seat}/qr", summary="A QR code that joins a phone to a seat (host)")
    def seat_qr(
        seat: Annotated[int, FastPath(ge=0, le=15)], request: Request, who: Who
    ) -> Response:
        token = seat_token(seat, who).token
        link = str(request.base_url).rstrip("/") + f"/?seat={token}"
        picture = io.BytesIO()
        segno.make(link, error="m").save(picture, kind="svg", scale=6, xmldecl=False)
        return Response(picture.getvalue(), media_type="image/svg+xml")

    @app.get("/api/games", summary="Finished games with their final scores")
    def finished() -> list[dict[str, Any]]:
        return [
            {
                "id": g.id,
                "game": g.game,
                "title": game_info(g.game).title if g.game in GAMES else g.game,
                "players": g.options.get("players"),
                "started_at": g.started_at,
                "ended_at": g.ended_at,
                "scores": g.scores,
            }
            for g in session.log.games(finished=True)
        ]

    @app.get(
        "/api/games/{game_id}/record", summary="The JSON game record (host: it holds the seed)"
    )
    def record(game_id: Annotated[int, FastPath(ge=1, le=MAX_ID)], who: Who) -> dict[str, Any]:
        host_only(who)
        try:
            return session.log.record_json(game_id)
        except KeyError:
            raise HTTPException(404, f"no game {game_id}") from None

    @app.post("/api/camera/calibrate", summary="Find the mat's corner markers afresh (host)")
    def calibrate(who: Who) -> dict[str, Any]:
        host_only(who)
        if not control.recalibrate():
            raise HTTPException(409, "no camera to calibrate (none configured, or not started)")
        control.wake()
        return {"calibrating": True}

    @app.get(
        "/api/games/{game_id}/replay",
        summary="A game's table after its `step`th players' move (0: the start), as all may see",
    )
    def replay(
        game_id: Annotated[int, FastPath(ge=1, le=MAX_ID)],
        step: Annotated[int, Query(ge=0, le=100_000)] = 0,
    ) -> dict[str, Any]:
        record = session.log.game(game_id)
        if record is None or record.game not in GAMES:
            raise HTTPException(404, f"no game {game_id}")
        info = game_info(record.game)
        moves = session.log.record_json(game_id)["actions"]
        state = new_game(record.game, record.options, record.seed)
        referee = None
        if info.layout is not None:
            referee = referees.get(info.name) or referees.setdefault(
                info.name, Referee.for_game(info)
            )
        steps = sum(1 for m in moves if m["seat"] is not None and m["seat"] != CHANCE)
        if step > steps:
            raise HTTPException(404, f"step {step} is beyond the game's {steps} moves")
        done, text, actor = 0, "the start", CHANCE
        before: dict[str, Pieces] = {}
        for move in moves:
            players_move = move["seat"] is not None and move["seat"] != CHANCE
            if players_move and done == step:
                break
            if players_move:
                actor = int(move["seat"])
                if done == step - 1 and referee is not None:
                    before = referee.table_of(state)  # the table before the step shown
            action = state.parse_action(move["action"])
            state.apply(action)
            if players_move:
                done += 1
                text = _words(type(state), state.action_view(action, actor, None))
        moved: list[str] = []
        if referee is not None and step > 0:
            moved = sorted(changed_locations(before, referee.table_of(state)))
        return {
            "game_id": game_id,
            "title": info.title,
            "steps": steps,
            "step": step,
            "seat": None if actor == CHANCE else actor,
            "text": text,
            "scores": state.scores(),
            "table": None
            if referee is None or info.layout is None
            else _table_json(info, state, referee, marked=[], alert=False, last_move=moved),
        }

    return app


def _table_json(
    info: GameInfo,
    state: State,
    referee: Referee,
    *,
    marked: list[str],
    alert: bool,
    last_move: list[str],
) -> dict[str, Any]:
    """The mat in millimetres and what lies on it for `state`, with squares to point out."""
    assert info.layout is not None
    layout = info.layout(state.options)
    return {
        "width_mm": layout.width_mm,
        "height_mm": layout.height_mm,
        "locations": [
            {"name": loc.name, "x": loc.x_mm, "y": loc.y_mm, "w": loc.w_mm, "h": loc.h_mm}
            for loc in layout.locations
        ],
        "pieces": {
            name: [
                {
                    "label": referee.describe_piece(p),
                    "kind": p.piece.kind,
                    "identity": p.piece.identity,
                    "face": p.piece.face,
                    "turn": p.rotation,
                }
                for p in pieces
            ]
            for name, pieces in referee.table_of(state).items()
        },
        "marked": marked,
        "alert": alert,
        "last_move": last_move,
    }


def _words(state_class: type[State], view: dict[str, Any]) -> str:
    """An action as someone sees it, in words (a hidden draw: just what kind of draw it was)."""
    try:
        return state_class.CODEC.parse(view).words()
    except IllegalAction:
        return str(view.get("type", "a hidden action")).replace("_", " ") + " (hidden)"


def _verdict_for(data: dict[str, Any], who: Asker) -> dict[str, Any]:
    """A verdict as the asker may see it: the question's options only for its seat and the host."""
    if who.role is Role.HOST or (who.role is Role.SEAT and who.seat == data.get("seat")):
        return data
    hidden = dict(data)
    if data.get("kind") in (VerdictKind.CHOICE.value, VerdictKind.NEEDS_INPUT.value):
        hidden["options"] = []
        hidden["text"] = f"seat {data.get('seat')} is asked how the table came about"
        hidden["words"] = hidden["text"]
    hidden["actions"] = [a for a in data.get("actions", []) if not _is_draw(a)]
    return hidden


def _is_draw(action: dict[str, Any]) -> bool:
    return bool(action.get("hidden")) or action.get("chance", False) is True


def _event_for(session: TableSession, event: Event, who: Asker) -> dict[str, Any]:
    """A log row as the asker may see it (a dealt card, a hidden split stay with their seat)."""
    out = event.to_json()
    if event.kind is EventKind.ACTION:
        seen = (
            _action_for(session, event, who) if who.role is not Role.HOST else out["data"]["action"]
        )
        out["data"] = {"action": seen, "text": _action_words(session, event, seen)}
    elif event.kind is EventKind.VERDICT:
        out["data"] = _verdict_for(event.data, who)
    return out


def _action_for(session: TableSession, event: Event, who: Asker) -> dict[str, Any]:
    state = session.state
    record = session.log.game(event.game_id)
    if record is None or record.game not in GAMES:
        return {"type": "hidden"}
    codec_state = state if state is not None and record.game == state.GAME else None
    info = game_info(record.game)
    try:
        action = info.state_class.CODEC.parse(event.data["action"])
    except IllegalAction:
        return {"type": "hidden"}
    seat = who.seat if who.role is Role.SEAT else None
    actor = -1 if event.seat is None else event.seat
    if codec_state is not None:
        return codec_state.action_view(action, actor, seat)
    return {"type": action.TYPE} if action.CHANCE_OUTCOME else action.to_json()


def _action_words(session: TableSession, event: Event, seen: dict[str, Any]) -> str:
    record = session.log.game(event.game_id)
    if record is None or record.game not in GAMES:
        return str(seen.get("type", "?"))
    return _words(game_info(record.game).state_class, seen)


async def _sse(control: TableControl, who: Asker, after: int) -> AsyncIterator[bytes]:
    """Rows after `after`, then every new one as it is written; a comment line keeps it alive."""
    session = control.session
    queue: asyncio.Queue[Event] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def listen(event: Event) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, event)

    session.listeners.append(listen)
    try:
        sent = after
        for event in session.log.events(None, after, limit=100_000):
            yield _sse_line(session, event, who)
            sent = event.id
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), timeout=15.0)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            if event.id <= sent:
                continue
            yield _sse_line(session, event, who)
            sent = event.id
    finally:
        session.listeners.remove(listen)


def _sse_line(session: TableSession, event: Event, who: Asker) -> bytes:
    data = json.dumps(_event_for(session, event, who), sort_keys=True)
    return f"id: {event.id}\nevent: {event.kind.value}\ndata: {data}\n\n".encode()
