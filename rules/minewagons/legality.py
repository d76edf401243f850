"""What may be done now: for each action, its generator and its "why not" side by side.

`why_not_*` returns None for a legal action, else the rule it breaks in the seed's words; the
generators list exactly the actions whose `why_not` is None (the conformance test checks it).
`why_not` answers for any action, as the `Why` the game's `State.why_not` returns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from rules.core import Action, Why
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
from rules.minewagons.components import (
    SHAPES,
    Board,
    Colour,
    Setup,
    Shape,
    exits_mask,
    exits_text,
    shape_exits,
    shape_of,
)
from rules.minewagons.position import Phase, Position
from rules.minewagons.rails import Reach, reach, rock_edges, wagon_edges

# Canonical action values, made once: legal_actions hands out the same objects every time.
lay_green = functools.cache(LayGreen)
place_tile = functools.cache(PlaceTile)
turn_up = functools.cache(TurnUp)
reveal_tile = functools.cache(RevealTile)
orient_tile = functools.cache(OrientTile)
enter_wagon = functools.cache(EnterWagon)
move_wagon = functools.cache(MoveWagon)
return_wagon = functools.cache(ReturnWagon)
rotate_tile = functools.cache(RotateTile)
move_rock = functools.cache(MoveRock)
END_TURN = EndTurn()


class Now:
    """One position as the rules judge it, with the moves along rails worked out once each."""

    def __init__(self, board: Board, setup: Setup, pos: Position) -> None:
        self.board = board
        self.setup = setup
        self.pos = pos
        self._reach: dict[int, Reach] = {}
        self._wagon_action: bool | None = None
        self._free: list[int] | None = None
        self._entering: list[int] | None = None
        self.occupied = set(pos.wagons)
        if pos.rock is not None:
            self.occupied.add(pos.rock)

    @property
    def colour(self) -> Colour:
        return self.setup.seats[self.pos.seat]

    def name(self, sq: int) -> str:
        return self.board.names[sq]

    def square(self, name: str) -> int | None:
        try:
            return self.board.square(name)
        except ValueError:
            return None

    def reach(self, sq: int) -> Reach:
        """Where the piece on `sq` (a wagon of the player to act, or the Rock) may go."""
        found = self._reach.get(sq)
        if found is None:
            pos = self.pos
            if sq == pos.rock:
                edges = rock_edges(self.board, self.colour)
            else:
                edges = wagon_edges(self.board, self.colour)
            found = self._reach[sq] = reach(self.board, pos.tiles, self.occupied, sq, edges)
        return found

    def own_free_wagons(self) -> list[int]:
        """Squares of the player's wagons not yet used this turn."""
        if self._free is None:
            colour, used = self.colour, self.pos.used
            self._free = sorted(
                sq for sq, c in self.pos.wagons.items() if c is colour and sq not in used
            )
        return self._free

    def entering_squares(self) -> list[int]:
        """Free squares of the first line whose rails reach the player's starting area."""
        if self._entering is None:
            self._entering = _entering_squares(self)
        return self._entering

    def wagons_to_enter(self) -> int:
        return self.pos.start[self.pos.seat] - self.pos.returned

    def can_use_a_wagon(self) -> bool:
        if self._wagon_action is None:
            self._wagon_action = bool(self.entering_squares()) or any(
                self.reach(sq).stops or self.reach(sq).goal or self.reach(sq).home
                for sq in self.own_free_wagons()
            )
        return self._wagon_action


Broken = str | None  # the rule an action breaks, in words; None when it is allowed


def _bad_square(now: Now, name: str) -> tuple[int | None, Broken]:
    sq = now.square(name)
    if sq is None:
        return None, f"{name!r} is not a square of the board (A1..G7)"
    return sq, None


def _bad_exits(text: str) -> tuple[int, Broken]:
    try:
        mask = exits_mask(text)
    except ValueError as e:
        return 0, str(e)
    if shape_of(mask) is None:
        return 0, f"rails leaving by {text!r} are no L, I or T platform"
    return mask, None


def _in_phase(now: Now, phase: Phase, what: str) -> Broken:
    if now.pos.phase is not phase:
        return f"{what} only {_PHASE_WORDS[phase]} (now: {now.pos.phase.value})"
    return None


_PHASE_WORDS = {
    Phase.LAY_GREEN: "while the green tiles are laid face down",
    Phase.PLACE_TILES: "while players set their coloured tiles",
    Phase.TURN_UP: "when a green tile is to be turned face up",
    Phase.REVEAL: "when a turned-up tile shows its face",
    Phase.ORIENT: "when a turned-up green tile is to be laid",
    Phase.PLAY: "during the race",
}


# ---- setup step 1: green tiles face down at random (chance)


def green_squares(now: Now) -> list[int]:
    tiles = now.pos.tiles
    return [sq for sq in now.board.tile_squares if tiles[sq] is None]


def chance_lay_green(now: Now) -> list[tuple[Action, float]]:
    squares = green_squares(now)
    return [(lay_green(now.name(sq)), 1.0 / len(squares)) for sq in squares]


def why_not_lay_green(now: Now, action: LayGreen) -> Broken:
    if why := _in_phase(now, Phase.LAY_GREEN, "green tiles are laid face down"):
        return why
    sq, why = _bad_square(now, action.square)
    if sq is None:
        return why
    return _why_not_cover(now, sq)


def _why_not_cover(now: Now, sq: int) -> Broken:
    if sq in now.board.printed:
        return f"the printed squares cannot be covered ({now.name(sq)})"
    if now.pos.tiles[sq] is not None:
        return f"{now.name(sq)} already holds a tile"
    return None


# ---- setup step 2: coloured tiles in alternating turns, no two of a colour side by side


def _next_to_own(now: Now, sq: int, colour: Colour) -> bool:
    tiles = now.pos.tiles
    for nb in now.board.neighbour[sq]:
        tile = tiles[nb] if nb >= 0 else None
        if tile is not None and tile.colour is colour:
            return True
    return False


def _placing_squares(now: Now) -> tuple[list[int], bool]:
    """Squares the player may set a tile on, and whether the adjacency rule had to be waived."""
    empty = green_squares(now)
    apart = [sq for sq in empty if not _next_to_own(now, sq, now.colour)]
    return (apart, False) if apart else (empty, True)


def legal_place_tile(now: Now) -> list[Action]:
    left = now.pos.to_place[now.pos.seat]
    shapes = tuple(shape for shape in SHAPES if left.get(shape, 0))
    squares, _ = _placing_squares(now)
    return [a for sq in squares for a in _placements(now.name(sq), shapes)]


@functools.cache
def _placements(name: str, shapes: tuple[Shape, ...]) -> tuple[Action, ...]:
    return tuple(place_tile(name, exits_text(m)) for shape in shapes for m in shape_exits(shape))


def why_not_place_tile(now: Now, action: PlaceTile) -> Broken:
    if why := _in_phase(now, Phase.PLACE_TILES, "coloured tiles are set"):
        return why
    sq, why = _bad_square(now, action.square)
    if sq is None:
        return why
    mask, why = _bad_exits(action.exits)
    if why:
        return why
    if why := _why_not_cover(now, sq):
        return why
    shape = shape_of(mask)
    assert shape is not None
    if not now.pos.to_place[now.pos.seat].get(shape, 0):
        return f"{now.colour.value} has no {shape.value} tile left to set"
    squares, waived = _placing_squares(now)
    if sq not in squares and not waived:
        return (
            f"tiles in the same colour may not be set orthogonally adjacent "
            f"({now.name(sq)} is next to a {now.colour.value} tile)"
        )
    return None


# ---- setup step 3: green tiles turned face up, alternating, laid as the player prefers


def legal_turn_up(now: Now) -> list[Action]:
    tiles = now.pos.tiles
    return [
        turn_up(now.name(sq))
        for sq, tile in enumerate(tiles)
        if tile is not None and tile.shape is None
    ]


def why_not_turn_up(now: Now, action: TurnUp) -> Broken:
    if why := _in_phase(now, Phase.TURN_UP, "a green tile is turned face up"):
        return why
    sq, why = _bad_square(now, action.square)
    if sq is None:
        return why
    tile = now.pos.tiles[sq]
    if tile is None or tile.shape is not None:
        return f"{now.name(sq)} holds no face-down green tile"
    return None


def chance_reveal(now: Now) -> list[tuple[Action, float]]:
    hidden = now.pos.face_down
    total = sum(hidden.values())
    return [(reveal_tile(s), hidden[s] / total) for s in SHAPES if hidden.get(s, 0)]


def why_not_reveal(now: Now, action: RevealTile) -> Broken:
    if why := _in_phase(now, Phase.REVEAL, "a face is revealed"):
        return why
    if not now.pos.face_down.get(action.shape, 0):
        return f"no face-down green tile is left with a {action.shape.value} face"
    return None


def _pending_shape(now: Now) -> Shape | None:
    pos = now.pos
    tile = pos.tiles[pos.pending] if pos.pending is not None else None
    return tile.shape if tile is not None else None


def legal_orient(now: Now) -> list[Action]:
    shape = _pending_shape(now)
    return [orient_tile(exits_text(m)) for m in shape_exits(shape)] if shape else []


def why_not_orient(now: Now, action: OrientTile) -> Broken:
    if why := _in_phase(now, Phase.ORIENT, "a green tile is laid"):
        return why
    mask, why = _bad_exits(action.exits)
    if why:
        return why
    shape = _pending_shape(now)
    if shape is None or mask not in shape_exits(shape):
        return (
            f"the tile turned up is an {shape} platform; its rails cannot leave by {action.exits}"
        )
    return None


# ---- the race


def _entering_squares(now: Now) -> list[int]:
    if now.wagons_to_enter() <= 0:
        return []
    board, tiles, occupied = now.board, now.pos.tiles, now.occupied
    home = board.home_edge[now.colour].bit
    return [
        sq
        for sq in board.first_line(now.colour)
        if sq not in occupied and board.exits_of(sq, tiles[sq]) & home
    ]


def _why_not_action(now: Now) -> Broken:
    if why := _in_phase(now, Phase.PLAY, "wagons move and tiles turn"):
        return why
    if now.pos.actions_left <= 0:
        return "no action is left this turn"
    return None


def legal_enter(now: Now) -> list[Action]:
    return [enter_wagon(now.name(sq)) for sq in now.entering_squares()]


def why_not_enter(now: Now, action: EnterWagon) -> Broken:
    if why := _why_not_action(now):
        return why
    sq, why = _bad_square(now, action.square)
    if sq is None:
        return why
    if now.pos.start[now.pos.seat] <= 0:
        return f"no {now.colour.value} wagon is left in the starting area"
    if now.wagons_to_enter() <= 0:
        return "the same wagon cannot be used twice on the same turn (it came back this turn)"
    if sq not in now.board.first_line(now.colour):
        return (
            f"a wagon enters on the first line, the closest to the player; {action.square} is not"
        )
    if now.pos.occupied(sq):
        return f"{now.name(sq)} is occupied"
    if not now.board.exits_of(sq, now.pos.tiles[sq]) & now.board.home_edge[now.colour].bit:
        return f"the tile on {now.name(sq)} does not allow the frontal access"
    return None


def _why_not_own_wagon(now: Now, name: str) -> tuple[int | None, Broken]:
    if why := _why_not_action(now):
        return None, why
    sq, why = _bad_square(now, name)
    if sq is None:
        return None, why
    if now.pos.wagons.get(sq) is not now.colour:
        return None, f"no {now.colour.value} wagon stands on {now.name(sq)}"
    if sq in now.pos.used:
        return None, "the same wagon cannot be used twice on the same turn"
    return sq, None


def legal_move(now: Now) -> list[Action]:
    out: list[Action] = []
    names = now.board.names
    for sq in now.own_free_wagons():
        found = now.reach(sq)
        start = names[sq]
        if found.goal:
            out.append(move_wagon(start, GOAL))
        out.extend([move_wagon(start, names[to]) for to in sorted(found.stops)])
    return out


def why_not_move(now: Now, action: MoveWagon) -> Broken:
    sq, why = _why_not_own_wagon(now, action.start)
    if sq is None:
        return why
    found = now.reach(sq)
    if action.to == GOAL:
        return None if found.goal else "no connected rails lead this wagon beyond its opposite end"
    to, why = _bad_square(now, action.to)
    if to is None:
        return why
    return _why_not_stop(now, sq, to, found)


def _why_not_stop(now: Now, sq: int, to: int, found: Reach) -> Broken:
    if to in found.stops:
        return None
    if to == now.board.centre:
        return "the central square may be traversed but never occupied"
    if now.pos.occupied(to):
        return f"{now.name(to)} is occupied"
    return f"no connected rails lead from {now.name(sq)} to {now.name(to)} without an obstacle"


def legal_return(now: Now) -> list[Action]:
    return [return_wagon(now.name(sq)) for sq in now.own_free_wagons() if now.reach(sq).home]


def why_not_return(now: Now, action: ReturnWagon) -> Broken:
    sq, why = _why_not_own_wagon(now, action.start)
    if sq is None:
        return why
    if not now.reach(sq).home:
        return "no connected rails lead this wagon back to its starting area"
    return None


def _may_rotate_now(now: Now) -> Broken:
    if why := _why_not_action(now):
        return why
    if now.pos.actions_left < 2 and not now.pos.wagon_used:
        return "at least one wagon must be used on every turn (this is the last action)"
    return None


def legal_rotate(now: Now) -> list[Action]:
    if _may_rotate_now(now):
        return []
    pos, colour, names = now.pos, now.colour, now.board.names
    out: list[Action] = []
    tiles, busy = pos.tiles, now.occupied | pos.rotated
    green = Colour.GREEN
    for sq in now.board.tile_squares:
        tile = tiles[sq]
        if tile is None or tile.shape is None or sq in busy:
            continue
        if tile.colour is green or tile.colour is colour:
            out.extend(_rotations(names[sq], tile.shape, tile.exits))
    return out


@functools.cache
def _rotations(name: str, shape: Shape, exits: int) -> tuple[Action, ...]:
    """Every way to turn the tile on `name` that changes where its rails lead."""
    return tuple(rotate_tile(name, exits_text(m)) for m in shape_exits(shape) if m != exits)


def why_not_rotate(now: Now, action: RotateTile) -> Broken:
    if why := _may_rotate_now(now):
        return why
    sq, why = _bad_square(now, action.square)
    if sq is None:
        return why
    mask, why = _bad_exits(action.exits)
    if why:
        return why
    tile = now.pos.tiles[sq]
    if tile is None:
        return f"{now.name(sq)} is a printed square: it holds no tile to rotate"
    if tile.colour is not Colour.GREEN and tile.colour is not now.colour:
        return f"a rotated tile has to be green or owned by the player ({tile.colour.value})"
    if now.pos.occupied(sq):
        return f"only an empty (not occupied) tile may be rotated ({now.name(sq)})"
    if sq in now.pos.rotated:
        return "the same tile cannot be rotated twice on the same turn"
    assert tile.shape is not None
    if mask not in shape_exits(tile.shape):
        return f"an {tile.shape.value} platform cannot have rails leaving by {action.exits}"
    if mask == tile.exits:
        return f"the tile on {now.name(sq)} already lies that way"
    return None


def legal_rock(now: Now) -> list[Action]:
    pos = now.pos
    if _why_not_rock_now(now) or pos.rock is None:
        return []
    return [move_rock(now.name(to)) for to in sorted(now.reach(pos.rock).stops)]


def _why_not_rock_now(now: Now) -> Broken:
    if why := _why_not_action(now):
        return why
    if not now.pos.wagon_used:
        return "at least one wagon must be used on every turn, and moving the Rock ends it"
    return None


def why_not_rock(now: Now, action: MoveRock) -> Broken:
    if why := _why_not_rock_now(now):
        return why
    to, why = _bad_square(now, action.to)
    if to is None:
        return why
    rock = now.pos.rock
    assert rock is not None
    if to == now.board.centre:
        return "the Rock can never return to the central square"
    return _why_not_stop(now, rock, to, now.reach(rock))


def why_not_end_turn(now: Now, action: EndTurn) -> Broken:
    if why := _in_phase(now, Phase.PLAY, "a turn ends"):
        return why
    if not now.pos.wagon_used and now.can_use_a_wagon():
        return "at least one wagon must be used on every turn"
    return None


def legal_end_turn(now: Now) -> list[Action]:
    return [] if why_not_end_turn(now, END_TURN) else [END_TURN]


# ---- by phase and by action type

_PLAY_GENERATORS: tuple[Callable[[Now], list[Action]], ...] = (
    legal_enter,
    legal_move,
    legal_return,
    legal_rotate,
    legal_rock,
    legal_end_turn,
)


def legal_actions(now: Now) -> list[Action]:
    phase = now.pos.phase
    if phase is Phase.PLAY:
        return [a for gen in _PLAY_GENERATORS for a in gen(now)]
    if phase is Phase.PLACE_TILES:
        return legal_place_tile(now)
    if phase is Phase.TURN_UP:
        return legal_turn_up(now)
    if phase is Phase.ORIENT:
        return legal_orient(now)
    if phase is Phase.LAY_GREEN:
        return [a for a, _ in chance_lay_green(now)]
    if phase is Phase.REVEAL:
        return [a for a, _ in chance_reveal(now)]
    return []


def chance_outcomes(now: Now) -> list[tuple[Action, float]]:
    if now.pos.phase is Phase.LAY_GREEN:
        return chance_lay_green(now)
    if now.pos.phase is Phase.REVEAL:
        return chance_reveal(now)
    return []


def why_not(now: Now, action: Action) -> Why | None:
    """None if `action` is legal now, else the rule it breaks (the game's `State.why_not`)."""
    broken = _broken(now, action)
    return None if broken is None else Why(broken)


def _broken(now: Now, action: Action) -> Broken:
    if isinstance(action, MoveWagon):
        return why_not_move(now, action)
    if isinstance(action, RotateTile):
        return why_not_rotate(now, action)
    if isinstance(action, EnterWagon):
        return why_not_enter(now, action)
    if isinstance(action, ReturnWagon):
        return why_not_return(now, action)
    if isinstance(action, MoveRock):
        return why_not_rock(now, action)
    if isinstance(action, EndTurn):
        return why_not_end_turn(now, action)
    if isinstance(action, PlaceTile):
        return why_not_place_tile(now, action)
    if isinstance(action, LayGreen):
        return why_not_lay_green(now, action)
    if isinstance(action, TurnUp):
        return why_not_turn_up(now, action)
    if isinstance(action, RevealTile):
        return why_not_reveal(now, action)
    if isinstance(action, OrientTile):
        return why_not_orient(now, action)
    return f"{action.TYPE!r} is not an action of this game"


def candidates(now: Now) -> list[Action]:
    """The actions the JSON can spell near this position, legal or not (for conformance).

    Every square for the one-square actions; every shape and orientation (and two shapes no
    platform has) where tiles are set or turned now; each piece's moves to its own row and column,
    to where it can stop and to its goal.
    """
    board, pos = now.board, now.pos
    names = board.names
    exits = [exits_text(m) for shape in SHAPES for m in shape_exits(shape)] + ["NESW", "N"]
    out: list[Action] = [END_TURN, *(reveal_tile(s) for s in SHAPES)]
    out.extend(orient_tile(e) for e in exits)
    setting = range(len(names)) if pos.phase is Phase.PLACE_TILES else (0, 1, 3, 24, 48)
    turning = range(len(names)) if pos.phase is Phase.PLAY else (0, 1, 3, 24, 48)
    for sq, name in enumerate(names):
        out.extend((lay_green(name), turn_up(name), enter_wagon(name), move_rock(name)))
        if sq in setting:
            out.extend(place_tile(name, e) for e in exits)
        if sq in turning:
            out.extend(rotate_tile(name, e) for e in exits)
    pieces = sorted(pos.wagons) + ([pos.rock] if pos.rock is not None else [])
    for sq in pieces:
        row, col = divmod(sq, board.size)
        near = {to for to in range(len(names)) if to // board.size == row or to % board.size == col}
        if pos.wagons.get(sq) is now.colour or sq == pos.rock:
            near |= now.reach(sq).stops
        out.append(return_wagon(names[sq]))
        out.append(move_wagon(names[sq], GOAL))
        out.extend(move_wagon(names[sq], names[to]) for to in sorted(near))
    return out
