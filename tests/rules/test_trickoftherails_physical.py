"""Trick of the Rails on the table: mat geometry, the card markers, and what should lie where."""

from __future__ import annotations

import random

import pytest

import rules
from rules.core import BadOptions, Visibility
from rules.physical import CORNER_EDGE_MM, TableObservation
from rules.playout import Policy, choose
from rules.trickoftherails import TRICK_OF_THE_RAILS, TrickOfTheRails
from rules.trickoftherails import actions as act
from rules.trickoftherails.cards import CARDS, FULL_SET, Company
from rules.trickoftherails.physical import (
    catalogue,
    expected_table,
    lane_slot,
    layout,
    rail_slot,
    share_area,
    table_when_played,
    trick_slot,
)


def test_the_mat_holds_every_slot_inside_it_and_corners_clear_of_the_edge() -> None:
    mat = layout()
    names = [loc.name for loc in mat.locations]
    assert len(names) == len(set(names))
    for loc in mat.locations:
        assert loc.w_mm / 2 <= loc.x_mm <= mat.width_mm - loc.w_mm / 2, loc.name
        assert loc.h_mm / 2 <= loc.y_mm <= mat.height_mm - loc.h_mm / 2, loc.name
    assert [c.marker_id for c in mat.corner_markers] == [0, 1, 2, 3]
    for c in mat.corner_markers:
        edge = CORNER_EDGE_MM + c.size_mm / 6  # the cut edge, the white quiet zone, the code
        assert min(c.x_mm, mat.width_mm - c.x_mm) - c.size_mm / 2 == pytest.approx(edge)
        assert min(c.y_mm, mat.height_mm - c.y_mm) - c.size_mm / 2 == pytest.approx(edge)
    for seat in range(5):
        assert trick_slot(seat) in names and share_area(seat) in names
    assert lane_slot(15) in names and rail_slot(Company.PRR, -13) in names


def test_no_two_locations_overlap() -> None:
    locs = layout().locations
    for i, a in enumerate(locs):
        for b in locs[i + 1 :]:
            apart_x = abs(a.x_mm - b.x_mm) >= (a.w_mm + b.w_mm) / 2 - 1e-9
            apart_y = abs(a.y_mm - b.y_mm) >= (a.h_mm + b.h_mm) / 2 - 1e-9
            assert apart_x or apart_y, (a.name, b.name)


def test_the_registry_knows_the_physical_form() -> None:
    assert TRICK_OF_THE_RAILS.layout({"players": 3}) == layout(3)
    three = {loc.name for loc in layout(3).locations}
    assert "seat.2.shares" in three and not any(n.startswith(("seat.3.", "seat.4.")) for n in three)
    assert layout(3).width_mm == layout().width_mm  # one mat: its markers where they are
    assert TRICK_OF_THE_RAILS.catalogue() is catalogue()
    state = rules.new_game("trickoftherails", {"players": 3}, 1)
    assert isinstance(state, TrickOfTheRails)
    assert TRICK_OF_THE_RAILS.expected_table(state) == expected_table(state)


def test_one_marker_per_card_and_the_reservations_share_one() -> None:
    entries = catalogue().entries
    ids = [e.marker_id for e in entries]
    assert ids == list(range(4, 4 + len(CARDS))) and max(ids) < 100
    assert sum(e.copies for e in entries) == len(FULL_SET) == 71
    assert {e.piece.identity for e in entries} == set(CARDS)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_expected_table_shows_every_card_on_the_mat_once(players: int) -> None:
    state = rules.new_game("trickoftherails", {"players": players}, players)
    assert isinstance(state, TrickOfTheRails)
    rng = random.Random(players)
    known = catalogue().by_piece()
    names = {loc.name for loc in layout().locations}
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
        seen = TableObservation.of(expected_table(state))
        on_mat = [p.piece.identity for _, ps in seen.pieces for p in ps]
        d = state.d
        expected = [*d.lane, *(c for r in d.railways for c in r), *(x for x in d.locomotives if x),
                    *(c for _, c in d.trick), *(c for s in d.shares for c in s)]  # fmt: skip
        assert sorted(on_mat) == sorted(expected)
        for name, pieces in seen.pieces:
            assert name in names, name
            assert all(p.piece in known for p in pieces)


def test_what_the_table_shows_and_what_needs_a_phone() -> None:
    shown = {act.Play, act.PlaceCity, act.PlaceLocomotive, act.LayTrack, act.LayLane}
    shown |= {act.StartRailway}
    for cls in (*act.CHANCE_CLASSES, *act.PLAYER_CLASSES):
        want = Visibility.TABLE if cls in shown else Visibility.INPUT
        assert cls.VISIBILITY is want, cls.TYPE


def test_options_are_checked() -> None:
    with pytest.raises(BadOptions, match="teams"):
        rules.new_game("trickoftherails", {"players": 3, "teams": True}, 1)
    with pytest.raises(BadOptions, match="players"):
        rules.new_game("trickoftherails", {"players": 6}, 1)
    with pytest.raises(BadOptions, match="hands"):
        rules.new_game("trickoftherails", {"hands": "secret"}, 1)
    with pytest.raises(BadOptions, match="revoke_penalty"):
        rules.new_game("trickoftherails", {"revoke_penalty": -1}, 1)


def test_the_last_card_of_a_share_trick_lands_before_it_resolves() -> None:
    state = rules.new_game("trickoftherails", {"players": 3}, 4)
    assert isinstance(state, TrickOfTheRails)
    rng = random.Random(4)
    while state.d.phase.value != "play":
        state.apply(choose(state, rng))
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    last = state.legal_actions()[0]
    assert isinstance(last, act.Play)
    landed = TableObservation.of(table_when_played(state, last.card))
    assert [p.piece.identity for p in landed.at(trick_slot(2))] == [last.card]
    assert len([n for n, _ in landed.pieces if n.endswith(".trick")]) == 3
    state.apply(last)  # a share trick: the cards go to the share areas at once
    after = TableObservation.of(expected_table(state))
    assert not [n for n, _ in after.pieces if n.endswith(".trick")]
    assert after.at(share_area(0)) and after.at(share_area(1)) and after.at(share_area(2))
    fresh = rules.new_game("trickoftherails", {"players": 3}, 4)
    assert isinstance(fresh, TrickOfTheRails)
    with pytest.raises(ValueError, match="no seat"):
        table_when_played(fresh, last.card)
