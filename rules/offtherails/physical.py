"""Off the Rails on a real table: the mat's layout, the printed markers, and what should lie where.

Marker ids: 0-3 are the mat's corner markers; pieces start at 4. Identical pieces share an id
(every straight tile shows the same marker), so the camera tells *what* lies on a square and its
rotation, and the rules know which of the identical pieces it is.
"""

from __future__ import annotations

import functools

from rules.offtherails.actions import track_words
from rules.offtherails.components import (
    BASE_MASK,
    COLOURS,
    Board,
    Die,
    Shape,
    TileKind,
    exits_text,
    load_board,
    load_components,
    rotate_mask,
    rotation_of,
    shape_of,
)
from rules.offtherails.missions import MISSION_TEXT, MISSIONS, Mission
from rules.offtherails.state import CartStatus, OffTheRails
from rules.physical import (
    Catalogue,
    CatalogueEntry,
    Layout,
    Location,
    LocationKind,
    Piece,
    PlacedPiece,
    corner_margin_mm,
    corner_markers,
    on_top_of,
)
from rules.said import Say, same

CORNER_MARKER_MM = 30.0
MINECART_HEIGHT_MM = 30.0  # a minecart's sticker, on its top, above the mat
MARGIN_MM = corner_margin_mm(CORNER_MARKER_MM)  # 46 mm: corner markers clear of squares
SLOT_W_MM, SLOT_H_MM = 63.0, 88.0  # a standard card
REVEAL_SLOT = "reveal"

TILE_MARKER_MM = 30.0
CART_MARKER_MM = 20.0  # 18 mm is at the edge of reliable reading at 720p (docs/vision.md)
TOKEN_MARKER_MM = 24.0
CARD_MARKER_MM = 40.0

# The faces each double-sided tile shows: (kind, face shape).
TILE_FACES = (
    (TileKind.STRAIGHT_T, Shape.STRAIGHT),
    (TileKind.STRAIGHT_T, Shape.T),
    (TileKind.CORNER_T, Shape.CORNER),
    (TileKind.CORNER_T, Shape.T),
    (TileKind.T_CROSS, Shape.T),
    (TileKind.T_CROSS, Shape.CROSS),
)
_FACE_ROTATIONS = {Shape.STRAIGHT: 2, Shape.CORNER: 4, Shape.T: 4, Shape.CROSS: 1}


def tile_piece(kind: TileKind, face: Shape) -> Piece:
    return Piece("tile", kind.value, face.value)


def cart_piece(colour: str, die: str) -> Piece:
    return Piece("minecart", f"{colour}-{die}")


def chasm_piece(colour: str) -> Piece:
    return Piece("chasm_token", colour)


def facing(say: Say = same) -> tuple[str, ...]:
    """A minecart's heading as players say it, for each quarter turn."""
    return (say("facing north"), say("facing east"), say("facing south"), say("facing west"))


def track_turns(face: Shape, say: Say = same) -> tuple[str, ...]:
    """A face's rotations as players say them: ("joining north and east", ...)."""
    turns = []
    for r in range(_FACE_ROTATIONS[face]):
        _, leads = track_words(exits_text(rotate_mask(BASE_MASK[face], r)), say)
        turns.append(leads.removeprefix(", "))
    return tuple(turns)


def deposit_label(colour: str, number: int, say: Say = same) -> str:
    """A deposit card as the table names it: "deposit card red 3"."""
    return say("deposit card {colour} {number}").format(colour=say(colour), number=number)


def mission_label(mission: Mission, say: Say = same) -> str:
    """A mission card by what it asks: "mission: Cause a head-on collision."."""
    return say("mission: {text}").format(text=say(MISSION_TEXT[mission]))


@functools.cache
def catalogue() -> Catalogue:
    """Every marker Off the Rails prints, ids from 4 up in a fixed order."""
    entries: list[CatalogueEntry] = []

    def add(
        piece: Piece,
        label: str,
        size: float,
        rotations: int = 4,
        copies: int = 1,
        turns: tuple[str, ...] = (),
    ) -> None:
        magnetic = piece.kind == "minecart"  # each minecart carries a magnet for the sensor board
        height = MINECART_HEIGHT_MM if piece.kind == "minecart" else 0.0
        entries.append(
            CatalogueEntry(
                4 + len(entries), piece, label, size, rotations, copies, magnetic, height, turns
            )
        )

    tiles = load_components().tiles
    for kind, face in TILE_FACES:  # each tile has a sticker on both faces
        add(
            tile_piece(kind, face),
            f"{face.value} track ({kind.value.replace('_', '/')} tile)",
            TILE_MARKER_MM,
            _FACE_ROTATIONS[face],
            tiles[kind],
            track_turns(face),
        )
    for colour in COLOURS:
        for die in Die:
            add(cart_piece(colour.value, die.value), f"{colour.value} minecart, {die.value} die",
                CART_MARKER_MM, turns=facing())  # fmt: skip
    for colour in COLOURS:
        tokens = load_components().chasm_tokens_per_colour
        add(chasm_piece(colour.value), f"{colour.value} chasm token", TOKEN_MARKER_MM, 1, tokens)
    for colour in COLOURS:
        for number in range(1, 9):
            add(Piece("deposit_card", f"{colour.value}-{number}"),
                deposit_label(colour.value, number), CARD_MARKER_MM, 1)  # fmt: skip
    add(Piece("deposit_card", "chasm"), "the Chasm card", CARD_MARKER_MM, 1)
    for mission in MISSIONS:
        add(Piece("mission_card", mission.value), mission_label(mission), CARD_MARKER_MM, 1)
    return Catalogue("offtherails", tuple(entries))


def _square_centre(board: Board, sq: int) -> tuple[float, float]:
    row, col = divmod(sq, board.columns)
    x = MARGIN_MM + (col + 0.5) * board.square_mm
    y = MARGIN_MM + (board.rows - 1 - row + 0.5) * board.square_mm  # north at the top
    return x, y


@functools.cache
def layout(board_name: str = "standard") -> Layout:
    """The mat: the board's squares (north at the top), a card reveal slot east of the board."""
    board = load_board(board_name)
    size = board.square_mm
    grid_w, grid_h = board.columns * size, board.rows * size
    width = MARGIN_MM + grid_w + MARGIN_MM / 2 + SLOT_W_MM + MARGIN_MM
    height = MARGIN_MM + grid_h + MARGIN_MM
    locations = []
    for sq, name in enumerate(board.names):
        x, y = _square_centre(board, sq)
        row, col = divmod(sq, board.columns)
        sensor = (board.rows - 1 - row, col)  # sensor rows counted from the north edge
        locations.append(Location(name, LocationKind.SQUARE, x, y, size, size, sensor))
    slot_x = MARGIN_MM + grid_w + MARGIN_MM / 2 + SLOT_W_MM / 2
    locations.append(
        Location(REVEAL_SLOT, LocationKind.SLOT, slot_x, height / 2, SLOT_W_MM, SLOT_H_MM)
    )
    corners = corner_markers(width, height, CORNER_MARKER_MM)
    return Layout(f"offtherails-{board.name}", width, height, tuple(locations), corners)


@functools.cache
def placed_tile(mask: int, kind: TileKind) -> PlacedPiece:
    """A tile with these exits as it lies: the face up and its quarter turns."""
    return PlacedPiece(tile_piece(kind, shape_of(mask)), rotation_of(mask))


@functools.cache
def tile_alone(mask: int, kind: TileKind) -> tuple[PlacedPiece]:
    """A tile alone on its square: one tuple for each, so the referee knows it by identity."""
    return (placed_tile(mask, kind),)


@functools.cache
def _placed_chasm(colour: str) -> PlacedPiece:
    return PlacedPiece(chasm_piece(colour))


@functools.cache
def _placed_cart(colour: str, die: str, heading: int) -> PlacedPiece:
    """A minecart as it stands, heading one way (one object each: see `on_top_of`)."""
    return PlacedPiece(cart_piece(colour, die), heading)


def expected_table(state: OffTheRails) -> dict[str, tuple[PlacedPiece, ...]]:
    """What should physically lie on each square now: tiles, minecarts, chasm tokens.

    Jewels carry no markers (players see them on their phones), nor does a speed die.

    Unsorted: the referee's search asks it at every node it tries."""
    names = state.board.names
    pieces: dict[str, tuple[PlacedPiece, ...]] = {}
    for square, tile in enumerate(state.tiles()):
        if tile is not None:
            pieces[names[square]] = tile_alone(tile.mask, tile.kind)
    for square, colour in enumerate(state.chasms()):
        if colour is not None:
            here = pieces.get(names[square], ())
            pieces[names[square]] = on_top_of(here, _placed_chasm(colour.value))
    for cart in state.carts():
        if cart.status is CartStatus.ON_BOARD:
            die = cart.die.value if cart.die is not None else Die.WHITE.value  # solo: white
            here = pieces.get(names[cart.square], ())
            cart_placed = _placed_cart(cart.colour.value, die, int(cart.heading))
            pieces[names[cart.square]] = on_top_of(here, cart_placed)
    if state.options.get("deposit_deck") == "physical" and state.revealed:
        pieces[REVEAL_SLOT] = (PlacedPiece(Piece("deposit_card", state.revealed)),)
    return pieces
