"""The API's request and response bodies, and the problems it answers with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from controller.game.access import Refusal
from controller.game.players import COLOURS, MAX_NAME

MAX_ID = 2**62  # row ids and game ids fit SQLite's integers with room to spare
COLOUR_NAMES = tuple(COLOURS)
MAX_SEED = 2**31  # as the configuration file bounds `[game] seed`
MAX_OPTION = 999  # a question's options are a handful
MAX_DETAIL = 300  # characters of a refusal's detail (a value it quotes is cut short)

STATUS = {
    Refusal.NOT_ALLOWED: 403,
    Refusal.NOT_NOW: 409,
    Refusal.REFUSED: 422,
    Refusal.UNAVAILABLE: 503,
}
"""The HTTP status for each kind of refusal: the game says why, the API says it in HTTP."""


class ActionRequest(BaseModel):
    """An action no sensor sees, in the game's JSON form (docs/scenarios.md lists them)."""

    action: dict[str, Any]


class AnswerRequest(BaseModel):
    """The seat's pick for the referee's question: the option's number, from 0."""

    option: int = Field(ge=0, le=MAX_OPTION)


class StartRequest(BaseModel):
    """A new game: its name, options (players among them) and, for a replayable test, a seed."""

    game: str = Field(max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, max_length=64)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)


class UndoRequest(BaseModel):
    """How many players' actions to take back."""

    count: int = Field(default=1, ge=1, le=50)


class PlayerRequest(BaseModel):
    """A seat's player: the name the family calls them and, where the game leaves it open, a
    colour (one of the colours `/api/status` lists)."""

    name: str = Field(
        min_length=1, max_length=MAX_NAME, pattern=r"^[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*$"
    )
    colour: Literal[COLOUR_NAMES] | None = None  # type: ignore[valid-type]


class Problem(BaseModel):
    """What was wrong with a request, in one line."""

    detail: str


class SeatToken(BaseModel):
    """A seat's token: the phone that holds it acts for that seat."""

    seat: int
    token: str


PROBLEMS: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "a body that is not JSON at all"},
    403: {"model": Problem, "description": "not allowed for who is asking"},
    404: {"model": Problem, "description": "no such thing (no game open)"},
    409: {"model": Problem, "description": "not now (no question to answer, nothing to undo)"},
    422: {"model": Problem, "description": "malformed, or refused by the rules"},
    429: {"model": Problem, "description": "too many wrong PINs: wait"},
    503: {"model": Problem, "description": "the table cannot keep it (its log is not writable)"},
}


class ComputerRequest(BaseModel):
    """The computer's level for a seat (easy, normal or strong), or null to take the seat back."""

    level: Literal["easy", "normal", "strong"] | None = None


class HintsRequest(BaseModel):
    """Whether seats may ask for a hint."""

    on: bool


class HostSession(BaseModel):
    """A host session: send `token` as `X-Host-Token` (the page has it as a cookie); it ends
    after `idle_s` seconds unused."""

    token: str
    idle_s: int


class SessionsEnded(BaseModel):
    """How many host sessions a DELETE ended."""

    ended: int
