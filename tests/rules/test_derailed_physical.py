"""Derailed! on the table: mat geometry, the card markers, and what should lie where."""

from __future__ import annotations

import random

import pytest

import rules
from rules.core import BadOptions, Visibility
from rules.derailed import DERAILED, Derailed
from rules.derailed import actions as act
from rules.derailed.cards import Facing, default_cards
from rules.derailed.data import Column
from rules.derailed.physical import (
    DECK,
    DISCARD,
    catalogue,
    destination_slot,
    expected_table,
    layout,
    rail_piece,
    slot_pieces,
    start_slot,
    station_piece,
)
from rules.physical import CORNER_EDGE_MM, PlacedPiece, TableObservation
from rules.playout import Policy, choose


@pytest.mark.parametrize("players", range(2, 7))
def test_the_mat_holds_every_slot_inside_it_and_corners_clear_of_the_edge(players: int) -> None:
    mat = layout(players)
    names = [loc.name for loc in mat.locations]
    assert len(names) == len(set(names)) == 4 * 6 + 2 * players + 2  # rail slots of all six lanes
    for loc in mat.locations:
        assert loc.w_mm / 2 <= loc.x_mm <= mat.width_mm - loc.w_mm / 2, loc.name
        assert loc.h_mm / 2 <= loc.y_mm <= mat.height_mm - loc.h_mm / 2, loc.name
        assert (loc.w_mm, loc.h_mm) == (88.0, 63.0)  # a poker card along its lane
    assert [c.marker_id for c in mat.corner_markers] == [0, 1, 2, 3]
    for c in mat.corner_markers:
        edge = CORNER_EDGE_MM + c.size_mm / 6  # the cut edge, the white quiet zone, the code
        assert min(c.x_mm, mat.width_mm - c.x_mm) - c.size_mm / 2 == pytest.approx(edge)
        assert min(c.y_mm, mat.height_mm - c.y_mm) - c.size_mm / 2 == pytest.approx(edge)
        for loc in mat.locations:  # no slot lies over a corner marker
            apart_x = abs(loc.x_mm - c.x_mm) >= (loc.w_mm + c.size_mm) / 2
            apart_y = abs(loc.y_mm - c.y_mm) >= (loc.h_mm + c.size_mm) / 2
            assert apart_x or apart_y, (loc.name, c.marker_id)
    assert {DECK, DISCARD} <= set(names)
    for lane in range(1, players + 1):
        row = [mat.location(n) for n in (start_slot(lane), *(f"{c}{lane}" for c in "ABCD"),
                                         destination_slot(lane))]  # fmt: skip
        assert len({loc.y_mm for loc in row}) == 1  # one lane, one row
        assert [loc.x_mm for loc in row] == sorted(loc.x_mm for loc in row)  # west to east
    if players > 1:  # lane 1 at the bottom
        assert mat.location("A1").y_mm > mat.location("A2").y_mm
    assert "E1" not in names and "A7" not in names
    # seed 003, Placement Rules: 'cards are not allowed outside of the station lanes': the mat's
    # unused lanes are still seen (a card laid there is alerted), only their stations are absent
    assert {f"{c}6" for c in "ABCD"} <= set(names)
    assert f"start-{players + 1}" not in names and f"dest-{players + 1}" not in names
    assert (mat.width_mm, mat.height_mm) == (796.0, 500.0)  # one mat for every player count
    assert mat.corner_markers == layout(6).corner_markers


@pytest.mark.parametrize("players", range(2, 7))
def test_no_two_locations_overlap(players: int) -> None:
    locs = layout(players).locations
    for i, a in enumerate(locs):
        for b in locs[i + 1 :]:
            apart_x = abs(a.x_mm - b.x_mm) >= (a.w_mm + b.w_mm) / 2 - 1e-9
            apart_y = abs(a.y_mm - b.y_mm) >= (a.h_mm + b.h_mm) / 2 - 1e-9
            assert apart_x or apart_y, (a.name, b.name)


def test_the_registry_knows_the_physical_form() -> None:
    for players in range(2, 7):
        assert DERAILED.layout({"players": players}) == layout(players)
    assert DERAILED.catalogue() is catalogue()
    state = rules.new_game("derailed", {"players": 2}, 1)
    assert isinstance(state, Derailed)
    assert DERAILED.expected_table(state) == expected_table(state)
    assert rules.game_named("derailed") is DERAILED


def test_one_marker_per_card_design_and_per_company_station() -> None:
    entries = catalogue().entries
    ids = [e.marker_id for e in entries]
    cards = default_cards()
    assert ids == list(range(4, 4 + 6 + len(cards.cards))) and max(ids) < 100
    rails = [e for e in entries if e.piece.kind == "rail"]
    assert sum(e.copies for e in rails) == 90
    assert {e.piece.identity for e in rails} == {c.id for c in cards.cards}
    stations = [e for e in entries if e.piece.kind == "station"]
    assert [e.piece.identity for e in stations] == list("ABCDEF")
    assert all(e.copies == 2 and e.rotations == 1 for e in stations)  # 12 station cards
    by_id = {c.id: c for c in cards.cards}
    for e in rails:
        assert e.rotations == (2 if by_id[e.piece.identity].symmetric else 4), e.piece
    assert catalogue().by_piece()[rail_piece("junction-TB")].rotations == 2
    assert catalogue().by_piece()[rail_piece("junction-TR")].rotations == 4
    assert catalogue().by_piece()[rail_piece("bridge")].rotations == 2


@pytest.mark.parametrize("players", range(2, 7))
def test_expected_table_shows_stations_top_cards_and_the_face_up_discard(players: int) -> None:
    state = rules.new_game("derailed", {"players": players}, players)
    assert isinstance(state, Derailed)
    rng = random.Random(players)
    known = catalogue().by_piece()
    names = {loc.name for loc in layout(players).locations}
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
        seen = TableObservation.of(expected_table(state)).as_dict()
        j = state.to_json()
        want = {}
        for lane, c in enumerate(j["stations"]["start"], start=1):
            want[start_slot(lane)] = (PlacedPiece(station_piece(c)),)
        for lane, c in enumerate(j["stations"]["destination"], start=1):
            want[destination_slot(lane)] = (PlacedPiece(station_piece(c)),)
        for slot, stack in j["railway"].items():
            turn = 1 if stack[-1]["facing"] == "destination" else 3
            want[slot] = (PlacedPiece(rail_piece(stack[-1]["card"]), turn),)
        if j["discard_top"] is not None:
            want[DISCARD] = (PlacedPiece(rail_piece(j["discard_top"]), 1),)
        assert seen == want
        for name, pieces in seen.items():
            assert name in names, name
            assert all(p.piece in known for p in pieces)


def test_one_slot_read_alone_is_what_the_expected_table_has_there() -> None:
    state = rules.new_game("derailed", {"players": 3}, 5)
    assert isinstance(state, Derailed)
    rng = random.Random(5)
    names = sorted(loc.name for loc in layout(3).locations)
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
        table = expected_table(state)
        for name in names:
            assert slot_pieces(state, name) == table.get(name, ()), name


def test_a_card_turned_round_reads_three_quarter_turns() -> None:
    state = rules.new_game("derailed", {"players": 2, "hands": "table"}, 1)
    assert isinstance(state, Derailed)
    for column, company in (("start", "A"), ("start", "B"), ("destination", "B"),
                            ("destination", "A")):  # fmt: skip
        state.apply(act.LayStation(Column(column), company))
    state.apply({"type": "play", "slot": "A1", "card": "junction-TR", "facing": "start"})
    state.apply({"type": "play", "slot": "A2", "card": "junction-RB", "facing": "destination"})
    table = TableObservation.of(expected_table(state))
    assert table.at("A1") == (PlacedPiece(rail_piece("junction-TR"), 3),)
    assert table.at("A2") == (PlacedPiece(rail_piece("junction-RB"), 1),)
    # a symmetric card is written facing the destination, so it reads one way only
    state.apply({"type": "play", "slot": "A1", "card": "junction-TB", "facing": "start"})
    assert state.to_json()["railway"]["A1"][-1] == {"card": "junction-TB", "facing": "destination"}


def test_what_the_table_shows_and_what_needs_a_phone() -> None:
    shown = {act.Play, act.Discard, act.LayStation}
    proven = {act.KeepHand}  # by the next seat's move, as a turn's end (docs/rules/derailed.md)
    for cls in (*act.CHANCE_CLASSES, *act.PLAYER_CLASSES):
        want = (
            Visibility.TABLE
            if cls in shown
            else Visibility.IMPLIED
            if cls in proven
            else Visibility.INPUT
        )
        assert cls.VISIBILITY is want, cls.TYPE


def test_options_are_checked() -> None:
    with pytest.raises(BadOptions, match="players"):
        rules.new_game("derailed", {"players": 7}, 1)
    with pytest.raises(BadOptions, match="players"):
        rules.new_game("derailed", {"players": 1}, 1)
    with pytest.raises(BadOptions, match="hands"):
        rules.new_game("derailed", {"hands": "secret"}, 1)
    with pytest.raises(BadOptions, match="arrival"):
        rules.new_game("derailed", {"arrival": "never"}, 1)
    with pytest.raises(BadOptions, match="exchange"):
        rules.new_game("derailed", {"exchange": 2}, 1)


def test_a_refused_play_names_its_slot() -> None:
    state = rules.new_game("derailed", {"players": 3, "hands": "table"}, 1)
    for column in ("start", "destination"):
        for company in "ABC" if column == "start" else "BCA":
            state.apply(act.LayStation(Column(column), company))
    for slot in ("B1", "A2", "E1", "A4", "A1.5", "Z9"):
        play = act.Play(slot, "junction-TB", Facing.DESTINATION)
        assert not state.is_legal(play)
        assert slot in str(state.explain_illegal(play)).split(":", 1)[1], slot
