"""Who may do what: a spectator, a player at a seat, the host (the table PIN); refusals."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    """Who is asking: someone watching, a player at a seat, or the host (the table PIN)."""

    SPECTATOR = "spectator"
    SEAT = "seat"
    HOST = "host"


@dataclass(frozen=True)
class Asker:
    """Who sent a request; every route of the API knows it."""

    role: Role
    seat: int | None = None

    @staticmethod
    def spectator() -> Asker:
        return Asker(Role.SPECTATOR)

    @staticmethod
    def host() -> Asker:
        return Asker(Role.HOST)

    @staticmethod
    def at(seat: int) -> Asker:
        return Asker(Role.SEAT, seat)


class Refusal(StrEnum):
    """Why the table refuses a request; the API maps each to its HTTP status."""

    NOT_ALLOWED = "not_allowed"  # not for who is asking (a spectator acting, another seat)
    NOT_NOW = "not_now"  # nothing to answer, nothing to undo, no game open
    REFUSED = "refused"  # malformed, or against the rules
    UNAVAILABLE = "unavailable"  # the table cannot keep it now (the event log cannot be written)


class Refused(ValueError):
    """A request the table refuses: the message names what was wrong, `why` says of what kind."""

    def __init__(self, message: str, why: Refusal = Refusal.NOT_NOW) -> None:
        super().__init__(message)
        self.why = why


class SeatTokens:
    """The seat tokens handed to phones (by QR code): token -> seat; safe from any thread."""

    def __init__(self) -> None:
        self._seats: dict[str, int] = {}
        self._lock = threading.Lock()

    def issue(self, seat: int) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._seats[token] = seat
        return token

    def seat(self, token: str) -> int | None:
        with self._lock:
            return self._seats.get(token)
