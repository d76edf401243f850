"""A game-free demo board and sticker set: 12x12 grid of 40 mm squares, four card slots, 60 ids."""

from __future__ import annotations

from vision.drawing import PlacedMarker
from vision.geometry import BoardGeometry, CornerMark, Rect, Sticker

SQUARE_MM = 40.0
GRID = 12
CORNER_IDS = (0, 1, 2, 3)
TILE_IDS = tuple(range(4, 44))
CART_IDS = tuple(range(44, 56))
CARD_IDS = tuple(range(56, 64))
TILE_MARKER_MM = 24.0
CART_MARKER_MM = 20.0
CARD_MARKER_MM = 30.0


def square_name(row: int, col: int) -> str:
    """The rules' naming (docs/scenarios.md): column letter A-L from the west, row number 1-12
    from the south, so `row` (counted from the top) 0 is row 12."""
    return f"{'ABCDEFGHIJKL'[col]}{GRID - row}"


def demo_board() -> BoardGeometry:
    """640 x 580 mm mat: the grid from (50, 50) mm, card slots to its right, corner markers."""
    squares = tuple(
        Rect(
            square_name(r, c),
            50 + SQUARE_MM * (c + 0.5),
            50 + SQUARE_MM * (r + 0.5),
            SQUARE_MM,
            SQUARE_MM,
        )
        for r in range(GRID)
        for c in range(GRID)
    )
    slots = tuple(Rect(f"slot{i + 1}", 580.0, 115.0 + 115.0 * i, 66.0, 91.0) for i in range(4))
    width, height, inset, size = 640.0, 580.0, 24.0, 30.0
    corners = (
        CornerMark(CORNER_IDS[0], inset, inset, size),
        CornerMark(CORNER_IDS[1], width - inset, inset, size),
        CornerMark(CORNER_IDS[2], width - inset, height - inset, size),
        CornerMark(CORNER_IDS[3], inset, height - inset, size),
    )
    return BoardGeometry("demo", width, height, squares + slots, corners)


def demo_stickers(cart_height_mm: float = 0.0) -> tuple[Sticker, ...]:
    """Every marker of the demo set: 40 tiles, 12 minecarts (their stickers `cart_height_mm`
    above the mat), 8 cards."""
    return (
        tuple(Sticker(i, f"tile {i}", TILE_MARKER_MM) for i in TILE_IDS)
        + tuple(Sticker(i, f"cart {i}", CART_MARKER_MM, height_mm=cart_height_mm) for i in CART_IDS)
        + tuple(Sticker(i, f"card {i}", CARD_MARKER_MM) for i in CARD_IDS)
    )


def demo_piece(
    marker_id: int, rotation: int = 0, skew_deg: float = 0.0, cart_height_mm: float = 0.0
) -> PlacedMarker:
    """How a demo piece looks: a tile, a dark minecart block (a box `cart_height_mm` tall), or a
    white card, by id range."""
    if marker_id in CART_IDS:
        return PlacedMarker(
            marker_id,
            rotation,
            CART_MARKER_MM,
            27.0,
            (60, 60, 70),
            2.0,
            2.0,
            skew_deg,
            height_mm=cart_height_mm,
        )
    if marker_id in CARD_IDS:
        return PlacedMarker(
            marker_id, rotation, CARD_MARKER_MM, 60.0, (245, 245, 245), skew_deg=skew_deg
        )
    return PlacedMarker(
        marker_id, rotation, TILE_MARKER_MM, 37.0, (170, 140, 110), skew_deg=skew_deg
    )
