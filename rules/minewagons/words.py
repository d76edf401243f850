"""The mine-wagon race in players' words: places, options, each seat's wagon colour."""

from __future__ import annotations

from typing import Any

from rules.core import GameWords, OptionWords
from rules.minewagons.components import PLAYER_COLOURS
from rules.minewagons.physical import start_area

OPTIONS = {
    "players": OptionWords("Players"),
    "stall_rounds": OptionWords(
        "Stalled race ends after",
        "Whole rounds in a row with no wagon reaching its goal; then most wagons across win "
        "(0: never).",
    ),
}


def seat_colour(state: Any, seat: int) -> str | None:
    """The colour of the seat's wagons."""
    return str(state.colour(seat).value)


WORDS = GameWords(
    places={start_area(c): f"the {c.value} start" for c in PLAYER_COLOURS},
    options=OPTIONS,
    seat_colour=seat_colour,
)
