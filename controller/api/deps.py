"""What every route depends on: the table it serves, who is asking, and the host's check.

Routes declare these as `Annotated` dependencies, so a test swaps any of them with FastAPI's
`dependency_overrides`. They are `async` (and quick: no I/O, no waiting): FastAPI runs a plain
`def` dependency on a worker thread, three hand-offs a request that cost a loaded Pi more than
the work itself."""

from __future__ import annotations

import asyncio
import math
import re
import secrets
import threading
import time
from typing import Annotated, Any, Protocol

from fastapi import Cookie, Depends, Header, HTTPException, Request

from controller.api.workers import shared
from controller.game.access import Asker, SeatTokens
from controller.game.host_sessions import HostSessions
from controller.game.owner import GameOwner
from controller.game.store import LogReader
from controller.words.language import COOKIE as LANGUAGE_COOKIE
from controller.words.language import Language, language_of

PIN_TRIES = 5  # wrong PINs from one address within PIN_WINDOW_S before it must wait
PIN_WINDOW_S = 60.0
TABLE_TRIES = 10  # wrong PINs from all addresses together within PIN_WINDOW_S
HOST_COOKIE = "railtable_host"  # a host session's token for the page (HttpOnly, Path=/api)
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
    MAX_ADDRESSES addresses are remembered. `clear()` (the table's button, from its own thread)
    forgets every failure; a host session never asks it."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, list[float]] = {}
        self.everyone: list[float] = []
        self._lock = threading.Lock()

    def wait_s(self, address: str) -> float:
        return max(self.waits(address))

    def waits(self, address: str) -> tuple[float, float]:
        """Seconds to wait: for this address's own wrong PINs, and for the whole table's."""
        now = self.clock()
        with self._lock:
            self.everyone = [t for t in self.everyone if now - t < PIN_WINDOW_S]
            recent = [t for t in self.failures.get(address, []) if now - t < PIN_WINDOW_S]
            if recent:
                self.failures[address] = recent
            else:
                self.failures.pop(address, None)
            own = PIN_WINDOW_S - (now - recent[0]) if len(recent) >= PIN_TRIES else 0.0
            table_wide = 0.0
            if len(self.everyone) >= TABLE_TRIES:
                table_wide = PIN_WINDOW_S - (now - self.everyone[0])
        return own, table_wide

    def failed(self, address: str) -> None:
        now = self.clock()
        with self._lock:
            self.everyone.append(now)
            if address not in self.failures and len(self.failures) >= MAX_ADDRESSES:
                oldest = min(self.failures, key=lambda a: self.failures[a][-1])
                del self.failures[oldest]
            self.failures.setdefault(address, []).append(now)

    def clear(self) -> int:
        """Forget every wrong PIN (the lock-out ends); how many were remembered."""
        with self._lock:
            count = len(self.everyone)
            self.failures, self.everyone = {}, []
        return count


def locked_out(own_s: float, table_s: float, button: bool) -> str:
    """Why a PIN is not even tried now, and for how long, in the host's words."""
    if own_s >= table_s:
        return f"too many wrong PINs from this phone: try again in {math.ceil(own_s)} s"
    clear = (
        ", or press the table's shutdown button for about a second to clear the lock-out"
        if button
        else ""
    )
    return (
        "too many wrong PINs on this table, from other phones too: try again in "
        f"{math.ceil(table_s)} s{clear} (a phone already holding a host session is not affected)"
    )


async def table(request: Request) -> Table:
    """The table this app serves."""
    served: Table = request.app.state.table
    return served


TableDep = Annotated[Table, Depends(table)]


async def asker(
    request: Request,
    served: TableDep,
    x_table_pin: Annotated[str | None, Header()] = None,
    x_host_token: Annotated[str | None, Header()] = None,
    x_seat_token: Annotated[str | None, Header()] = None,
    railtable_seat: Annotated[str | None, Cookie(include_in_schema=False)] = None,
    railtable_host: Annotated[str | None, Cookie(include_in_schema=False)] = None,
    x_phone: Annotated[str | None, Header()] = None,
    railtable_phone: Annotated[str | None, Cookie(include_in_schema=False)] = None,
) -> Asker:
    """Who is asking: the host with a host session (`X-Host-Token`, or the page's cookie) or the
    table PIN, a seat with its token, else a spectator.

    A host session is checked before the PIN and never asks the wrong-PIN limiter, so guessers
    cannot lock out a host who holds one. A page's live stream cannot send headers, so a GET may
    carry the seat token as the cookie `railtable_seat` instead; it only ever reads (a stale one
    reads as a spectator), and nothing that acts takes it, so no other site can act for a seat
    through it. The host's cookie is SameSite=Strict and is refused on a request the browser
    says came from another origin (`Sec-Fetch-Site`); a stale one is ignored. A seat held by
    one phone (`controller/api/phones.py`) is refused to another phone naming itself (`X-Phone`,
    or the cookie `railtable_phone` of a stream: that reads as a spectator)."""
    if x_host_token is not None or railtable_host is not None:
        sessions = host_sessions(request, served)
        if x_host_token is not None:
            if not sessions.check(x_host_token):
                raise HTTPException(
                    403, "this host session has ended: enter the table PIN again for a new one"
                )
            return _noted(sessions)
        if railtable_host is not None and same_origin(request) and sessions.check(railtable_host):
            return _noted(sessions)
    if x_table_pin is not None:
        return await pin_host(request, served, x_table_pin)
    phones = getattr(request.app.state, "seat_phones", None)
    if x_seat_token is not None:
        game_id, seat = seat_of_token(served, x_seat_token)
        if phones is not None and not phones.may(game_id, seat, phone_id(x_phone)):
            raise HTTPException(403, TAKEN)
        return Asker.at(seat)
    if railtable_seat is not None and request.method == "GET":
        shown = shown_game(served)
        at = served.tokens.seat(railtable_seat, shown)
        if at is not None and (
            phones is None or shown is None or phones.may(shown, at, phone_id(railtable_phone))
        ):
            return Asker.at(at)
    return Asker.spectator()


PHONE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
PHONE_COOKIE = "railtable_phone"  # a phone's own id for its live stream (controller/api/phones.py)
TAKEN = "another phone took over this seat"  # the refusal the page knows (api.js)


def phone_id(given: str | None) -> str | None:
    """A phone's id as it named itself (`X-Phone`), or None (none given, or not an id)."""
    return given if given is not None and PHONE.fullmatch(given) else None


def shown_game(served: Table) -> int | None:
    """The game a seat token is good for now: the open one, else the one on its end screen."""
    snapshot = served.owner.snapshot
    if snapshot.game_id is None and snapshot.finished is not None:
        return int(snapshot.finished["id"])  # its end screen: a phone is still its player's
    return snapshot.game_id


def seat_of_token(served: Table, token: str) -> tuple[int, int]:
    """The game and seat of a seat token, else 403 (a token of an earlier game, or none)."""
    game_id = shown_game(served)
    seat = served.tokens.seat(token, game_id)
    if seat is None or game_id is None:
        raise HTTPException(
            403, "this phone's seat link is for an earlier game: scan your seat's code again"
        )
    return game_id, seat


Who = Annotated[Asker, Depends(asker)]


async def spoken(
    request: Request,
    accept_language: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Language:
    """The asking phone's language: its choice on the page (a cookie), else its browser's
    Accept-Language, else English (docs/translating.md)."""
    return language_of(request.cookies.get(LANGUAGE_COOKIE), accept_language)


Spoken = Annotated[Language, Depends(spoken)]


async def pin_host(request: Request, served: Table, pin: str) -> Asker:
    """The host, by the table PIN: 403 for a wrong one (counted), 429 while the tries are used
    up, saying for how long (`Retry-After` too) and whose wrong PINs they were."""
    guard: PinGuard = request.app.state.pin_guard
    address = request.client.host if request.client else "?"
    own, table_wide = guard.waits(address)
    if own > 0 or table_wide > 0:
        await asyncio.sleep(LOCKED_ANSWER_S)
        wait = math.ceil(max(own, table_wide))
        button = bool(served.owner.status.get("gpio", {}).get("shutdown_button"))
        raise HTTPException(
            429, locked_out(own, table_wide, button), headers={"Retry-After": str(wait)}
        )
    given = pin.encode("utf-8", "surrogateescape")
    if not served.pin or not secrets.compare_digest(given, served.pin.encode()):
        guard.failed(address)
        raise HTTPException(403, "wrong table PIN")
    return Asker.host()


def host_sessions(request: Request, served: Table) -> HostSessions:
    """The app's host sessions, after the table's PIN: a changed PIN ends them all."""
    sessions: HostSessions = request.app.state.host_sessions
    if sessions.follow_pin(served.pin):
        shared().submit(sessions.save)
    return sessions


def _noted(sessions: HostSessions) -> Asker:
    """The host, by a session; its use is written now and then (on a worker, not here)."""
    if sessions.due():
        shared().submit(sessions.save)
    return Asker.host()


def same_origin(request: Request) -> bool:
    """Not a request a browser says another site or origin sent (no header: not a browser)."""
    return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def require_host(who: Asker) -> Asker:
    """The host only (the policy of `controller.game.access`): anyone else gets 403."""
    if not who.is_host:
        raise HTTPException(403, "the host only: send the table PIN or a host session")
    return who


async def host(who: Who) -> Asker:
    """The host only: anyone else gets 403."""
    return require_host(who)


Host = Annotated[Asker, Depends(host)]
