"""The mine-wagon race's components as values: sides, tile shapes, colours, the board from data."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from importlib import resources
from typing import Any


class Side(IntEnum):
    """A side of a square or of the board; north is towards row 7."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def opposite(self) -> Side:
        return Side((self + 2) % 4)

    @property
    def bit(self) -> int:
        return 1 << self


SIDES = (Side.N, Side.E, Side.S, Side.W)


@functools.lru_cache(maxsize=256)
def exits_mask(text: str) -> int:
    """'NES' -> bit mask; ValueError names a letter that is not N, E, S or W."""
    mask = 0
    for ch in text.upper():
        if ch not in "NESW":
            raise ValueError(f"exits {text!r}: {ch!r} is not one of N, E, S, W")
        mask |= Side("NESW".index(ch)).bit
    return mask


def exits_text(mask: int) -> str:
    """Bit mask -> 'NES', always in N, E, S, W order."""
    return _EXITS_TEXT[mask & 0b1111]


_EXITS_TEXT = tuple("".join(s.name for s in SIDES if mask & s.bit) for mask in range(16))


def turn_clockwise(mask: int, quarter_turns: int = 1) -> int:
    q = quarter_turns % 4
    return ((mask << q) | (mask >> (4 - q))) & 0b1111


class Shape(StrEnum):
    """A platform's rails: L (a curve), I (a straight), T (three ways, all joined)."""

    L = "L"
    I = "I"  # noqa: E741 - the seed's own name for the straight platform
    T = "T"


SHAPES = (Shape.L, Shape.I, Shape.T)
# Each shape at rotation 0; rotation r is this turned r quarter turns clockwise.
BASE_EXITS = {Shape.L: exits_mask("NE"), Shape.I: exits_mask("NS"), Shape.T: exits_mask("NES")}
ROTATIONS = {Shape.L: 4, Shape.I: 2, Shape.T: 4}


@functools.cache
def shape_exits(shape: Shape) -> tuple[int, ...]:
    """Every distinct exits mask of a shape, by rotation."""
    return tuple(turn_clockwise(BASE_EXITS[shape], r) for r in range(ROTATIONS[shape]))


def shape_of(mask: int) -> Shape | None:
    """The platform shape whose rails leave by exactly these sides, if any."""
    for shape in SHAPES:
        if mask in shape_exits(shape):
            return shape
    return None


def rotation_of(shape: Shape, mask: int) -> int:
    return shape_exits(shape).index(mask)


class Colour(StrEnum):
    """A tile or wagon colour; green tiles belong to nobody."""

    RED = "red"
    BLUE = "blue"
    YELLOW = "yellow"
    WHITE = "white"
    GREEN = "green"


PLAYER_COLOURS = (Colour.RED, Colour.BLUE, Colour.YELLOW, Colour.WHITE)


@dataclass(frozen=True)
class Tile:
    """A platform on the board: its colour, and face up its shape and the sides its rails reach."""

    colour: Colour
    shape: Shape | None = None  # None while a green tile lies face down
    exits: int = 0

    @property
    def face_up(self) -> bool:
        return self.shape is not None


@dataclass(frozen=True)
class Setup:
    """What a player count uses: seats' colours, wagons each, tiles each, green tiles."""

    seats: tuple[Colour, ...]
    wagons: int
    per_player: dict[Shape, int]
    green: dict[Shape, int]


@dataclass(frozen=True)
class Board:
    """The 7x7 board: square names, the centre, the printed squares' rails, the board edges.

    `rails[sq][entry]` is the mask of sides a wagon coming in by side `entry` may leave by, for a
    printed square; tiles are worked out from their exits.
    """

    size: int
    names: tuple[str, ...]
    centre: int
    printed: dict[int, tuple[int, int, int, int]]
    neighbour: tuple[tuple[int, int, int, int], ...]  # -1 beyond the edge
    wrap: tuple[tuple[int, int, int, int], ...]  # the square on the far side, same line
    home_edge: dict[Colour, Side]
    box_wagons: dict[Colour, int]
    box_tiles: dict[Colour, dict[Shape, int]]
    setups: dict[int, Setup]
    first_lines: dict[Colour, tuple[int, ...]]
    tile_squares: tuple[int, ...]  # every square but the printed ones

    def square(self, name: str) -> int:
        """Index of a square name such as 'D4'; ValueError names a square not on the board."""
        try:
            return self._index()[name.upper()]
        except KeyError:
            raise ValueError(f"{name!r} is not a square of the board (A1..G7)") from None

    def _index(self) -> dict[str, int]:
        return _name_index(self.names)

    def exits_of(self, sq: int, tile: Tile | None) -> int:
        """Every side rails leave a square by (0 for an empty or face-down square)."""
        rails = self.printed.get(sq)
        if rails is not None:
            return rails[0] | rails[1] | rails[2] | rails[3]
        return tile.exits if tile is not None else 0

    def first_line(self, colour: Colour) -> tuple[int, ...]:
        """The line of squares closest to a colour's starting area: its entering line."""
        return self.first_lines[colour]


@functools.cache
def _name_index(names: tuple[str, ...]) -> dict[str, int]:
    return {n: i for i, n in enumerate(names)}


def _counts(raw: dict[str, int]) -> dict[Shape, int]:
    return {Shape(k): int(v) for k, v in raw.items()}


def _rails(pairs: list[str]) -> tuple[int, int, int, int]:
    out = [0, 0, 0, 0]
    for pair in pairs:
        mask = exits_mask(pair)
        sides = [s for s in SIDES if mask & s.bit]
        if len(sides) != 2:
            raise ValueError(f"rail {pair!r} must join two different sides")
        a, b = sides
        out[a] |= b.bit
        out[b] |= a.bit
    return out[0], out[1], out[2], out[3]


def board_from_data(data: dict[str, Any]) -> Board:
    """Build the board from its JSON; ValueError says what in the data is wrong."""
    size = int(data["size"])
    names = tuple(f"{'ABCDEFGHIJ'[c]}{r + 1}" for r in range(size) for c in range(size))
    index = _name_index(names)

    def sq(name: str) -> int:
        if name not in index:
            raise ValueError(f"board data names {name!r}, not a square of a {size}x{size} board")
        return index[name]

    steps = {Side.N: (1, 0), Side.E: (0, 1), Side.S: (-1, 0), Side.W: (0, -1)}
    neighbour, wrap = [], []
    for i in range(size * size):
        row, col = divmod(i, size)
        near, far = [], []
        for side in SIDES:
            dr, dc = steps[side]
            r, c = row + dr, col + dc
            near.append(r * size + c if 0 <= r < size and 0 <= c < size else -1)
            far.append(((r % size) * size + c % size) if near[-1] < 0 else -1)
        neighbour.append((near[0], near[1], near[2], near[3]))
        wrap.append((far[0], far[1], far[2], far[3]))
    home_edge = {Colour(c): Side("NESW".index(s)) for c, s in data["home_edge"].items()}
    first_lines = {
        colour: tuple(sq for sq in range(size * size) if neighbour[sq][side] < 0)
        for colour, side in home_edge.items()
    }
    box = data["box"]
    setups = {
        int(n): Setup(
            tuple(Colour(c) for c in s["seats"]),
            int(s["wagons"]),
            _counts(s["per_player"]),
            _counts(s["green"]),
        )
        for n, s in data["by_players"].items()
    }
    board = Board(
        size=size,
        names=names,
        centre=sq(data["centre"]),
        printed={sq(name): _rails(pairs) for name, pairs in data["printed"].items()},
        neighbour=tuple(neighbour),
        wrap=tuple(wrap),
        home_edge=home_edge,
        box_wagons={Colour(c): int(n) for c, n in box["wagons"].items()},
        box_tiles={Colour(c): _counts(t) for c, t in box["tiles"].items()},
        setups=setups,
        first_lines=first_lines,
        tile_squares=tuple(i for i in range(size * size) if names[i] not in data["printed"]),
    )
    _check(board)
    return board


def _check(board: Board) -> None:
    if board.centre not in board.printed:
        raise ValueError("board data: the centre must be a printed square")
    tile_squares = len(board.names) - len(board.printed)
    for players, setup in board.setups.items():
        per = sum(setup.per_player.values())
        total = per * players + sum(setup.green.values())
        if total != tile_squares:
            raise ValueError(f"board data: {players} players use {total} tiles for {tile_squares}")
        for colour in setup.seats:
            if board.box_wagons[colour] < setup.wagons:
                raise ValueError(f"board data: the box lacks {colour} wagons for {players}")
            for shape, n in setup.per_player.items():
                if board.box_tiles[colour][shape] < n:
                    raise ValueError(f"board data: the box lacks {colour} {shape} tiles")


@functools.cache
def load_board() -> Board:
    """The standard board, from `data/board.json` in this package."""
    text = resources.files("rules.minewagons").joinpath("data/board.json").read_text()
    return board_from_data(json.loads(text))
