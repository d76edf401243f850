"""Everything that changes during a mine-wagon race, in a few containers of frozen values."""

from __future__ import annotations

from enum import StrEnum

from rules.minewagons.components import Colour, Shape, Tile


class Phase(StrEnum):
    """Where the game stands: the four setup steps, the race, the end."""

    LAY_GREEN = "lay_green"  # chance: green tiles face down at random
    PLACE_TILES = "place_tiles"  # players alternate setting their coloured tiles
    TURN_UP = "turn_up"  # players alternate turning a green tile face up...
    REVEAL = "reveal"  # chance: ...its face is seen...
    ORIENT = "orient"  # ...and they lay it the way they prefer
    PLAY = "play"
    OVER = "over"


class Position:
    """The mutable data of one game; `copy` is the undo snapshot, so containers are copied."""

    __slots__ = (
        "actions_left",
        "end_reason",
        "face_down",
        "goal",
        "green_to_lay",
        "pending",
        "phase",
        "quiet_turns",
        "returned",
        "rock",
        "rock_moved",
        "rotated",
        "scored",
        "seat",
        "start",
        "tiles",
        "to_place",
        "turn",
        "used",
        "wagon_used",
        "wagons",
        "winners",
    )

    def __init__(self, squares: int, players: int) -> None:
        self.phase = Phase.LAY_GREEN
        self.seat = 0  # whose turn, or who sets the next tile in the setup
        self.tiles: list[Tile | None] = [None] * squares
        self.wagons: dict[int, Colour] = {}  # square -> colour of the wagon on it
        self.rock: int | None = None  # set on the centre at the end of the setup
        self.rock_moved = False
        self.start: list[int] = [0] * players  # wagons in each seat's starting area
        self.goal: list[int] = [0] * players  # wagons that left by the opposite end
        self.to_place: list[dict[Shape, int]] = [{} for _ in range(players)]
        self.green_to_lay = 0
        self.face_down: dict[Shape, int] = {}  # shapes still hidden under face-down tiles
        self.pending: int | None = None  # the green tile being turned up
        self.actions_left = 0
        self.wagon_used = False
        self.used: frozenset[int] = frozenset()  # squares of the wagons used this turn
        self.rotated: frozenset[int] = frozenset()  # tiles rotated this turn
        self.returned = 0  # wagons back in the starting area this turn (used, so not re-entered)
        self.scored = False  # a wagon reached its goal this turn
        self.turn = 0  # turns played, from 1 once the race starts
        self.quiet_turns = 0  # turns in a row that brought no wagon to its goal
        self.winners: tuple[int, ...] = ()
        self.end_reason = ""

    def copy(self) -> Position:
        """An independent copy (the containers copied, their frozen values shared)."""
        other = Position.__new__(Position)
        other.actions_left = self.actions_left
        other.end_reason = self.end_reason
        other.face_down = dict(self.face_down)
        other.goal = list(self.goal)
        other.green_to_lay = self.green_to_lay
        other.pending = self.pending
        other.phase = self.phase
        other.quiet_turns = self.quiet_turns
        other.returned = self.returned
        other.rock = self.rock
        other.rock_moved = self.rock_moved
        other.rotated = self.rotated
        other.scored = self.scored
        other.seat = self.seat
        other.start = list(self.start)
        other.tiles = list(self.tiles)
        other.to_place = [dict(d) for d in self.to_place]
        other.turn = self.turn
        other.used = self.used
        other.wagon_used = self.wagon_used
        other.wagons = dict(self.wagons)
        other.winners = self.winners
        return other

    def occupied(self, sq: int) -> bool:
        return sq in self.wagons or sq == self.rock
