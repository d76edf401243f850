"""Values in players' words: lists said as "ruby and gold", ids by their names, "a" or "an"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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
