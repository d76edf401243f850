"""Values in players' words: lists said as "ruby and gold", ids by their names, "a" or "an"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Say = Callable[[str], str]  # a line (English, as the code writes it) in the reader's language


def spoken(line: str) -> str:
    """A line marked where it is written (an action's `WORDS`) for the catalogues, which say it
    later through a `Say`; itself here."""
    return line


def same(line: str) -> str:
    """A line as the code writes it: English."""
    return line


def plain(v: Any) -> str:
    """A value as a developer reads it: `[a,b]`."""
    if isinstance(v, list):
        return "[" + ",".join(plain(x) for x in v) + "]"
    return str(v)


def said(v: Any, named: Callable[[str], str] | None = None) -> str:
    """A value in words: a list as "ruby and gold"; an id by its name, where `named` knows it."""
    if isinstance(v, list):
        parts = [said(x, named) for x in v]
        joined = [", ".join(parts[:-1]), parts[-1]] if len(parts) > 2 else parts
        return " and ".join(joined) or "none"
    if named is not None and isinstance(v, str):
        return named(v)
    return str(v)


class Word(str):
    """A value in an action's words: `{jewel:a}` says "an emerald", "a ruby"; `{seat:seat}` says
    the seat by its player's name (`seats`), else "seat 2"."""

    seats: Callable[[int], str] | None = None

    def __format__(self, spec: str) -> str:
        if spec == "a":
            return f"{article(self)} {self}"
        if spec == "seat":
            return self.seats(int(self)) if self.seats is not None else f"seat {self}"
        return super().__format__(spec)


def word(text: str, seats: Callable[[int], str] | None) -> Word:
    """A value for an action's words, saying seats by `seats`."""
    out = Word(text)
    out.seats = seats
    return out


def seat_place(seat: int, rest: str) -> str:
    """A place's name that holds a seat (`{seat0}'s shares`): said with the seat's name."""
    return f"{{seat{seat}}}{rest}"


def article(word: str) -> str:
    """The article before a word: "a" or "an" ("an emerald", "an unknown tile", "a ruby")."""
    lower = word.lower()
    return "an" if lower[:1] in ("a", "e", "i", "o") or lower.startswith("un") else "a"


_ACROSS = {"N": "S", "S": "N", "E": "W", "W": "E"}


def listed(words: list[str], say: Say = same) -> str:
    """`north, east and south`."""
    if len(words) < 2:
        return "".join(words)
    return say("{first} and {last}").format(first=", ".join(words[:-1]), last=words[-1])


def side_said(letter: str, say: Say = same) -> str:
    """A compass letter as a player says it: "north"."""
    sides = {"N": say("north"), "E": say("east"), "S": say("south"), "W": say("west")}
    return sides.get(letter, letter)


def track_said(exits: str, say: Say = same) -> str:
    """Rails leaving a square by `exits` (compass letters, "NS", "NW") as a player names them:
    "a straight track running north to south", "a bend from north to west", "a T-junction open
    north, east and south", "a crossing open on all four sides"."""
    ends = [e for e in "NESW" if e in exits.upper()]
    sides = [side_said(e, say) for e in ends]
    if len(ends) == 2 and _ACROSS[ends[0]] == ends[1]:
        return say("a straight track running {start} to {end}").format(start=sides[0], end=sides[1])
    if len(ends) == 2:
        return say("a bend from {start} to {end}").format(start=sides[0], end=sides[1])
    if len(ends) == 3:
        return say("a T-junction open {sides}").format(sides=listed(sides, say))
    if len(ends) == 4:
        return say("a crossing open on all four sides")
    if len(ends) == 1:
        return say("a dead end open to the {side}").format(side=sides[0])
    return say("a tile with no track")


def counted(n: int, noun: str, many: str = "") -> str:
    """`1 wagon`, `2 wagons` (`many`: the plural where it is not noun + s)."""
    return f"{n} {noun}" if n == 1 else f"{n} {many or noun + 's'}"
