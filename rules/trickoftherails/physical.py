"""Trick of the Rails on a real table: the mat's card slots in mm, card markers, what lies where.

One mat serves 3 to 5 players. Top to bottom: the share areas and trick slots of seats 3 and 4,
the trick lane (16 slots, as many as the 3-player lane needs), the five railways (a locomotive slot,
then card slots from -13 to +13 around the station card's home slot 0), and the share areas and
trick slots of seats 0, 1 and 2. Cards in the lane, the railways and the share areas lie shingled at
a 36 mm pitch, each card on top of its left neighbour (a card added at a railway's left end is slid
under the leftmost card), so every card shows the left 36 mm of its face, where its marker is.
Marker ids: 0-3 are the mat's corners; cards start at 4. The three reservation cards share one id.
"""

from __future__ import annotations

import functools

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
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    RESERVATION,
    RESERVATION_COPIES,
    Company,
    card_label,
)
from rules.trickoftherails.state import TrickOfTheRails

GAP_MM = 20.0
CORNER_MARKER_MM = 30.0
MARGIN_MM = corner_margin_mm(CORNER_MARKER_MM)  # 46 mm: corner markers clear of squares
CARD_W_MM, CARD_H_MM = 63.0, 88.0  # a standard card, portrait
PITCH_MM = 36.0  # shingled cards: the strip of each card left showing
CARD_MARKER_MM = 24.0  # fits the 36 mm strip with its white border
LANE_SLOTS = 16
RAIL_REACH = 13  # a railway holds at most 14 cards: station, 10 numbers, 3 cities
SHARE_SLOTS = 8  # the most shares a seat ends with (3 players)
SEATS_BOTTOM = (0, 1, 2)
SEATS_TOP = (3, 4)
MAX_SEATS = 5


def card_piece(card_id: str) -> Piece:
    return Piece("card", card_id)


def lane_slot(position: int) -> str:
    return f"lane.{position}"


def rail_slot(company: Company, position: int) -> str:
    """A railway card slot: position 0 is where the station card starts, negative to its left."""
    return f"rail.{company.value}.{position}"


def locomotive_slot(company: Company) -> str:
    return f"loco.{company.value}"


def trick_slot(seat: int) -> str:
    return f"seat.{seat}.trick"


def share_area(seat: int) -> str:
    return f"seat.{seat}.shares"


@functools.cache
def catalogue() -> Catalogue:
    """One marker per card, ids from 4 in card order; the reservation cards share one."""
    entries = [
        CatalogueEntry(
            4 + i,
            card_piece(card_id),
            card_label(CARDS[card_id]),
            CARD_MARKER_MM,
            rotations=1,  # which way up a card lies never matters to the rules
            copies=RESERVATION_COPIES if card_id == RESERVATION else 1,
        )
        for i, card_id in enumerate(CARDS)
    ]
    return Catalogue("trickoftherails", tuple(entries))


def _strip(name: str, left_mm: float, top_mm: float) -> Location:
    """The visible left strip of a shingled card whose face starts at (left, top)."""
    return Location(name, LocationKind.SLOT, left_mm + PITCH_MM / 2, top_mm + CARD_H_MM / 2,
                    PITCH_MM, CARD_H_MM)  # fmt: skip


def _card(name: str, left_mm: float, top_mm: float) -> Location:
    return Location(name, LocationKind.SLOT, left_mm + CARD_W_MM / 2, top_mm + CARD_H_MM / 2,
                    CARD_W_MM, CARD_H_MM)  # fmt: skip


SEAT_W_MM = CARD_W_MM + GAP_MM / 2 + (SHARE_SLOTS - 1) * PITCH_MM + CARD_W_MM + GAP_MM


def _seat(seat: int, left_mm: float, top_mm: float) -> list[Location]:
    shares_left = left_mm + CARD_W_MM + GAP_MM / 2
    shares_w = (SHARE_SLOTS - 1) * PITCH_MM + CARD_W_MM
    return [
        _card(trick_slot(seat), left_mm, top_mm),
        Location(
            share_area(seat),
            LocationKind.SLOT,
            shares_left + shares_w / 2,
            top_mm + CARD_H_MM / 2,
            shares_w,
            CARD_H_MM,
        ),
    ]


@functools.cache
def layout(players: int = len(SEATS_BOTTOM) + len(SEATS_TOP)) -> Layout:
    """The mat (about 1.3 m by 0.9 m): seat areas, trick lane, five railways, corner markers; the
    seat areas of the seats playing (a mat for five played by three shows three)."""
    rail_w = CARD_W_MM + GAP_MM + 2 * RAIL_REACH * PITCH_MM + CARD_W_MM
    seats_w = len(SEATS_BOTTOM) * SEAT_W_MM
    width = 2 * MARGIN_MM + max(rail_w, seats_w)
    locations: list[Location] = []
    y = MARGIN_MM
    for k, seat in enumerate(SEATS_TOP):
        if seat < players:
            locations += _seat(seat, MARGIN_MM + k * SEAT_W_MM, y)
    y += CARD_H_MM + GAP_MM
    for pos in range(LANE_SLOTS):
        locations.append(_strip(lane_slot(pos), MARGIN_MM + pos * PITCH_MM, y))
    y += CARD_H_MM + GAP_MM
    home = MARGIN_MM + CARD_W_MM + GAP_MM + RAIL_REACH * PITCH_MM  # slot 0's left edge
    for company in COMPANIES:
        locations.append(_card(locomotive_slot(company), MARGIN_MM, y))
        for pos in range(-RAIL_REACH, RAIL_REACH + 1):
            locations.append(_strip(rail_slot(company, pos), home + pos * PITCH_MM, y))
        y += CARD_H_MM + GAP_MM / 2
    y += GAP_MM / 2
    for k, seat in enumerate(SEATS_BOTTOM):
        if seat < players:
            locations += _seat(seat, MARGIN_MM + k * SEAT_W_MM, y)
    height = y + CARD_H_MM + MARGIN_MM
    corners = corner_markers(width, height, CORNER_MARKER_MM)
    return Layout("trickoftherails", width, height, tuple(locations), corners)


def expected_table(state: TrickOfTheRails) -> dict[str, tuple[PlacedPiece, ...]]:
    """What should lie on the mat now. Hands, the undealt deck and removed cards are off the mat.

    Unsorted: the referee's search asks it at every node it tries."""
    d = state.d
    pieces: dict[str, tuple[PlacedPiece, ...]] = {}
    for i, card_id in enumerate(d.lane):
        pieces[lane_slot(d.lane_taken + i)] = _card_alone(card_id)
    for company, rail, left, loco in zip(
        COMPANIES, d.railways, d.left_added, d.locomotives, strict=True
    ):
        for i, card_id in enumerate(rail):
            pieces[rail_slot(company, i - left)] = _card_alone(card_id)
        if loco is not None:
            pieces[locomotive_slot(company)] = _card_alone(loco)
    for seat, card_id in d.trick:
        pieces[trick_slot(seat)] = _card_alone(card_id)
    for seat, shares in enumerate(d.shares):
        if shares:
            pieces[share_area(seat)] = _cards_together(shares)
    return pieces


@functools.cache
def _card_alone(card_id: str) -> tuple[PlacedPiece]:
    """A card alone in its slot: one tuple for each, so the referee knows it by identity."""
    return (PlacedPiece(card_piece(card_id)),)


@functools.lru_cache(maxsize=4096)
def _cards_together(card_ids: tuple[str, ...]) -> tuple[PlacedPiece, ...]:
    """Cards lying together in a share area: one tuple for each set, known by identity too."""
    return tuple(PlacedPiece(card_piece(c)) for c in card_ids)


def table_when_played(state: TrickOfTheRails, card_id: str) -> dict[str, tuple[PlacedPiece, ...]]:
    """The mat the moment `card_id` lands in the trick slot of the seat to play, before anything
    resolves: the last card of a share trick lands before the cards move to the share areas, so a
    referee matches a play against this, and then sees the players carry out the resolution
    (`expected_table` after the play)."""
    seat = state.current_player
    if seat is None or seat < 0:
        raise ValueError(f"no seat is to play a card now (phase {state.d.phase})")
    pieces = expected_table(state)
    pieces[trick_slot(seat)] = _card_alone(card_id)
    return pieces
