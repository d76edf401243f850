"""The live stream (server-sent events): each log row as the asker may see it, id = row id, and
after each round the asker's whole view (`snapshot`: the game as `/api/status` names it, state,
table, verdict, choices), so a phone draws from the stream without asking again. A phone that
reconnects with `Last-Event-ID` (or `?after=`) gets the rows it missed first, read off the event
loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from controller.api.deps import PHONE_COOKIE, Spoken, TableDep, Who, phone_id, shown_game
from controller.api.game_routes import rendered_rows
from controller.api.limits import StreamSlot, take_stream
from controller.api.models import MAX_ID
from controller.api.phones import SeatPhones, seat_phones
from controller.api.workers import in_worker
from controller.game.access import Asker
from controller.game.owner import RenderedEvent, Subscriber
from controller.game.privacy import audience
from controller.game.snapshot import GameSnapshot
from controller.words.language import Language

router = APIRouter()
CATCH_UP_ROWS = 500  # rows sent on one connection's catch-up; a phone further behind reconnects
STREAMS_PER_ADDRESS = 16  # live streams one address may hold open (a phone holds one)
KEEP_ALIVE_S = 15.0
SMALL_CATCH_UP = 50  # rows a stream may catch up on at once without waiting its turn
LONG_CATCH_UPS_PER_S = 10.0  # longer catch-ups, for the whole table


class Pacer:
    """Turns at most `per_s` a second, in the order asked, for the whole table: a long catch-up
    waits for one (waiting costs the event loop nothing). A phone asks for a long one only after
    being away long (a new page starts from now, a reconnect from its last row); clients asking
    for every row again and again from ever new addresses took half the event loop's work under
    `railtable bench load`, and the phones' status requests waited behind them."""

    def __init__(self, per_s: float) -> None:
        self.gap_s = 1.0 / per_s
        self.next_s = 0.0

    async def turn(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        at = max(now, self.next_s)
        self.next_s = at + self.gap_s
        if at > now:
            await asyncio.sleep(at - now)


_LONG_CATCH_UPS = Pacer(LONG_CATCH_UPS_PER_S)


@router.get(
    "/api/stream",
    summary="Server-sent events: every log row as it is written (id = row id), then the view",
    response_class=StreamingResponse,
)
async def stream(
    request: Request,
    table: TableDep,
    who: Who,
    language: Spoken,
    last_event_id: Annotated[int | None, Header(ge=0, le=MAX_ID)] = None,
    after: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
) -> StreamingResponse:
    start = last_event_id if last_event_id is not None else after
    address = request.client.host if request.client else "?"
    slot = take_stream(_OPEN, address, STREAMS_PER_ADDRESS)  # counted now, not once it streams
    if slot is None:
        raise HTTPException(429, f"too many live streams from {address}: close one first")
    try:
        if start is not None and table.owner.last_row() - start > SMALL_CATCH_UP:
            await _LONG_CATCH_UPS.turn()  # before the answer starts: a client gets no byte sooner
    except BaseException:
        slot.release()
        raise
    phone = phone_id(request.cookies.get(PHONE_COOKIE))
    held = (seat_phones(request), phone) if phone is not None and who.seat is not None else None
    return CountedStream(
        slot,
        _events(table, who, start, held, language),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


_OPEN: dict[str, int] = {}  # live streams per client address, each from its acceptance


class CountedStream(StreamingResponse):
    """A live stream holding its slot until it ends, however it ends (a client that hangs up
    before the first byte included)."""

    def __init__(self, slot: StreamSlot, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slot.release()


async def _events(
    table: TableDep,
    who: Asker,
    after: int | None,
    held: tuple[SeatPhones, str] | None = None,
    language: Language = Language.EN,
) -> AsyncGenerator[bytes, None]:
    owner = table.owner
    subscriber = Subscriber(asyncio.get_running_loop())
    snap, last = owner.subscribe(subscriber)
    game = shown_game(table)
    if held is not None and who.seat is not None and game is not None:  # ends if taken over
        held[0].watch(game, who.seat, held[1], subscriber)
    try:
        sent = last if after is None else after
        if sent < last and snap.game_id is not None:  # the open game's rows only
            lines, sent, more = await _catch_up(table, who, snap.game_id, sent, last, language)
            if lines:
                yield b"".join(lines)
            if more:
                yield b"retry: 100\n\n"
                return  # more to catch up: the phone reconnects after the last row it got
        yield _view(snap, who, language)
        while True:
            try:
                item = await asyncio.wait_for(subscriber.queue.get(), KEEP_ALIVE_S)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            # One write for every round waiting (rows, then the view after them): each write
            # is a trip through the server for every phone, so a busy round costs one.
            lines = []
            while item is not None:
                for event in item.events:
                    if event.id > sent:
                        lines.append(_row(event, who, language))
                        sent = event.id
                if item.snapshot is not None:
                    lines.append(_view(item.snapshot, who, language))
                if subscriber.queue.empty():
                    break
                item = subscriber.queue.get_nowait()
            if lines:
                yield lines[0] if len(lines) == 1 else b"".join(lines)
            if item is None:
                return  # the service stops, or this phone fell too far behind: it reconnects
    finally:
        owner.unsubscribe(subscriber)
        if held is not None and who.seat is not None and game is not None:
            held[0].unwatch(game, who.seat, subscriber)


async def _catch_up(
    table: TableDep,
    who: Asker,
    game_id: int,
    sent: int,
    last: int,
    language: Language = Language.EN,
) -> tuple[list[bytes], int, bool]:
    """The rows of the open game after `sent` up to `last` (at most CATCH_UP_ROWS): from the
    owner's kept rows when it has them all (as published: nothing read, nothing rendered), else
    read and rendered on a worker. Returns the lines, the last row in them, and whether more
    remain."""
    kept = table.owner.rows_after(game_id, sent, CATCH_UP_ROWS)
    lines = []
    if kept is not None:
        for event in kept:
            if event.id > last:
                break
            lines.append(_row(event, who, language))
            sent = event.id
        return lines, sent, sent < last and len(kept) >= CATCH_UP_ROWS
    rows = await in_worker(rendered_rows, table, who, game_id, sent, CATCH_UP_ROWS, language)
    for row in rows:
        if row["id"] > last:
            break
        lines.append(_line(row["id"], row["kind"], row))
        sent = row["id"]
    return lines, sent, bool(rows) and sent < last and len(rows) >= CATCH_UP_ROWS


def _line(row: int, kind: str, data: dict[str, Any]) -> bytes:
    return f"id: {row}\nevent: {kind}\ndata: {json.dumps(data, sort_keys=True)}\n\n".encode()


def _row(event: RenderedEvent, who: Asker, language: Language = Language.EN) -> bytes:
    """A published row as `who` may see it, encoded once per row, audience and language."""
    seen = audience(who, event.players)
    if seen not in event.by_audience:
        seen = Asker.spectator()
    key = seen if language is Language.EN else (seen, language)
    line = event.encoded.get(key)
    if line is None:  # kept on the row: gone with it, whatever phones came and went
        row = event.for_audience(seen, language)
        line = event.encoded[key] = _line(event.id, event.kind, row)
    return line


def _view(snap: GameSnapshot, who: Asker, language: Language = Language.EN) -> bytes:
    """The asker's whole view after a round, encoded once per snapshot and audience: what
    `/api/state`, `/api/table`, `/api/verdict` and `/api/choices` answer, and the game (id, name,
    title, players, whose turn, scores) and the event log's state (`store`) as `/api/status`
    gives them."""
    seen = audience(who, snap.players)
    key = seen if language is Language.EN else (seen, language)
    cached = snap.encoded.get(key)
    if cached is not None:  # kept on the snapshot: gone with it once a newer one is out
        return cached
    body = {
        "version": snap.version,
        "row": snap.row,
        "game": snap.status(language)["game"],  # a seat no one named: in its language
        "finished": snap.finished_in(language),
        "store": snap.status()["store"],  # a full disk: every phone shows it at once
        **snap.for_asker(who, language),
    }
    line = snap.encoded[key] = f"event: snapshot\ndata: {json.dumps(body)}\n\n".encode()
    return line
