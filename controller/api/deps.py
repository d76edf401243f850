"""What every route depends on: the table it serves, who is asking, and the host's check.

Routes declare these as `Annotated` dependencies, so a test swaps any of them with FastAPI's
`dependency_overrides`."""

from __future__ import annotations

import math
import secrets
import time
from typing import Annotated, Any, Protocol

from fastapi import Cookie, Depends, Header, HTTPException, Request

from controller.game.access import Asker, Role, SeatTokens
from controller.game.owner import GameOwner
from controller.game.store import LogReader

PIN_TRIES = 5  # wrong PINs from one address within PIN_WINDOW_S before it must wait
PIN_WINDOW_S = 60.0


class Table(Protocol):
    """What the API needs of the running table: the game's owner, the log to read, the PIN."""

    owner: GameOwner
    reader: LogReader
    pin: str
    tokens: SeatTokens

    def camera_jpeg(self) -> bytes | None:
        """The camera's newest frame, annotated (run on the owner's thread)."""

    def recalibrate(self) -> bool:
        """Look for the mat's corners afresh; False: no camera (run on the owner's thread)."""


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


def table(request: Request) -> Table:
    """The table this app serves."""
    served: Table = request.app.state.table
    return served


TableDep = Annotated[Table, Depends(table)]


def asker(
    request: Request,
    served: TableDep,
    x_table_pin: Annotated[str | None, Header()] = None,
    x_seat_token: Annotated[str | None, Header()] = None,
    railtable_seat: Annotated[str | None, Cookie(include_in_schema=False)] = None,
) -> Asker:
    """Who is asking: the host with the table PIN, a seat with its token, else a spectator.

    A page's live stream cannot send headers, so a GET may carry the seat token as the cookie
    `railtable_seat` instead; it only ever reads (a stale one reads as a spectator), and nothing
    that acts takes it, so no other site can act for a seat through it."""
    if x_table_pin is not None:
        guard: PinGuard = request.app.state.pin_guard
        address = request.client.host if request.client else "?"
        wait = guard.wait_s(address)
        if wait > 0:
            raise HTTPException(429, f"too many wrong PINs: try again in {math.ceil(wait)} s")
        if not served.pin or not secrets.compare_digest(x_table_pin, served.pin):
            guard.failed(address)
            raise HTTPException(403, "wrong table PIN")
        return Asker.host()
    if x_seat_token is not None:
        seat = served.tokens.seat(x_seat_token)
        if seat is None:
            raise HTTPException(403, "unknown seat token: join the seat again")
        return Asker.at(seat)
    if railtable_seat is not None and request.method == "GET":
        seat = served.tokens.seat(railtable_seat)
        if seat is not None:
            return Asker.at(seat)
    return Asker.spectator()


Who = Annotated[Asker, Depends(asker)]


def host(who: Who) -> Asker:
    """The host only: anyone else gets 403."""
    if who.role is not Role.HOST:
        raise HTTPException(403, "the host only: send the table PIN")
    return who


Host = Annotated[Asker, Depends(host)]
