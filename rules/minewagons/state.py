"""The mine-wagon race behind the shared State interface: a thin front over the rule modules."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Self

from rules.core import CHANCE, Action, BadOptions, JsonDict, Option, State, Why
from rules.minewagons import codec, legality, moves
from rules.minewagons.actions import (
    CODEC,
    GOAL,
    EnterWagon,
    LayGreen,
    MoveRock,
    MoveWagon,
    OrientTile,
    PlaceTile,
    ReturnWagon,
    RotateTile,
    TurnUp,
)
from rules.minewagons.checks import broken_invariants
from rules.minewagons.components import Board, Colour, Setup, exits_mask, exits_text, load_board
from rules.minewagons.legality import Now
from rules.minewagons.position import Phase, Position
from rules.said import Say, same

GAME = "minewagons"

OPTIONS = (
    Option("players", 2, (2, 3, 4), "2, 3 or 4 players (seed 004, MATERIAL).", main=True),
    Option(
        "stall_rounds",
        10,
        None,
        "The race ends after this many whole rounds in a row in which no wagon reached its goal;"
        " the most wagons across win. 0: never (the seed has no such end; decision).",
    ),
)


class MineWagons(State):
    """A game of the dwarf mine-wagon race, from the random green tiles to the last wagon."""

    GAME = GAME
    CODEC = CODEC

    def __init__(
        self, options: Mapping[str, Any], seed: int, position: Position | None = None
    ) -> None:
        super().__init__(options, seed)
        self.board: Board = load_board()
        players = int(self.options["players"])
        self.setup: Setup = self.board.setups[players]
        self.stall_rounds = int(self.options.get("stall_rounds", 10))
        if self.stall_rounds < 0:
            raise BadOptions(f"option 'stall_rounds' must be 0 or more, not {self.stall_rounds}")
        self.pos = position if position is not None else self._fresh(players)
        self._now: Now | None = None

    def _fresh(self, players: int) -> Position:
        pos = Position(len(self.board.names), players)
        pos.green_to_lay = sum(self.setup.green.values())
        pos.face_down = dict(self.setup.green)
        pos.start = [self.setup.wagons] * players
        pos.to_place = [dict(self.setup.per_player) for _ in range(players)]
        return pos

    @property
    def now(self) -> Now:
        """The position as the rules judge it (moves along rails worked out once per position)."""
        if self._now is None:
            self._now = Now(self.board, self.setup, self.pos)
        return self._now

    @property
    def current_player(self) -> int | None:
        phase = self.pos.phase
        if phase is Phase.OVER:
            return None
        if phase is Phase.LAY_GREEN or phase is Phase.REVEAL:
            return CHANCE
        return self.pos.seat

    def colour(self, seat: int) -> Colour:
        return self.setup.seats[seat]

    def legal_actions(self) -> list[Action]:
        return legality.legal_actions(self.now)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return legality.chance_outcomes(self.now)

    def observed_chance(self) -> bool:
        """A green tile's face is what the table shows when it is turned up (it was laid face
        down at random): the camera reads it, or someone says it; no digital deck draws it.
        Where the green tiles are laid (setup step 1) is drawn by the digital deck."""
        return self.pos.phase is Phase.REVEAL

    def why_not(self, action: Action) -> Why | None:
        return legality.why_not(self.now, action)

    def normalise(self, action: Action) -> Action:
        """Squares upper-case, exits in N, E, S, W order: the one form legal_actions uses."""
        return _canonical(action)

    def _apply(self, action: Action) -> None:
        self._now = None
        moves.carry_out(self.now, action, self.stall_rounds)
        self._now = None

    def _snapshot(self) -> object:
        return self.pos.copy()

    def _restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, Position)
        self.pos = snapshot
        self._now = None

    def scores(self) -> list[float]:
        """Wagons beyond their opposite end, per seat."""
        return [float(g) for g in self.pos.goal]

    def score_parts(self, say: Say = same) -> list[list[tuple[str, float]]]:
        return [[(_beyond(g, say), float(g))] for g in self.pos.goal]

    def _state_json(self) -> JsonDict:
        data = codec.state_json(self.board, self.setup.seats, self.pos)
        data["current_player"] = self.current_player
        return data

    @classmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self:
        board = load_board()
        return cls(options, seed, codec.position_from_json(board, data))

    def view(self, seat: int | None) -> JsonDict:
        """What `seat` may see: the game, its options and the allow-listed state; never the seed."""
        return {"game": self.GAME, "options": dict(self.options), **self._view_json(seat)}

    def _view_json(self, seat: int | None) -> JsonDict:
        """Every seat sees the same: nobody knows what lies under a face-down tile."""
        return codec.view_json(self._state_json())

    def invariants(self) -> list[str]:
        return broken_invariants(self.board, self.setup, self.pos)


def _exits(text: str) -> str:
    try:
        return exits_text(exits_mask(text))
    except ValueError:
        return text  # legality names the bad letter


@functools.lru_cache(maxsize=4096)
def _canonical(action: Action) -> Action:
    """Squares upper-case, exits in N, E, S, W order (remembered: actions repeat)."""
    if isinstance(action, MoveWagon):
        to = GOAL if action.to.lower() == GOAL else action.to.upper()
        return MoveWagon(action.start.upper(), to)
    if isinstance(action, RotateTile | PlaceTile):
        return type(action)(action.square.upper(), _exits(action.exits))
    if isinstance(action, OrientTile):
        return OrientTile(_exits(action.exits))
    if isinstance(action, EnterWagon | LayGreen | TurnUp):
        return type(action)(action.square.upper())
    if isinstance(action, ReturnWagon):
        return ReturnWagon(action.start.upper())
    if isinstance(action, MoveRock):
        return MoveRock(action.to.upper())
    return action


def _beyond(wagons: int, say: Say) -> str:
    """A score part: the wagons a seat has brought beyond the far end."""
    if wagons == 1:
        return say("1 wagon beyond the far end")
    return say("{count} wagons beyond the far end").format(count=wagons)
