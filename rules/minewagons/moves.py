"""Carrying out legal actions: the setup steps, a turn's actions, the end of a turn and the race."""

from __future__ import annotations

from rules.core import Action
from rules.minewagons.actions import (
    GOAL,
    EndTurn,
    EnterWagon,
    LayGreen,
    MoveRock,
    MoveWagon,
    OrientTile,
    PlaceTile,
    ReturnWagon,
    RevealTile,
    RotateTile,
    TurnUp,
)
from rules.minewagons.components import BASE_EXITS, Colour, Tile, exits_mask, shape_of
from rules.minewagons.legality import Now
from rules.minewagons.position import Phase

ACTIONS_PER_TURN = 3
FIRST_TURN_ACTIONS = 2  # "The starting player will have just two actions on the first turn."


def carry_out(now: Now, action: Action, stall_rounds: int) -> None:
    """Apply a legal action to `now.pos` (legality already checked)."""
    pos, board = now.pos, now.board
    if isinstance(action, MoveWagon):
        sq = board.square(action.start)
        del pos.wagons[sq]
        pos.used = pos.used - {sq}
        if action.to == GOAL:
            _reach_goal(now)
        else:
            to = board.square(action.to)
            pos.wagons[to] = now.colour
            pos.used = pos.used | {to}
        _wagon_action_done(now, stall_rounds)
    elif isinstance(action, RotateTile):
        sq = board.square(action.square)
        tile = pos.tiles[sq]
        assert tile is not None
        pos.tiles[sq] = Tile(tile.colour, tile.shape, exits_mask(action.exits))
        pos.rotated = pos.rotated | {sq}
        _action_done(now, stall_rounds)
    elif isinstance(action, EnterWagon):
        sq = board.square(action.square)
        pos.wagons[sq] = now.colour
        pos.start[pos.seat] -= 1
        pos.used = pos.used | {sq}
        _wagon_action_done(now, stall_rounds)
    elif isinstance(action, ReturnWagon):
        sq = board.square(action.start)
        del pos.wagons[sq]
        pos.used = pos.used - {sq}
        pos.start[pos.seat] += 1
        pos.returned += 1
        _wagon_action_done(now, stall_rounds)
    elif isinstance(action, MoveRock):
        pos.rock = board.square(action.to)
        pos.rock_moved = True
        end_turn(now, stall_rounds)  # "if the Rock is moved, this has to be the last action"
    elif isinstance(action, EndTurn):
        end_turn(now, stall_rounds)
    else:
        _carry_out_setup(now, action)


def _carry_out_setup(now: Now, action: Action) -> None:
    pos, board = now.pos, now.board
    if isinstance(action, LayGreen):
        pos.tiles[board.square(action.square)] = Tile(Colour.GREEN)
        pos.green_to_lay -= 1
        if pos.green_to_lay == 0:
            pos.phase, pos.seat = Phase.PLACE_TILES, 0
    elif isinstance(action, PlaceTile):
        mask = exits_mask(action.exits)
        shape = shape_of(mask)
        assert shape is not None
        pos.tiles[board.square(action.square)] = Tile(now.colour, shape, mask)
        pos.to_place[pos.seat][shape] -= 1
        pos.seat = (pos.seat + 1) % len(pos.start)
        if not any(n for left in pos.to_place for n in left.values()):
            pos.phase, pos.seat = Phase.TURN_UP, 0
    elif isinstance(action, TurnUp):
        pos.pending = board.square(action.square)
        pos.phase = Phase.REVEAL
    elif isinstance(action, RevealTile):
        assert pos.pending is not None
        pos.face_down[action.shape] -= 1
        pos.tiles[pos.pending] = Tile(Colour.GREEN, action.shape, BASE_EXITS[action.shape])
        pos.phase = Phase.ORIENT
    elif isinstance(action, OrientTile):
        assert pos.pending is not None
        mask = exits_mask(action.exits)
        pos.tiles[pos.pending] = Tile(Colour.GREEN, shape_of(mask), mask)
        pos.pending = None
        pos.seat = (pos.seat + 1) % len(pos.start)
        pos.phase = Phase.TURN_UP
        if not any(pos.face_down.values()):
            _start_race(now)
    else:  # pragma: no cover - legality refuses any other action first
        raise AssertionError(f"no move for {action!r}")


def _start_race(now: Now) -> None:
    """The Rock goes on the central square; the starting player (seat 0) begins the race."""
    pos = now.pos
    pos.rock = now.board.centre
    pos.phase = Phase.PLAY
    pos.seat = 0
    pos.turn = 1
    pos.actions_left = FIRST_TURN_ACTIONS


def _reach_goal(now: Now) -> None:
    pos = now.pos
    pos.goal[pos.seat] += 1
    pos.scored = True
    if pos.goal[pos.seat] == now.setup.wagons:
        pos.phase = Phase.OVER
        pos.winners = (pos.seat,)
        pos.end_reason = f"{now.colour.value} brought every wagon beyond the opposite end"


def _wagon_action_done(now: Now, stall_rounds: int) -> None:
    now.pos.wagon_used = True
    _action_done(now, stall_rounds)


def _action_done(now: Now, stall_rounds: int) -> None:
    pos = now.pos
    pos.actions_left -= 1
    if pos.phase is Phase.PLAY and pos.actions_left == 0:
        end_turn(now, stall_rounds)


def end_turn(now: Now, stall_rounds: int) -> None:
    """Pass the turn on; a race with no wagon across for `stall_rounds` rounds ends (decision)."""
    pos = now.pos
    players = len(pos.start)
    pos.quiet_turns = 0 if pos.scored else pos.quiet_turns + 1
    if stall_rounds and pos.quiet_turns >= stall_rounds * players:
        best = max(pos.goal)
        pos.phase = Phase.OVER
        pos.winners = tuple(s for s in range(players) if pos.goal[s] == best)
        rounds = f"{stall_rounds} round{'s' if stall_rounds != 1 else ''}"
        pos.end_reason = f"{rounds} in a row without a wagon beyond its end"
        return
    pos.seat = (pos.seat + 1) % players
    pos.turn += 1
    pos.actions_left = ACTIONS_PER_TURN
    pos.wagon_used = False
    pos.scored = False
    pos.used = frozenset()
    pos.rotated = frozenset()
    pos.returned = 0
