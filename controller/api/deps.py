"""What every route depends on: the table it serves, who is asking, and the host's check.

Routes declare these as `Annotated` dependencies, so a test swaps any of them with FastAPI's
`dependency_overrides`. They are `async` (and quick: no I/O, no waiting): FastAPI runs a plain
`def` dependency on a worker thread, three hand-offs a request that cost a loaded Pi more than
the work itself."""

from __future__ import annotations

import asyncio
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
TABLE_TRIES = 10  # wrong PINs from all addresses together within PIN_WINDOW_S
MAX_ADDRESSES = 1024  # addresses whose wrong PINs are remembered
LOCKED_ANSWER_S = 0.5  # a PIN tried while the tries are used up is answered (429) after this:
# a guesser sending one guess after another, as fast as answers come, took a third of the event
# loop's work under `railtable bench load` for nothing but 429s; now it waits, and costs nothing


class Table(Protocol):
    """What the API needs of the running table: the game's owner, the log to read, the PIN."""

    owner: GameOwner
    reader: LogReader
    pin: str
    tokens: SeatTokens

    def camera_jpeg(self) -> bytes | None:
        """The camera's newest frame, annotated (run on an API worker, never the event loop)."""

    def recalibrate(self) -> bool:
        """Look for the mat's corners afresh; False: no camera (run on the owner's thread)."""


class PinGuard:
    """Counts wrong PINs: after PIN_TRIES in PIN_WINDOW_S from one address, that address waits;
    after TABLE_TRIES in PIN_WINDOW_S from all addresses together, everyone does (so rotating
    addresses gains nothing). Its memory is bounded: old failures are forgotten, and at most
    MAX_ADDRESSES addresses are remembered."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, list[float]] = {}
        self.everyone: list[float] = []

    def wait_s(self, address: str) -> float:
        now = self.clock()
        self.everyone = [t for t in self.everyone if now - t < PIN_WINDOW_S]
        recent = [t for t in self.failures.get(address, []) if now - t < PIN_WINDOW_S]
        if recent:
            self.failures[address] = recent
        else:
            self.failures.pop(address, None)
        waits = [0.0]
        if len(recent) >= PIN_TRIES:
            waits.append(PIN_WINDOW_S - (now - recent[0]))
        if len(self.everyone) >= TABLE_TRIES:
            waits.append(PIN_WINDOW_S - (now - self.everyone[0]))
        return max(waits)

    def failed(self, address: str) -> None:
        now = self.clock()
        self.everyone.append(now)
        if address not in self.failures and len(self.failures) >= MAX_ADDRESSES:
            oldest = min(self.failures, key=lambda a: self.failures[a][-1])
            del self.failures[oldest]
        self.failures.setdefault(address, []).append(now)


async def table(request: Request) -> Table:
    """The table this app serves."""
    served: Table = request.app.state.table
    return served


TableDep = Annotated[Table, Depends(table)]


async def asker(
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
            await asyncio.sleep(LOCKED_ANSWER_S)
            raise HTTPException(429, f"too many wrong PINs: try again in {math.ceil(wait)} s")
        given = x_table_pin.encode("utf-8", "surrogateescape")
        if not served.pin or not secrets.compare_digest(given, served.pin.encode()):
            guard.failed(address)
            raise HTTPException(403, "wrong table PIN")
        return Asker.host()
    snapshot = served.owner.snapshot
    game_id = snapshot.game_id
    if game_id is None and snapshot.finished is not None:
        game_id = int(snapshot.finished["id"])  # its end screen: a phone is still its player's
    if x_seat_token is not None:
        seat = served.tokens.seat(x_seat_token, game_id)
        if seat is None:
            raise HTTPException(
                403, "this phone's seat link is for an earlier game: scan your seat's code again"
            )
        return Asker.at(seat)
    if railtable_seat is not None and request.method == "GET":
        seat = served.tokens.seat(railtable_seat, game_id)
        if seat is not None:
            return Asker.at(seat)
    return Asker.spectator()


Who = Annotated[Asker, Depends(asker)]


async def host(who: Who) -> Asker:
    """The host only: anyone else gets 403."""
    if who.role is not Role.HOST:
        raise HTTPException(403, "the host only: send the table PIN")
    return who


Host = Annotated[Asker, Depends(host)]
