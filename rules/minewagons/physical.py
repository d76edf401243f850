"""The mine-wagon race on a real table: the mat, the printed markers, what should lie where now.

Marker ids 0-3 are the mat's corners; pieces start at 4. Identical pieces share an id: every red L
tile shows one marker, turned with the tile, so the camera reads colour, shape and rotation; each
colour's wagons share one; the Rock has its own; green tiles carry a second marker on their back.
Wagons and the Rock carry a magnet, so the sensor board under each square feels them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from rules.minewagons.components import (
    PLAYER_COLOURS,
    ROTATIONS,
    SHAPES,
    Colour,
    Shape,
    Side,
    Tile,
    load_board,
    rotation_of,
)
from rules.minewagons.position import Phase, Position
from rules.physical import (
    Catalogue,
    CatalogueEntry,
    CornerMarker,
    Layout,
    Location,
    LocationKind,
    Piece,
    PlacedPiece,
    on_top_of,
)

TILE_COLOURS = (*PLAYER_COLOURS, Colour.GREEN)


@dataclasses.dataclass(frozen=True)
class TableSizes:
    """The mat's measures in millimetres (from `data/board.json`, "table")."""

    square_mm: float
    gap_mm: float
    start_area_depth_mm: float
    margin_mm: float
    corner_marker_mm: float
    tile_marker_mm: float
    wagon_marker_mm: float
    rock_marker_mm: float


PIECE_HEIGHT_MM = {"wagon": 25.0, "rock": 20.0}  # their stickers, on top, above the mat


@functools.cache
def sizes() -> TableSizes:
    text = resources.files("rules.minewagons").joinpath("data/board.json").read_text()
    table = json.loads(text)["table"]
    return TableSizes(**{f.name: float(table[f.name]) for f in dataclasses.fields(TableSizes)})


def tile_piece(colour: Colour, shape: Shape) -> Piece:
    return Piece("tile", f"{colour.value}-{shape.value}")


FACE_DOWN = Piece("tile", "green", "back")
ROCK = Piece("rock", "rock")


def wagon_piece(colour: Colour) -> Piece:
    return Piece("wagon", colour.value)


def start_area(colour: Colour) -> str:
    """The location name of a colour's starting area (the frame beside its end of the board)."""
    return f"start-{colour.value}"


def _entry(
    marker_id: int, piece: Piece, label: str, size: float, rotations: int, copies: int
) -> CatalogueEntry:
    magnetic = piece.kind in ("wagon", "rock")  # each carries a magnet for the sensor board
    height = PIECE_HEIGHT_MM.get(piece.kind, 0.0)
    return CatalogueEntry(marker_id, piece, label, size, rotations, copies, magnetic, height)


@functools.cache
def catalogue() -> Catalogue:
    """Every marker the race prints, ids from 4 up in a fixed order."""
    board, size = load_board(), sizes()
    entries: list[CatalogueEntry] = []

    def add(piece: Piece, label: str, mm: float, rotations: int, copies: int) -> None:
        entries.append(_entry(4 + len(entries), piece, label, mm, rotations, copies))

    for colour in TILE_COLOURS:
        for shape in SHAPES:
            add(
                tile_piece(colour, shape),
                f"{colour.value} {shape.value} tile",
                size.tile_marker_mm,
                ROTATIONS[shape],
                board.box_tiles[colour][shape],
            )
    greens = sum(board.box_tiles[Colour.GREEN].values())
    add(FACE_DOWN, "green tile, back (face down)", size.tile_marker_mm, 1, greens)
    for colour in PLAYER_COLOURS:
        add(
            wagon_piece(colour),
            f"{colour.value} wagon",
            size.wagon_marker_mm,
            1,
            board.box_wagons[colour],
        )
    add(ROCK, "the Rock", size.rock_marker_mm, 1, 1)
    return Catalogue("minewagons", tuple(entries))


@functools.cache
def _layout(players: int) -> Layout:
    board, size = load_board(), sizes()
    sq_mm, n = size.square_mm, board.size
    side_mm = n * sq_mm
    frame = size.gap_mm + size.start_area_depth_mm  # a starting area and its gap, each side
    width = height = 2 * size.margin_mm + 2 * frame + side_mm
    left = top = size.margin_mm + frame  # the board's north-west corner
    locations: list[Location] = []
    for sq, name in enumerate(board.names):
        row, col = divmod(sq, n)
        x = left + (col + 0.5) * sq_mm
        y = top + (n - 1 - row + 0.5) * sq_mm  # north at the top
        sensor = (n - 1 - row, col)  # sensor rows counted from the north edge
        locations.append(Location(name, LocationKind.SQUARE, x, y, sq_mm, sq_mm, sensor))
    centre = left + side_mm / 2
    offset = side_mm / 2 + size.gap_mm + size.start_area_depth_mm / 2
    depth = size.start_area_depth_mm
    for colour in board.setups[players].seats:
        edge = board.home_edge[colour]
        dx, dy = {Side.N: (0, -1), Side.S: (0, 1), Side.E: (1, 0), Side.W: (-1, 0)}[edge]
        w, h = (side_mm, depth) if dx == 0 else (depth, side_mm)
        locations.append(
            Location(
                start_area(colour),
                LocationKind.SLOT,
                centre + dx * offset,
                centre + dy * offset,
                w,
                h,
            )
        )
    half = size.corner_marker_mm / 2 + 10  # 10 mm clear of the mat's edge
    corner = size.corner_marker_mm
    corners = (
        CornerMarker(0, half, half, corner),
        CornerMarker(1, width - half, half, corner),
        CornerMarker(2, width - half, height - half, corner),
        CornerMarker(3, half, height - half, corner),
    )
    return Layout(f"minewagons-{players}p", width, height, tuple(locations), corners)


def layout(options: Mapping[str, Any] | None = None) -> Layout:
    """The mat for the game's player count (all four starting areas when no options are given)."""
    players = int((options or {}).get("players", 4))
    return _layout(players)


def expected_table(state: Any) -> dict[str, tuple[PlacedPiece, ...]]:
    """What should lie on each square and starting area now: tiles (turned), wagons, the Rock.

    A green tile being turned up is in the player's hand once its face is known, until she lays
    it as she prefers (`orient_tile`): its face and how she lays it show together.

    Unsorted: the referee's search asks it at every node it tries."""
    board = load_board()
    pos: Position = state.pos
    seats: tuple[Colour, ...] = state.setup.seats
    pieces: dict[str, tuple[PlacedPiece, ...]] = {}
    in_hand = pos.pending if pos.phase is Phase.ORIENT else None
    names = board.names
    by_tile = _BY_TILE
    for sq, tile in enumerate(pos.tiles):
        if tile is None or sq == in_hand:  # a green tile turned up is in her hand until laid
            continue
        hit = by_tile.get(id(tile))
        if hit is not None and hit[0] is tile:
            pieces[names[sq]] = hit[1]
        else:
            pieces[names[sq]] = _alone_by_identity(tile)
    for sq, colour in pos.wagons.items():
        pieces[names[sq]] = on_top_of(pieces.get(names[sq], ()), _placed_wagon(colour))
    if pos.rock is not None:
        pieces[names[pos.rock]] = on_top_of(pieces.get(names[pos.rock], ()), _PLACED_ROCK)
    for seat, colour in enumerate(seats):
        if pos.start[seat]:
            pieces[start_area(colour)] = _waiting(colour, pos.start[seat])
    return pieces


@functools.cache
def _placed_tile(tile: Tile) -> PlacedPiece:
    """A tile as it lies: face down, or its face turned (remembered: the referee asks often)."""
    if tile.shape is None:
        return PlacedPiece(FACE_DOWN)
    return PlacedPiece(tile_piece(tile.colour, tile.shape), rotation_of(tile.shape, tile.exits))


_BY_TILE: dict[int, tuple[Tile, tuple[PlacedPiece]]] = {}  # a tile object's `_tile_alone`
_BY_TILE_MEMO = 10_000  # tile objects remembered by identity, at most


def _alone_by_identity(tile: Tile) -> tuple[PlacedPiece]:
    """`_tile_alone`, remembered for this tile object: a state's tiles are the same objects from
    one move to the next, so the search's thousands of tables skip hashing them."""
    alone = _tile_alone(tile)
    if len(_BY_TILE) >= _BY_TILE_MEMO:
        _BY_TILE.clear()
    _BY_TILE[id(tile)] = (tile, alone)
    return alone


@functools.cache
def _tile_alone(tile: Tile) -> tuple[PlacedPiece]:
    """A tile alone on its square: one tuple for each, so the referee knows it by identity."""
    return (_placed_tile(tile),)


_PLACED_ROCK = PlacedPiece(ROCK)


@functools.cache
def _waiting(colour: Colour, wagons: int) -> tuple[PlacedPiece, ...]:
    """A seat's wagons waiting in its starting area: one tuple for each count."""
    return (_placed_wagon(colour),) * wagons


@functools.cache
def _placed_wagon(colour: Colour) -> PlacedPiece:
    return PlacedPiece(wagon_piece(colour))
