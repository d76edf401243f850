"""Who may do what: a spectator, a player at a seat, the host (the table PIN); refusals."""

from __future__ import annotations

import json
import os
import secrets
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rules.core import Action, Decision


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

    @property
    def is_host(self) -> bool:
        return self.role is Role.HOST

    def is_seat(self, seat: int | None) -> bool:
        """Whether this is the phone of `seat` itself."""
        return self.role is Role.SEAT and self.seat == seat


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


# ---- the policy: who may do what (the game and the routes ask here, and nowhere else)
def only_host(asker: Asker, does: str) -> None:
    """Anyone but the host is refused: "only the host <does>"."""
    if not asker.is_host:
        raise Refused(f"only the host {does}", Refusal.NOT_ALLOWED)


def may_name(asker: Asker, seat: int) -> None:
    """A player names only themself; the host may name anyone."""
    if asker.role is Role.SPECTATOR or (asker.role is Role.SEAT and asker.seat != seat):
        raise Refused(
            "a player names only themself (the host may name anyone)", Refusal.NOT_ALLOWED
        )


def may_act(asker: Asker, seat: int | None, action: Action) -> None:
    """An action for the seat whose turn it is: from its own phone, or the host's for it; a
    physical draw and the host's decisions from the host, a hidden choice from the seat alone."""
    if action.CHANCE_OUTCOME and asker.role is not Role.HOST:
        raise Refused("only the host enters a physical draw", Refusal.NOT_ALLOWED)
    if action.DECISION is Decision.HOST and asker.role is not Role.HOST:
        raise Refused(f"only the host decides {action.TYPE}", Refusal.NOT_ALLOWED)
    if action.DECISION is Decision.HIDDEN and asker.role is Role.HOST:
        raise Refused(
            f"a hidden choice is seat {seat}'s alone: made on their own phone",
            Refusal.NOT_ALLOWED,
        )
    if asker.role is Role.SEAT and asker.seat != seat:
        raise Refused(
            f"it is not seat {asker.seat}'s turn to act (seat {seat} is)", Refusal.NOT_ALLOWED
        )


def may_act_at_all(asker: Asker) -> None:
    """A spectator acts on nothing: they join a seat first."""
    if asker.role is Role.SPECTATOR:
        raise Refused("a spectator cannot act: join a seat first", Refusal.NOT_ALLOWED)


def may_answer(asker: Asker, seat: int | None, hidden: bool) -> None:
    """A question is for its seat's own phone, or the host's (a hidden choice: the seat alone)."""
    if (
        asker.role is Role.SPECTATOR
        or (asker.role is Role.SEAT and asker.seat != seat)
        or (asker.role is Role.HOST and hidden)
    ):
        who = "the host" if seat is None else f"seat {seat}"
        alone = " alone (a hidden choice)" if hidden else ""
        raise Refused(f"the question is for {who}{alone}", Refusal.NOT_ALLOWED)


def own_seat(asker: Asker, what: str) -> int:
    """The seat of the asker's own phone, else refused ("<what> is for a seat's own phone")."""
    if asker.role is not Role.SEAT or asker.seat is None:
        raise Refused(f"{what} is for a seat's own phone", Refusal.NOT_ALLOWED)
    return asker.seat


class SeatTokens:
    """The seat tokens handed to phones (by QR code): token -> (seat, game); safe from any
    thread. A token is good only in the game it was issued for. With a `path` (in the data
    folder) they are kept on disk, so a phone stays joined across a restart of the service; a
    token issued for a new game forgets those of earlier games."""

    def __init__(self, path: Path | None = None) -> None:
        self._seats: dict[str, tuple[int, int | None]] = {}
        self._lock = threading.Lock()
        self.path = path
        if path is not None:
            self._seats = _read_tokens(path)

    def issue(self, seat: int, game_id: int | None = None) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._seats = {t: s for t, s in self._seats.items() if s[1] == game_id}
            self._seats[token] = (seat, game_id)
            if self.path is not None:
                _write_tokens(self.path, self._seats)
        return token

    def seat(self, token: str, game_id: int | None = None) -> int | None:
        """The token's seat in game `game_id`, or None (unknown, or issued for another game)."""
        with self._lock:
            issued = self._seats.get(token)
        if issued is None or issued[1] != game_id:
            return None
        return issued[0]


def _read_tokens(path: Path) -> dict[str, tuple[int, int | None]]:
    """The kept tokens; a missing or damaged file is no tokens (phones join again)."""
    try:
        data = json.loads(path.read_text())
        return {
            str(t): (int(seat), None if game is None else int(game))
            for t, (seat, game) in data.items()
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _write_tokens(path: Path, seats: dict[str, tuple[int, int | None]]) -> None:
    """Written whole, then put in place: a pulled plug leaves the old file or the new."""
    spare = path.with_suffix(".tmp")
    try:
        with open(os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            json.dump({t: list(s) for t, s in seats.items()}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(spare, path)
    except OSError:
        pass  # a full disk: the token works until the service restarts
