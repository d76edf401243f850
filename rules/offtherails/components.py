"""Off the Rails components as values: directions, tracks, gems, colours, the board as data."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from importlib import resources
from pathlib import Path
from typing import Any


class Direction(IntEnum):
    """A compass direction on the board; north is towards the highest row number."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def opposite(self) -> Direction:
        return Direction((self + 2) % 4)

    @property
    def bit(self) -> int:
        return 1 << self


ALL_DIRECTIONS = (Direction.N, Direction.E, Direction.S, Direction.W)


@functools.cache
def exits_mask(text: str) -> int:
    """'NES' -> bit mask. Raises ValueError on a letter that is not N, E, S or W."""
    mask = 0
    for ch in text.upper():
        if ch not in "NESW":
            raise ValueError(f"exits {text!r}: {ch!r} is not one of N, E, S, W")
        mask |= Direction("NESW".index(ch)).bit
    return mask


@functools.cache
def exits_text(mask: int) -> str:
    """Bit mask -> 'NES' in N, E, S, W order."""
    return "".join(d.name for d in ALL_DIRECTIONS if mask & d.bit)


@functools.cache
def mask_directions(mask: int) -> tuple[Direction, ...]:
    return tuple(d for d in ALL_DIRECTIONS if mask & d.bit)


def rotate_mask(mask: int, quarter_turns: int) -> int:
    """Rotate exits clockwise by quarter turns."""
    q = quarter_turns % 4
    return ((mask << q) | (mask >> (4 - q))) & 0b1111


class Shape(StrEnum):
    """A track's shape, named by what players see on the tile face."""

    STRAIGHT = "straight"
    CORNER = "corner"
    T = "t"
    CROSS = "cross"


@functools.cache
def shape_of(mask: int) -> Shape:
    n = bin(mask).count("1")
    if n == 2:
        return Shape.STRAIGHT if mask in (0b0101, 0b1010) else Shape.CORNER
    if n == 3:
        return Shape.T
    if n == 4:
        return Shape.CROSS
    raise ValueError(f"exits {exits_text(mask)!r} are not a track tile")


# The face of each shape at rotation 0; a tile at rotation r has this mask rotated r quarter turns.
BASE_MASK = {
    Shape.STRAIGHT: exits_mask("NS"),
    Shape.CORNER: exits_mask("NE"),
    Shape.T: exits_mask("NES"),
    Shape.CROSS: exits_mask("NESW"),
}


def rotation_of(mask: int) -> int:
    """The smallest quarter-turn rotation of its shape's base face that gives this mask."""
    base = BASE_MASK[shape_of(mask)]
    for r in range(4):
        if rotate_mask(base, r) == mask:
            return r
    raise AssertionError(mask)


STRAIGHT_MASKS = (exits_mask("NS"), exits_mask("EW"))
CORNER_MASKS = tuple(rotate_mask(BASE_MASK[Shape.CORNER], r) for r in range(4))
T_MASKS = tuple(rotate_mask(BASE_MASK[Shape.T], r) for r in range(4))
CROSS_MASK = BASE_MASK[Shape.CROSS]


class TileKind(StrEnum):
    """A physical double-sided tile: its lower face and the upgrade printed on its back."""

    STRAIGHT_T = "straight_t"
    CORNER_T = "corner_t"
    T_CROSS = "t_cross"


class Gem(StrEnum):
    """What a cart can carry: a rock or a precious jewel. `index` orders gem-count tuples."""

    ROCK = "rock"
    RUBY = "ruby"
    EMERALD = "emerald"
    GOLD = "gold"
    DIAMOND = "diamond"

    @property
    def order(self) -> int:
        return _GEM_INDEX[self]

    @property
    def points(self) -> int:
        return _GEM_INDEX[self]  # rock 0, ruby 1, emerald 2, gold 3, diamond 4


_GEM_INDEX = {g: i for i, g in enumerate(Gem)}
GEM_BY_INDEX = tuple(Gem)


PRECIOUS = (Gem.RUBY, Gem.EMERALD, Gem.GOLD, Gem.DIAMOND)

Gems = tuple[int, int, int, int, int]
"""A multiset of gems: counts indexed by `Gem`."""

NO_GEMS: Gems = (0, 0, 0, 0, 0)


def gems_add(a: Gems, b: Gems) -> Gems:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])


def gems_sub(a: Gems, b: Gems) -> Gems:
    out = (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4])
    if min(out) < 0:
        raise ValueError(f"cannot take {b} from {a}")
    return out


def gems_one(g: Gem, n: int = 1) -> Gems:
    out = [0, 0, 0, 0, 0]
    out[g.order] = n
    return (out[0], out[1], out[2], out[3], out[4])


def gems_json(g: Gems) -> dict[str, int]:
    return {gem.value: g[gem.order] for gem in Gem}


def gems_from_json(d: dict[str, int]) -> Gems:
    unknown = set(d) - {gem.value for gem in Gem}
    if unknown:
        raise ValueError(f"unknown gem kind(s) {sorted(unknown)}")
    counts = [int(d.get(gem.value, 0)) for gem in Gem]
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def gems_list(g: Gems) -> list[Gem]:
    return [gem for gem in Gem for _ in range(g[gem.order])]


class Colour(StrEnum):
    """A clan colour: of a mine, its deposit cards and chasm tokens, a surface side, its carts."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"


COLOURS = (Colour.RED, Colour.YELLOW, Colour.GREEN, Colour.BLUE)

# In solo play each precious gem has a matching colour: the surface it should be delivered to.
SOLO_GEM_COLOUR = {
    Gem.RUBY: Colour.RED,
    Gem.GOLD: Colour.YELLOW,
    Gem.EMERALD: Colour.GREEN,
    Gem.DIAMOND: Colour.BLUE,
}


class Side(StrEnum):
    """A side of the board; its Surface Layer is the edge row or column on that side."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"

    @property
    def outward(self) -> Direction:
        return {
            Side.NORTH: Direction.N,
            Side.EAST: Direction.E,
            Side.SOUTH: Direction.S,
            Side.WEST: Direction.W,
        }[self]

    @property
    def opposite(self) -> Side:
        return {
            Side.NORTH: Side.SOUTH,
            Side.SOUTH: Side.NORTH,
            Side.EAST: Side.WEST,
            Side.WEST: Side.EAST,
        }[self]


SIDES = (Side.NORTH, Side.EAST, Side.SOUTH, Side.WEST)


class Die(StrEnum):
    """Each player's two minecarts are told apart by the colour of their speed die."""

    WHITE = "white"
    BLACK = "black"


# -------------------------------------------------------------------------------------------
# The board as data


@dataclass(frozen=True)
class Mine:
    """A mine: its colour, centre square and the eight mine squares numbered 1 to 8."""

    colour: Colour
    centre: int
    squares: tuple[int, ...]  # index i holds mine square number i + 1


@dataclass(frozen=True)
class SideInfo:
    """A side: its colour, its surface squares and the printed starting tracks on them."""

    side: Side
    colour: Colour
    squares: tuple[int, ...]
    starting_tracks: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Board:
    """Board geometry loaded from a data file. Squares are indices `row * columns + column`.

    Row 0 is the south edge (named 1), column 0 the west edge (named A): squares are named like
    chess squares, `A1` bottom-left as seen from the south side.
    """

    name: str
    columns: int
    rows: int
    square_mm: float
    names: tuple[str, ...]
    neighbours: tuple[tuple[int | None, int | None, int | None, int | None], ...]
    surface: frozenset[int]
    sides: dict[Side, SideInfo]
    side_of_square: dict[int, Side]
    starting_track_exits: dict[int, int]
    mines: dict[Colour, Mine]
    mine_centres: frozenset[int]
    placeable: tuple[int, ...]  # squares a track tile may go on (chasms aside)
    chasm_squares: tuple[int, ...]  # squares a chasm token may go on

    def index(self, name: str) -> int:
        try:
            return self._index[name.upper()]
        except KeyError:
            raise ValueError(
                f"no square {name!r} on the {self.columns}x{self.rows} board (A1..{self.names[-1]})"
            ) from None

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def side_for_colour(self, colour: Colour) -> Side:
        for s, info in self.sides.items():
            if info.colour == colour:
                return s
        raise KeyError(colour)


def square_name(row: int, col: int) -> str:
    return f"{chr(ord('A') + col)}{row + 1}"


_OFFSETS = {"NW": (1, -1), "N": (1, 0), "NE": (1, 1), "E": (0, 1),
            "SE": (-1, 1), "S": (-1, 0), "SW": (-1, -1), "W": (0, -1)}  # fmt: skip


def board_from_json(data: dict[str, Any]) -> Board:
    """Build a Board from its data file's JSON; a ValueError names the field that is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a board file holds one JSON object")
    try:
        return _board_from_json(data)
    except KeyError as e:
        raise ValueError(f"missing field {e.args[0]!r}") from None
    except (TypeError, AttributeError) as e:
        raise ValueError(f"a field has the wrong kind of value ({e})") from None


def _board_from_json(data: dict[str, Any]) -> Board:
    """A board from its JSON description, checked (`ValueError` says what is wrong)."""
    cols, rows = int(data["columns"]), int(data["rows"])
    if not (4 <= cols <= 26 and 4 <= rows <= 99):
        raise ValueError(f"board {cols}x{rows}: columns must be 4-26 and rows 4-99")
    names = tuple(square_name(r, c) for r in range(rows) for c in range(cols))
    index = {n: i for i, n in enumerate(names)}

    def idx(name: str, where: str) -> int:
        if name.upper() not in index:
            raise ValueError(f"{where}: no square {name!r} on a {cols}x{rows} board")
        return index[name.upper()]

    depth = int(data.get("surface_depth", 1))
    surface = frozenset(
        r * cols + c
        for r in range(rows)
        for c in range(cols)
        if r < depth or c < depth or r >= rows - depth or c >= cols - depth
    )
    sides: dict[Side, SideInfo] = {}
    side_of: dict[int, Side] = {}
    track_exits: dict[int, int] = {}
    for side_name, info in data["sides"].items():
        side = Side(side_name)
        if side in (Side.NORTH, Side.SOUTH):
            r = rows - 1 if side is Side.NORTH else 0
            squares = tuple(r * cols + c for c in range(depth, cols - depth))
        else:
            c = cols - 1 if side is Side.EAST else 0
            squares = tuple(r * cols + c for r in range(depth, rows - depth))
        where = f"sides.{side_name}.starting_tracks"
        tracks = tuple(idx(t, where) for t in info["starting_tracks"])
        twice = sorted({names[t] for t in tracks if tracks.count(t) > 1})
        if twice:
            raise ValueError(f"{where}: {', '.join(twice)} named more than once")
        for t in tracks:
            if t not in squares:
                raise ValueError(f"{where}: {names[t]} is not on the {side_name} edge")
            track_exits[t] = side.outward.bit | side.outward.opposite.bit
        for s in squares:
            side_of[s] = side
        sides[side] = SideInfo(side, Colour(info["colour"]), squares, tracks)
    mines = _mines_from_json(data, cols, rows, surface, idx)
    _check_board(sides, mines, names)
    centres = frozenset(m.centre for m in mines.values())
    inner = tuple(i for i in range(rows * cols) if i not in surface)
    return Board(
        name=str(data.get("name", "custom")),
        columns=cols,
        rows=rows,
        square_mm=float(data.get("square_mm", 40.0)),
        names=names,
        neighbours=_neighbours(cols, rows),
        surface=surface,
        sides=sides,
        side_of_square=side_of,
        starting_track_exits=track_exits,
        mines=mines,
        mine_centres=centres,
        placeable=tuple(i for i in inner if i not in centres),
        chasm_squares=inner,
    )


def _neighbours(
    cols: int, rows: int
) -> tuple[tuple[int | None, int | None, int | None, int | None], ...]:
    """Each square's neighbours to the north, east, south and west (None off the board)."""
    neighbours = []
    for r in range(rows):
        for c in range(cols):
            n = (r + 1) * cols + c if r + 1 < rows else None
            e = r * cols + c + 1 if c + 1 < cols else None
            s = (r - 1) * cols + c if r > 0 else None
            w = r * cols + c - 1 if c > 0 else None
            neighbours.append((n, e, s, w))
    return tuple(neighbours)


def _mines_from_json(
    data: dict[str, Any],
    cols: int,
    rows: int,
    surface: frozenset[int],
    idx: Callable[[str, str], int],
) -> dict[Colour, Mine]:
    """The mines of a board's JSON description: each one's centre and its eight squares in the
    order `mine_square_numbering` gives, all off the surface."""
    numbering = data.get("mine_square_numbering", list(_OFFSETS))
    if sorted(numbering) != sorted(_OFFSETS):
        raise ValueError("mine_square_numbering must list NW, N, NE, E, SE, S, SW, W once each")
    mines: dict[Colour, Mine] = {}
    for colour_name, info in data["mines"].items():
        centre = idx(info["centre"], f"mines.{colour_name}.centre")
        cr, cc = divmod(centre, cols)
        mine_squares = []
        for label in numbering:
            dr, dc = _OFFSETS[label]
            r, c = cr + dr, cc + dc
            if not (0 <= r < rows and 0 <= c < cols) or (r * cols + c) in surface:
                raise ValueError(f"mines.{colour_name}: mine square {label} is off the mine area")
            mine_squares.append(r * cols + c)
        mines[Colour(colour_name)] = Mine(Colour(colour_name), centre, tuple(mine_squares))
    return mines


def _check_board(
    sides: dict[Side, SideInfo], mines: dict[Colour, Mine], names: tuple[str, ...]
) -> None:
    """The rules need four sides of four colours, a mine of each colour, mines apart."""
    missing = [s.value for s in SIDES if s not in sides]
    if missing:
        raise ValueError(f"sides: the board needs all four sides; missing {missing}")
    colours = [info.colour for info in sides.values()]
    if sorted(colours) != sorted(COLOURS):
        raise ValueError(
            f"sides: each colour on exactly one side, got {[c.value for c in colours]}"
        )
    for side, info in sides.items():
        if len(info.starting_tracks) < 2:
            raise ValueError(
                f"sides.{side.value}: at least 2 starting tracks (a player has 2 carts)"
            )
    absent = [c.value for c in COLOURS if c not in mines]
    if absent:
        raise ValueError(f"mines: a mine of each colour is needed; missing {absent}")
    taken: dict[int, str] = {}
    for colour, mine in mines.items():
        for sq in (mine.centre, *mine.squares):
            if sq in taken:
                raise ValueError(
                    f"mines.{colour.value}: {names[sq]} is already part of the {taken[sq]} mine"
                )
            taken[sq] = colour.value


_DATA = resources.files("rules.offtherails") / "data"


@functools.cache
def load_board(name: str = "standard") -> Board:
    """A board by name (a data file in rules/offtherails/data/<name>_board.json) or by path."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        text = path.read_text()
    else:
        res = _DATA / f"{name}_board.json"
        if not res.is_file():
            raise ValueError(f"no board named {name!r}")
        text = res.read_text()
    return board_from_json(json.loads(text))


@dataclass(frozen=True)
class Components:
    """Counts of the game's components, from data/components.json."""

    gems: Gems
    solo_gems: Gems
    tiles: dict[TileKind, int]
    chasm_tokens_per_colour: int
    deposit_numbers: int
    gems_per_deposit_number: dict[int, int]
    hold_capacity: int
    actions_per_turn: int
    speed_min: int
    speed_max: int
    start_speed: int


@functools.cache
def load_components() -> Components:
    d = json.loads((_DATA / "components.json").read_text())
    return Components(
        gems=gems_from_json(d["gems"]),
        solo_gems=gems_from_json(d["solo_gems"]),
        tiles={TileKind(k): int(v) for k, v in d["tiles"].items()},
        chasm_tokens_per_colour=int(d["chasm_tokens_per_colour"]),
        deposit_numbers=int(d["deposit_numbers"]),
        gems_per_deposit_number={int(k): int(v) for k, v in d["gems_per_deposit_number"].items()},
        hold_capacity=int(d["hold_capacity"]),
        actions_per_turn=int(d["actions_per_turn"]),
        speed_min=int(d["speed_min"]),
        speed_max=int(d["speed_max"]),
        start_speed=int(d["start_speed"]),
    )
