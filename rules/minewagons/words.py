"""The mine-wagon race in players' words: places, options, each seat's wagon colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.core import GameWords, OptionWords
from rules.minewagons.components import PLAYER_COLOURS, SHAPES, exits_text, shape_exits
from rules.minewagons.physical import TILE_COLOURS, start_area, tile_piece
from rules.minewagons.position import Phase
from rules.said import listed, track_said

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


def end_said(state: Any, seats: Callable[[int], str]) -> str | None:
    """Why the race ended, by its players' names ("Ann brought all their wagons beyond the far
    end"), not the colour the state's own reason names."""
    pos = state.pos
    if pos.phase is not Phase.OVER:
        return None
    home = [s for s, g in enumerate(pos.goal) if g == state.setup.wagons]
    if home:
        return f"{seats(home[0])} brought all their wagons beyond the far end"
    leaders = listed([seats(s) for s in pos.winners])
    most = "the most wagons" if len(pos.winners) == 1 else "as many wagons as anyone"
    return f"{pos.end_reason}: {leaders} brought {most} beyond the far end"


# A tile by its colour, and how it lies by its track ("the blue tile on C3, a bend from north to
# east"), not by its shape's letter and a compass letter ("blue L tile turned N").
PIECES = {
    str(tile_piece(colour, shape)): (
        f"{colour.value} tile",
        tuple(track_said(exits_text(mask)) for mask in shape_exits(shape)),
    )
    for colour in TILE_COLOURS
    for shape in SHAPES
}

WORDS = GameWords(
    places={start_area(c): f"the {c.value} start" for c in PLAYER_COLOURS},
    options=OPTIONS,
    seat_colour=seat_colour,
    pieces=PIECES,
    end=end_said,
)
