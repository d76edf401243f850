"""Which phone holds each seat: a seat's link opened on a second phone asks before taking it over.

A phone names itself with a random id of its own (`X-Phone`; the cookie `railtable_phone` for
its live stream, which cannot send headers). `POST /api/seats/claim` with the seat's token makes
the phone the seat's (or says whose phone holds it: the newcomer asks before taking it over).
A seat held by one phone is a spectator's to any other phone that names itself, and the holder's
live stream ends when another phone takes the seat over (the page then learns it is watching).

The id is not a secret and guards nothing the seat token does not: whoever has the token may take
the seat over (it is the seat's key). It stops a second phone becoming the same player unawares
(and renaming the first phone's player). A request that names no phone (an API client, a page of
an earlier version) is the seat's, as before. Held seats are kept in memory: after a restart the
first phone to come back holds its seat again."""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Request
from pydantic import BaseModel

from controller.api.deps import PHONE, TableDep, phone_id, seat_of_token
from controller.game.owner import Subscriber

router = APIRouter()


class SeatPhones:
    """(game, seat) -> the phone holding it, and the live streams of each seat's phones; safe
    from any thread."""

    def __init__(self) -> None:
        self._held: dict[tuple[int, int], str] = {}
        self._streams: dict[tuple[int, int], dict[Subscriber, str]] = {}
        self._lock = threading.Lock()

    def holder(self, game: int, seat: int) -> str | None:
        with self._lock:
            return self._held.get((game, seat))

    def may(self, game: int, seat: int, phone: str | None) -> bool:
        """Whether `phone` may be the seat's: no phone named, none holding it, or this one."""
        if phone is None:
            return True
        held = self.holder(game, seat)
        return held is None or held == phone

    def hold(self, game: int, seat: int, phone: str) -> None:
        """`phone` holds the seat now: the live streams of any other phone at it end."""
        with self._lock:
            self._held = {k: v for k, v in self._held.items() if k[0] == game}
            self._held[(game, seat)] = phone
            streams = self._streams.get((game, seat), {})
            others = [s for s, p in streams.items() if p != phone]
        for stream in others:
            stream.deliver(None)  # its stream ends; the page asks again who it is

    def watch(self, game: int, seat: int, phone: str, stream: Subscriber) -> None:
        with self._lock:
            self._streams.setdefault((game, seat), {})[stream] = phone

    def unwatch(self, game: int, seat: int, stream: Subscriber) -> None:
        with self._lock:
            streams = self._streams.get((game, seat), {})
            streams.pop(stream, None)
            if not streams:
                self._streams.pop((game, seat), None)


def seat_phones(request: Request) -> SeatPhones:
    phones: SeatPhones = request.app.state.seat_phones
    return phones


class ClaimRequest(BaseModel):
    """Take the seat even if another phone holds it (after asking the person)."""

    take_over: bool = False


@router.post(
    "/api/seats/claim",
    summary="This phone (X-Phone) holds the seat of its token (X-Seat-Token); held by another "
    "phone: says by whom, unless take_over (that phone then watches)",
)
async def claim(
    body: ClaimRequest,
    request: Request,
    table: TableDep,
    x_seat_token: Annotated[str, Header(max_length=200)],
    x_phone: Annotated[str, Header(pattern=PHONE.pattern)],
) -> dict[str, Any]:
    phone = phone_id(x_phone)
    if phone is None:  # the header's pattern already said so
        raise HTTPException(422, "send this phone's id (X-Phone)")
    game, seat = seat_of_token(table, x_seat_token)
    phones = seat_phones(request)
    held = phones.holder(game, seat)
    players = table.owner.snapshot.players_json
    name = str(players[seat].get("name", "")) if seat < len(players) else ""
    if held is not None and held != phone and not body.take_over:
        return {"seat": seat, "held": False, "by": name}
    phones.hold(game, seat, phone)
    return {"seat": seat, "held": True, "took_over": held is not None and held != phone}
