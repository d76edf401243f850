"""The mine-wagon race's actions and chance outcomes, each a small frozen value with its JSON form.

Wagons of one colour are identical, so a wagon is named by the square it stands on. Squares are
A1..G7; exits are letters from N, E, S, W ("NE", "NS", "NES").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rules.core import Action, ActionCodec, Visibility
from rules.minewagons.components import Shape
from rules.said import Say, said, same, spoken, track_said, word

GOAL = "goal"
"""`move_wagon.to` for a wagon leaving the board by its opposite end."""

SHAPE_SAID = {
    Shape.L: spoken("a bend"),
    Shape.I: spoken("a straight track"),
    Shape.T: spoken("a T-junction"),
}


class _TrackWords(Action):
    """An action whose `exits` (or `shape`) a player reads as a track: "a bend from north to
    west", not "NW"."""

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        data = {k: word(said(v, named), seats) for k, v in self.to_json().items()}
        if "exits" in data:
            data["exits"] = word(track_said(str(data["exits"]), say), seats)
        if "shape" in data:
            data["shape"] = word(say(SHAPE_SAID[Shape(str(data["shape"]))]), seats)
        return say(self.WORDS).format(**data)


# ---- setup


@dataclass(frozen=True)
class LayGreen(Action):
    """Chance: the next green tile is laid face down on `square` (setup step 1)."""

    TYPE: ClassVar[str] = "lay_green"
    WORDS: ClassVar[str] = spoken("lay the green tile on {square}")
    CHANCE_OUTCOME: ClassVar[bool] = True
    LOCATIONS: ClassVar[tuple[str, ...]] = ("square",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE  # the tile's back carries a marker
    square: str


@dataclass(frozen=True)
class PlaceTile(_TrackWords):
    """A player sets one tile of her colour, face up, with these exits (setup step 2)."""

    TYPE: ClassVar[str] = "place_tile"
    WORDS: ClassVar[str] = spoken("lay a tile on {square}: {exits}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("square",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    square: str
    exits: str


@dataclass(frozen=True)
class TurnUp(Action):
    """A player picks the face-down green tile to turn face up (setup step 3)."""

    TYPE: ClassVar[str] = "turn_up"
    WORDS: ClassVar[str] = spoken("turn up the tile on {square}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("square",)
    VISIBILITY: ClassVar[Visibility] = Visibility.IMPLIED  # the face that follows shows it
    square: str


@dataclass(frozen=True)
class RevealTile(_TrackWords):
    """Chance: the shape on the face of the green tile being turned up."""

    TYPE: ClassVar[str] = "reveal_tile"
    WORDS: ClassVar[str] = spoken("the tile turned up is {shape}")
    CHANCE_OUTCOME: ClassVar[bool] = True
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    shape: Shape


@dataclass(frozen=True)
class OrientTile(_TrackWords):
    """The player lays the green tile she turned up with the rails she prefers."""

    TYPE: ClassVar[str] = "orient_tile"
    WORDS: ClassVar[str] = spoken("the tile lies as {exits}")
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    exits: str


# ---- a turn


@dataclass(frozen=True)
class EnterWagon(Action):
    """Set a wagon from the starting area on an entering square of the first line."""

    TYPE: ClassVar[str] = "enter_wagon"
    WORDS: ClassVar[str] = spoken("bring a wagon in on {square}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("square",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    square: str


@dataclass(frozen=True)
class MoveWagon(Action):
    """Move the wagon on `start` along connected rails to `to` (a square, or "goal")."""

    TYPE: ClassVar[str] = "move_wagon"
    WORDS: ClassVar[str] = spoken("move the wagon from {start} to {to}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("start", "to")
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    start: str
    to: str

    def words(
        self,
        named: Callable[[str], str] | None = None,
        seats: Callable[[int], str] | None = None,
        say: Say = same,
    ) -> str:
        if self.to != GOAL:
            return super().words(named, seats, say)
        start = named(self.start) if named else self.start  # "goal" is no square: say where
        return say("move the wagon from {start} beyond the far end").format(start=start)


@dataclass(frozen=True)
class ReturnWagon(Action):
    """Move the wagon on `start` along the rails off the near end, back to its starting area."""

    TYPE: ClassVar[str] = "return_wagon"
    WORDS: ClassVar[str] = spoken("take the wagon on {start} back home")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("start",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    start: str


@dataclass(frozen=True)
class RotateTile(_TrackWords):
    """Turn an empty green tile, or one of the player's colour, so its rails leave by `exits`."""

    TYPE: ClassVar[str] = "rotate_tile"
    WORDS: ClassVar[str] = spoken("turn the tile on {square} to {exits}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("square",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    square: str
    exits: str


@dataclass(frozen=True)
class MoveRock(Action):
    """Move the Rock along connected rails to `to`; the turn's last action."""

    TYPE: ClassVar[str] = "move_rock"
    WORDS: ClassVar[str] = spoken("move the rock to {to}")
    LOCATIONS: ClassVar[tuple[str, ...]] = ("to",)
    VISIBILITY: ClassVar[Visibility] = Visibility.TABLE
    to: str


@dataclass(frozen=True)
class EndTurn(Action):
    """End the turn before its last action."""

    TYPE: ClassVar[str] = "end_turn"
    WORDS: ClassVar[str] = spoken("end the turn")
    VISIBILITY: ClassVar[Visibility] = Visibility.IMPLIED
    PROVEN_BY_NEXT_SEAT: ClassVar[bool] = True  # the next player's move proves it


CODEC = ActionCodec(
    [
        LayGreen,
        PlaceTile,
        TurnUp,
        RevealTile,
        OrientTile,
        EnterWagon,
        MoveWagon,
        ReturnWagon,
        RotateTile,
        MoveRock,
        EndTurn,
    ]
)
