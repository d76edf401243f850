"""Derailed! on a real table: the mat's slots in mm, a marker per card, and what lies where now."""

# The mat, seen from above: the starting column of station cards on the left (west), the railway
# area of four card slots per lane (columns A-D), the destination column on the right (east); lane
# 1 is at the bottom. One mat serves every player count: a game of fewer than 6 uses the lanes
# from 1 up. Rail cards lie along their lane (landscape), so a card's marker, printed upright on
# its face, reads a quarter turn clockwise when the card's top points to the destination column
# and three quarter turns when it points to the start. The deck and the discard pile lie right of
# the destination column; the deck is face down (nothing to read), the discard pile shows its top
# card once a card is discarded face up (laid like a railway card, top towards the destination).
#
# Marker ids: 0-3 are the mat's corners, 4-9 the station cards of companies A-F (two copies each),
# then one per rail card design, shared by its copies.

from __future__ import annotations

import functools

from rules.derailed.cards import CardSet, Facing, default_cards
from rules.derailed.data import COMPANIES
from rules.derailed.grid import LENGTH, slot_index, slot_name
from rules.derailed.state import Derailed
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
)

CORNER_MARKER_MM = 30.0
MARGIN_MM = corner_margin_mm(CORNER_MARKER_MM)  # 46 mm: corner markers clear of the slots
CARD_LONG_MM, CARD_SHORT_MM = 88.0, 63.0  # poker size; laid along the lane: 88 mm along it
GAP_MM = 6.0  # between neighbouring slots of the grid
COLUMN_GAP_MM = 20.0  # between a station column and the railway area
PILES_GAP_MM = 30.0  # between the destination column and the deck and discard slots
CARD_MARKER_MM = 40.0
STATION_MARKER_MM = 40.0
FIRST_STATION_ID = 4
FIRST_CARD_ID = FIRST_STATION_ID + len(COMPANIES)
ROTATION = {Facing.DESTINATION: 1, Facing.START: 3}  # quarter turns clockwise of the marker
DECK = "deck"
DISCARD = "discard"
MAX_LANES = 6


def start_slot(lane: int) -> str:
    """The starting station's slot at the west end of `lane` (from 1)."""
    return f"start-{lane}"


def destination_slot(lane: int) -> str:
    return f"dest-{lane}"


def rail_piece(card_id: str) -> Piece:
    return Piece("rail", card_id)


def station_piece(company: str) -> Piece:
    return Piece("station", company)


@functools.cache
def catalogue() -> Catalogue:
    """Corner ids 0-3; a station marker per company (two cards each); a marker per rail card
    design of the designers' set, printed on each copy. A card turned half round that shows the
    same tracks reads the same (2 rotations), any other card 4."""
    cards = default_cards()
    stations = [
        CatalogueEntry(
            FIRST_STATION_ID + i,
            station_piece(c),
            f"company {c} station",
            STATION_MARKER_MM,
            rotations=1,
            copies=2,
        )
        for i, c in enumerate(COMPANIES)
    ]
    rails = [
        CatalogueEntry(
            FIRST_CARD_ID + i,
            rail_piece(card.id),
            card.label,
            CARD_MARKER_MM,
            rotations=2 if card.symmetric else 4,
            copies=card.copies,
        )
        for i, card in enumerate(cards.cards)
    ]
    return Catalogue("derailed", (*stations, *rails))


def _card(
    name: str, kind: LocationKind, left_mm: float, top_mm: float, *, in_play: bool = True
) -> Location:
    return Location(
        name,
        kind,
        left_mm + CARD_LONG_MM / 2,
        top_mm + CARD_SHORT_MM / 2,
        CARD_LONG_MM,
        CARD_SHORT_MM,
        in_play=in_play,
    )


@functools.cache
def layout(players: int = MAX_LANES) -> Layout:
    """One mat (796 x 500 mm) for 2 to 6 players, with its six lanes: the station slots of the lanes
    `players` uses (from lane 1 at the bottom), the four rail slots of every lane printed on the
    mat, the deck and the discard pile. A game of fewer players leaves the upper lanes empty, but
    they are still on the mat: a card laid there lies "outside of the station lanes" (seed 003,
    Placement Rules), which the camera sees and the referee alerts, not a card nobody sees. Their
    rail slots are not `in_play`: the players' page leaves them out while they are empty."""
    lanes = MAX_LANES
    rail_left = MARGIN_MM + CARD_LONG_MM + COLUMN_GAP_MM
    dest_left = rail_left + LENGTH * CARD_LONG_MM + (LENGTH - 1) * GAP_MM + COLUMN_GAP_MM
    piles_left = dest_left + CARD_LONG_MM + PILES_GAP_MM
    width = piles_left + CARD_LONG_MM + MARGIN_MM
    height = 2 * MARGIN_MM + lanes * CARD_SHORT_MM + (lanes - 1) * GAP_MM

    def top_of(lane: int) -> float:  # lane 1 at the bottom
        return height - MARGIN_MM - lane * CARD_SHORT_MM - (lane - 1) * GAP_MM

    locations: list[Location] = []
    for lane in range(1, lanes + 1):
        y = top_of(lane)
        used = lane <= players
        if used:
            locations.append(_card(start_slot(lane), LocationKind.SLOT, MARGIN_MM, y))
        for col in range(LENGTH):
            name = slot_name((lane - 1) * LENGTH + col)
            x = rail_left + col * (CARD_LONG_MM + GAP_MM)
            locations.append(_card(name, LocationKind.SQUARE, x, y, in_play=used))
        if used:
            locations.append(_card(destination_slot(lane), LocationKind.SLOT, dest_left, y))
    locations.append(_card(DISCARD, LocationKind.SLOT, piles_left, top_of(1)))
    locations.append(_card(DECK, LocationKind.SLOT, piles_left, top_of(2)))
    corners = corner_markers(width, height, CORNER_MARKER_MM)
    return Layout("derailed", width, height, tuple(locations), corners)


def placed(cards: CardSet, tile: int) -> PlacedPiece:
    """A rail card as it lies in its slot, turned the way it was played."""
    return PlacedPiece(rail_piece(cards.card_of(tile).id), ROTATION[CardSet.facing_of(tile)])


def expected_table(state: Derailed) -> dict[str, tuple[PlacedPiece, ...]]:
    """What should lie on the mat now: stations, the top card of each slot, the discard pile's
    face-up card. Hands, the face-down deck and covered cards do not show.

    Unsorted: the referee's search asks it at every node it tries."""
    d = state.d
    cards = state.rules.cards
    pieces: dict[str, tuple[PlacedPiece, ...]] = {}
    for lane, c in enumerate(d.start, start=1):
        pieces[start_slot(lane)] = _station_alone(COMPANIES[c])
    for lane, c in enumerate(d.dest, start=1):
        pieces[destination_slot(lane)] = _station_alone(COMPANIES[c])
    for s, stack in enumerate(d.stacks):
        if stack:
            pieces[slot_name(s)] = _card_alone(cards, stack[-1])
    if d.discard_top >= 0:
        pieces[DISCARD] = _card_alone(cards, 2 * d.discard_top)
    return pieces


def slot_pieces(state: Derailed, slot: str) -> tuple[PlacedPiece, ...]:
    """What `expected_table(state)` has on one location, the railway's slots read alone (the
    referee asks it for every card it tries laying)."""
    s = slot_index(slot, state.rules.players)
    if s is None:
        return expected_table(state).get(slot, ())
    stack = state.d.stacks[s]
    return _card_alone(state.rules.cards, stack[-1]) if stack else ()


@functools.cache
def _station_alone(company: str) -> tuple[PlacedPiece]:
    """A station alone in its slot: one tuple for each, so the referee knows it by identity."""
    return (PlacedPiece(station_piece(company)),)


@functools.cache
def _card_alone(cards: CardSet, tile: int) -> tuple[PlacedPiece]:
    """A rail card alone on top of its slot, turned as played: one tuple for each."""
    return (placed(cards, tile),)
