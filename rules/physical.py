"""A game's physical form as data: board layout in millimetres, piece catalogue, table observations.

These values are shared by the rules (what *should* lie on the table) and the controller (what the
camera and sensor board *say* lies there). Vision knows nothing of them: the controller converts a
`Layout` into vision's own geometry and maps marker ids through a `Catalogue`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class LocationKind(StrEnum):
    """Whether a location is a board square or a card slot beside the board."""

    SQUARE = "square"
    SLOT = "slot"


@dataclass(frozen=True)
class Location:
    """One square or card slot: its name as players say it and its rectangle on the mat (mm).

    `x_mm`, `y_mm` are the centre, measured from the mat's top-left corner, x to the right and y
    down; `sensor` is the (row, column) of the hall sensor under it, if the sensor board has one.
    `in_play` is false for a place printed on the mat that this game leaves unused (a lane
    beyond the players' count): it is watched, so a piece laid there is seen and alerted, but
    the players' page does not draw it while it is empty.
    """

    name: str
    kind: LocationKind
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float
    sensor: tuple[int, int] | None = None
    in_play: bool = True


@dataclass(frozen=True)
class CornerMarker:
    """A calibration marker printed on the mat: its marker id, centre and side length (mm)."""

    marker_id: int
    x_mm: float
    y_mm: float
    size_mm: float


QUIET_CELLS = 1  # white cells around a printed marker: 1/6 of its side for a 4x4 code
CORNER_EDGE_MM = 3.0  # from the mat's cut edge to a corner marker's white quiet zone
CORNER_CLEAR_MM = 3.0  # between a corner marker's quiet zone and any location


def corner_footprint_mm(size_mm: float) -> float:
    """The side a corner marker takes on the mat: the code and its white quiet zone."""
    return size_mm * (6 + 2 * QUIET_CELLS) / 6


def corner_markers(
    width_mm: float, height_mm: float, size_mm: float
) -> tuple[CornerMarker, CornerMarker, CornerMarker, CornerMarker]:
    """The four corner markers, ids 0-3 from the top left clockwise, each with its quiet zone
    `CORNER_EDGE_MM` in from the mat's edges (the layout's margin must leave room for it)."""
    half = CORNER_EDGE_MM + corner_footprint_mm(size_mm) / 2
    return (
        CornerMarker(0, half, half, size_mm),
        CornerMarker(1, width_mm - half, half, size_mm),
        CornerMarker(2, width_mm - half, height_mm - half, size_mm),
        CornerMarker(3, half, height_mm - half, size_mm),
    )


def corner_margin_mm(size_mm: float) -> float:
    """The least margin around a mat's locations that keeps its corner markers clear of them."""
    return CORNER_EDGE_MM + corner_footprint_mm(size_mm) + CORNER_CLEAR_MM


@dataclass(frozen=True)
class Layout:
    """The mat: its size, its locations and the four corner markers that calibrate the camera."""

    name: str
    width_mm: float
    height_mm: float
    locations: tuple[Location, ...]
    corner_markers: tuple[CornerMarker, CornerMarker, CornerMarker, CornerMarker]

    def location(self, name: str) -> Location:
        for loc in self.locations:
            if loc.name == name:
                return loc
        raise KeyError(f"no location named {name!r} in layout {self.name!r}")


@dataclass(frozen=True, order=True)
class Piece:
    """A physical piece as the rules know it: kind (tile, minecart...), identity, and face up."""

    kind: str
    identity: str
    face: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.identity}" + (f":{self.face}" if self.face else "")


@dataclass(frozen=True)
class CatalogueEntry:
    """One printed marker: which piece (and face) it stands for, a human label, its printed size.

    `rotations` is how many quarter turns of the piece look different to the rules: 4 for most,
    2 for a straight track (turned half round it is the same track), 1 for a token. `copies` is
    how many of the piece the game has, so how many stickers to print. `magnetic` pieces carry a
    magnet, so the sensor board under the mat feels them (minecarts, wagons, the Rock).
    `height_mm` is how high the marker sits above the mat (a minecart's top): a camera that
    looks at the mat at a slant sees a tall piece's marker away from its square. `turns`, where a
    game gives them, are the words for each rotation (else a compass letter is shown).
    """

    marker_id: int
    piece: Piece
    label: str
    size_mm: float
    rotations: int = 4
    copies: int = 1
    magnetic: bool = False
    height_mm: float = 0.0
    turns: tuple[str, ...] = ()  # how players say each of its `rotations`: "facing south"

    def same_rotation(self, a: int, b: int) -> bool:
        return (a - b) % self.rotations == 0


@dataclass(frozen=True)
class Catalogue:
    """Every marker a game prints; identical pieces (all straight tiles, say) share one id."""

    game: str
    entries: tuple[CatalogueEntry, ...]

    def by_marker(self) -> dict[int, CatalogueEntry]:
        return {e.marker_id: e for e in self.entries}

    def by_piece(self) -> dict[Piece, CatalogueEntry]:
        return {e.piece: e for e in self.entries}


@dataclass(frozen=True, order=True)
class PlacedPiece:
    """A piece lying on a location, turned `rotation` quarter turns clockwise (0-3)."""

    piece: Piece
    rotation: int = 0


Pieces = tuple[PlacedPiece, ...]
"""What lies on one location (several pieces: a minecart on its tile)."""

Table = Mapping[str, Pieces]
"""Pieces by location name: what lies on a table (an empty location may be absent or empty)."""

_location_name = operator.itemgetter(0)  # an item's sort key: its location's name


_ON_TOP: dict[
    tuple[int, int], tuple[tuple[PlacedPiece, ...], PlacedPiece, tuple[PlacedPiece, ...]]
] = {}
_ON_TOP_MEMO = 20_000  # stacks remembered by their parts' identity, at most


def on_top_of(under: tuple[PlacedPiece, ...], piece: PlacedPiece) -> tuple[PlacedPiece, ...]:
    """`under` with `piece` laid on it (a minecart on its tile), as one tuple for the same two
    objects: a game's table built at every node of the referee's search (whose tuples it knows
    by identity) then reuses it. Give it pieces the game keeps (cached), not fresh ones."""
    key = (id(under), id(piece))
    hit = _ON_TOP.get(key)
    if hit is not None and hit[0] is under and hit[1] is piece:
        return hit[2]
    stack = (*under, piece)
    if len(_ON_TOP) >= _ON_TOP_MEMO:
        _ON_TOP.clear()
    _ON_TOP[key] = (under, piece, stack)
    return stack


@dataclass(frozen=True)
class TableObservation:
    """Per location name, the pieces lying there (sorted); locations absent from `pieces` are empty.

    `unknown` names locations nobody could see (a hand over them): neither empty nor occupied.
    `on_top` names locations whose pieces seen stand on others they hide (a wagon on its tile):
    what `pieces` lists lies there, and more may lie under it.
    """

    pieces: tuple[tuple[str, tuple[PlacedPiece, ...]], ...] = ()
    unknown: frozenset[str] = field(default_factory=frozenset)
    on_top: frozenset[str] = field(default_factory=frozenset)

    @staticmethod
    def of(
        pieces: Mapping[str, Iterable[PlacedPiece]],
        unknown: Iterable[str] = (),
        on_top: Iterable[str] = (),
    ) -> TableObservation:
        items = []
        for name, ps in pieces.items():
            placed = ps if type(ps) is tuple else tuple(ps)
            if placed:  # one piece: the game's own tuple kept (the referee knows it by identity)
                items.append((name, placed if len(placed) == 1 else tuple(sorted(placed))))
        items.sort(key=_location_name)
        return TableObservation(tuple(items), frozenset(unknown), frozenset(on_top))

    def at(self, name: str) -> tuple[PlacedPiece, ...]:
        for loc, ps in self.pieces:
            if loc == name:
                return ps
        return ()

    def as_dict(self) -> dict[str, tuple[PlacedPiece, ...]]:
        return dict(self.pieces)
