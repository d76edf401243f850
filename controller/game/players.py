"""Players, not seats: each seat's name and colour, and whether the computer plays it, kept in the
event log (a `player` row)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from controller.game.access import Refusal, Refused
from controller.game.store import Event, EventKind
from controller.words.language import Tongue, tongue
from rules.core import State
from rules.game import Game

MAX_NAME = 20
TABLE_ROW = -1  # where `chosen` keeps the table's own choices (`hints`: "on" or "off")

# Colours a player may pick where the game gives a seat no colour of its own. None of them is a
# colour the page's legend uses (blue dotted: the last move, amber: to do, red: not legal).
COLOURS: Mapping[str, str] = {
    "teal": "#00897b",
    "purple": "#7b1fa2",
    "orange": "#ef6c00",
    "pink": "#d81b60",
    "brown": "#6d4c41",
    "olive": "#827717",
    "slate": "#546e7a",
    "indigo": "#3949ab",
}
# A game's own piece colours, as the page draws them (the looks' palette).
GAME_COLOURS: Mapping[str, str] = {
    "red": "#c62828",
    "yellow": "#f9a825",
    "green": "#2e7d32",
    "blue": "#1565c0",
    "white": "#eeeeee",
    "black": "#212121",
}


@dataclass(frozen=True)
class Player:
    """A seat's player: the name the family uses and the colour that marks them."""

    seat: int
    name: str
    colour: str  # a colour name: the game's piece colour, else one of COLOURS
    computer: str = ""  # the computer's level where the computer plays the seat, else ""
    named: bool = True  # a name someone chose (else the table's own: "Player 2")

    def said(self, say: Tongue) -> Player:
        """The player as `say`'s language calls them: a chosen name as it is; the table's own
        ("Player 2", "the computer (green)") in that language."""
        if self.computer:
            return replace(self, name=computer_name(self.colour, say))
        if not self.named:
            return replace(self, name=default_name(self.seat, say))
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "colour": self.colour,
            "hex": GAME_COLOURS.get(self.colour) or COLOURS.get(self.colour, "#546e7a"),
            "computer": self.computer or None,
        }


def default_name(seat: int, say: Tongue | None = None) -> str:
    """A seat's player before anyone names them: "Player 2"."""
    return (say or tongue()).tr("Player {number}", number=seat + 1)


def check_name(name: Any) -> str:
    """A player's name: 1 to 20 printable characters, spaces trimmed; else a refusal."""
    if not isinstance(name, str):
        raise Refused("a name must be text", Refusal.REFUSED)
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise Refused(f"a name is 1 to {MAX_NAME} letters", Refusal.REFUSED)
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise Refused("a name cannot hold control characters", Refusal.REFUSED)
    return str(name)


def check_colour(colour: Any) -> str:
    if colour not in COLOURS:
        raise Refused(f"a colour is one of {', '.join(COLOURS)}", Refusal.REFUSED)
    return str(colour)


def chosen(events: Iterable[Event]) -> dict[int, dict[str, str]]:
    """What each seat chose, from a game's `player` rows (the newest wins): its name, its colour,
    and `computer`, the level the host gave the computer playing it ("" once taken back)."""
    out: dict[int, dict[str, str]] = {}
    for event in events:
        if event.kind is EventKind.PLAYER and event.seat is not None:
            out.setdefault(event.seat, {}).update(
                {k: str(v) for k, v in event.data.items() if k in ("name", "colour", "computer")}
            )
        elif event.kind is EventKind.PLAYER and "hints" in event.data:
            out.setdefault(TABLE_ROW, {})["hints"] = str(event.data["hints"])
    return out


def computer_name(colour: str, say: Tongue | None = None) -> str:
    """What players call a computer seat: "the computer (green)"."""
    say = say or tongue()
    return say.tr("the computer ({colour})", colour=colour_word(colour, say))


def colour_word(colour: str, say: Tongue) -> str:
    """A colour's name in `say`'s language (a game's piece colour, or one players pick)."""
    words = {
        "teal": say.tr("teal"),
        "purple": say.tr("purple"),
        "orange": say.tr("orange"),
        "pink": say.tr("pink"),
        "brown": say.tr("brown"),
        "olive": say.tr("olive"),
        "slate": say.tr("slate"),
        "indigo": say.tr("indigo"),
    }
    return words.get(colour) or say.known(colour) or colour


def players(
    info: Game[Any] | None,
    state: State | None,
    count: int,
    choices: Mapping[int, Mapping[str, str]],
) -> tuple[Player, ...]:
    """Every seat's player: its chosen name (else "Player n") and the game's colour for its
    pieces where the game has one, else its chosen colour (else one by seat)."""
    palette = list(COLOURS)
    out = []
    for seat in range(count):
        mine = choices.get(seat, {})
        game_colour = None
        seat_colour = info.words.seat_colour if info is not None else None
        if seat_colour is not None and state is not None:
            game_colour = seat_colour(state, seat)
        colour = game_colour or mine.get("colour") or palette[seat % len(palette)]
        level = mine.get("computer", "")
        name = computer_name(colour) if level else mine.get("name") or default_name(seat)
        out.append(Player(seat, name, colour, level, named=bool(mine.get("name")) and not level))
    return tuple(out)


def colour_choice(info: Game[Any] | None) -> bool:
    """Whether players pick their colour (the game gives seats no colour of its own)."""
    return info is None or info.words.seat_colour is None


def names(players: Sequence[Player]) -> list[str]:
    return [p.name for p in players]
