"""The mine-wagon race in players' words: places, options, each seat's wagon colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.minewagons.components import PLAYER_COLOURS, SHAPES, Colour, exits_text, shape_exits
from rules.minewagons.physical import (
    FACE_DOWN,
    ROCK,
    TILE_COLOURS,
    start_area,
    tile_piece,
    wagon_piece,
)
from rules.minewagons.position import Phase
from rules.said import Say, listed, same, track_said
from rules.words import GameWords, OptionWords

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


def end_said(say: Say = same) -> Callable[[Any, Callable[[int], str]], str | None]:
    """Why the race ended, by its players' names ("Ann brought all their wagons beyond the far
    end"), not the colour the state's own reason names; said by `say`."""

    def end(state: Any, seats: Callable[[int], str]) -> str | None:
        pos = state.pos
        if pos.phase is not Phase.OVER:
            return None
        home = [s for s, g in enumerate(pos.goal) if g == state.setup.wagons]
        if home:
            return say("{player} brought all their wagons beyond the far end").format(
                player=seats(home[0])
            )
        leaders = listed([seats(s) for s in pos.winners], say)
        rounds = state.stall_rounds
        stalled = (
            say("1 round in a row without a wagon beyond its end")
            if rounds == 1
            else say("{rounds} rounds in a row without a wagon beyond its end").format(
                rounds=rounds
            )
        )
        if len(pos.winners) == 1:
            return say("{stalled}: {player} brought the most wagons beyond the far end").format(
                stalled=stalled, player=leaders
            )
        shared = say("{stalled}: {players} brought as many wagons as anyone beyond the far end")
        return shared.format(stalled=stalled, players=leaders)

    return end


def _tiles(say: Say) -> dict[Colour, str]:
    """Each colour's tile, a whole line each (a colour's word agrees with its noun)."""
    return {
        Colour.RED: say("red tile"),
        Colour.BLUE: say("blue tile"),
        Colour.YELLOW: say("yellow tile"),
        Colour.WHITE: say("white tile"),
        Colour.GREEN: say("green tile"),
    }


def _wagons(say: Say) -> dict[Colour, str]:
    return {
        Colour.RED: say("red wagon"),
        Colour.BLUE: say("blue wagon"),
        Colour.YELLOW: say("yellow wagon"),
        Colour.WHITE: say("white wagon"),
    }


def _starts(say: Say) -> dict[Colour, str]:
    return {
        Colour.RED: say("the red start"),
        Colour.BLUE: say("the blue start"),
        Colour.YELLOW: say("the yellow start"),
        Colour.WHITE: say("the white start"),
    }


def words(say: Say = same) -> GameWords:
    """The race's words, said by `say` (English as written)."""
    tiles, wagons = _tiles(say), _wagons(say)
    # A tile by its colour, and how it lies by its track ("the blue tile on C3, a bend from
    # north to east"), not by its shape's letter and a compass letter ("blue L tile turned N").
    pieces = {
        str(tile_piece(colour, shape)): (
            tiles[colour],
            tuple(track_said(exits_text(mask), say) for mask in shape_exits(shape)),
        )
        for colour in TILE_COLOURS
        for shape in SHAPES
    }
    pieces[str(FACE_DOWN)] = (say("green tile, back (face down)"), ())
    pieces[str(ROCK)] = (say("the Rock"), ())
    for colour in PLAYER_COLOURS:
        pieces[str(wagon_piece(colour))] = (wagons[colour], ())
    return GameWords(
        places={start_area(c): name for c, name in _starts(say).items()},
        options=OPTIONS,
        seat_colour=seat_colour,
        pieces=pieces,
        end=end_said(say),
        phases={
            "lay_green": say("laying green tiles"),
            "place_tiles": say("placing tiles"),
            "turn_up": say("turning up a tile"),
            "reveal": say("turning up a tile"),
            "orient": say("laying the tile"),
            "play": say("the race"),
            "over": say("game over"),
        },
        said=words,
        title=say("Dwarf Mine-Wagon Race"),  # the seed names no title: ours is said, not printed
    )


WORDS = words()
