"""The mine-wagon race on the table: mat geometry, printed markers, and what should lie where."""

from __future__ import annotations

import dataclasses
import random

import rules
from rules.core import Visibility
from rules.minewagons import MineWagons, physical
from rules.minewagons.components import Colour, Shape, shape_exits
from rules.physical import LocationKind, PlacedPiece, TableObservation
from rules.playout import Policy, choose


def test_the_mat_holds_the_board_the_starting_areas_and_four_corners() -> None:
    for players, areas in ((2, {"red", "blue"}), (3, {"red", "blue", "yellow"}), (4, None)):
        mat = physical.layout({"players": players})
        squares = [loc for loc in mat.locations if loc.kind is LocationKind.SQUARE]
        slots = [loc for loc in mat.locations if loc.kind is LocationKind.SLOT]
        assert len(squares) == 49 and len({s.name for s in squares}) == 49
        assert {s.sensor for s in squares} == {(r, c) for r in range(7) for c in range(7)}
        want = areas or {"red", "blue", "yellow", "white"}
        assert {s.name for s in slots} == {f"start-{c}" for c in want}
        for loc in mat.locations:
            assert loc.w_mm / 2 <= loc.x_mm <= mat.width_mm - loc.w_mm / 2
            assert loc.h_mm / 2 <= loc.y_mm <= mat.height_mm - loc.h_mm / 2
        assert [c.marker_id for c in mat.corner_markers] == [0, 1, 2, 3]
        for c in mat.corner_markers:
            assert min(c.x_mm, c.y_mm, mat.width_mm - c.x_mm, mat.height_mm - c.y_mm) == (
                c.size_mm / 2 + 10
            )
    mat = physical.layout({"players": 2})
    a1, a7, g1 = mat.location("A1"), mat.location("A7"), mat.location("G1")
    assert a7.y_mm < a1.y_mm and g1.x_mm > a1.x_mm  # north up, east right
    assert mat.location("start-red").y_mm > a1.y_mm  # red starts beyond the south edge
    assert physical.layout() == physical.layout({"players": 4})


def test_the_catalogue_prints_every_piece_once_per_kind() -> None:
    cat = physical.catalogue()
    ids = [e.marker_id for e in cat.entries]
    assert ids == list(range(4, 4 + len(ids))) and max(ids) < 100
    by_piece = cat.by_piece()
    assert by_piece[physical.tile_piece(Colour.RED, Shape.I)].rotations == 2
    assert by_piece[physical.tile_piece(Colour.GREEN, Shape.T)].rotations == 4
    tiles = sum(e.copies for e in cat.entries if e.piece.kind == "tile" and not e.piece.face)
    assert tiles == 48  # "48 tiles (platforms)"
    wagons = {e.piece.identity: e.copies for e in cat.entries if e.piece.kind == "wagon"}
    assert wagons == {"red": 4, "blue": 4, "yellow": 3, "white": 3}
    if "magnetic" in {f.name for f in dataclasses.fields(type(cat.entries[0]))}:
        magnetic = {e.piece.kind for e in cat.entries if getattr(e, "magnetic", False)}
        assert magnetic == {"wagon", "rock"}


def _race(players: int, seed: int) -> MineWagons:
    state = rules.new_game("minewagons", {"players": players}, seed)
    assert isinstance(state, MineWagons)
    return state


def test_the_expected_table_after_the_setup() -> None:
    state = _race(2, 3)
    rng = random.Random(3)
    while state.to_json()["phase"] != "play":
        state.apply(choose(state, rng))
    table = TableObservation.of(physical.expected_table(state))
    data = state.to_json()
    rock = PlacedPiece(physical.ROCK)
    assert rock in table.at("D4")
    for name, tile in data["board"].items():
        (placed,) = [p for p in table.at(name) if p.piece.kind == "tile"]
        assert placed.piece.identity == f"{tile['colour']}-{tile['shape']}"
    assert table.at("start-red") == (PlacedPiece(physical.wagon_piece(Colour.RED)),) * 4
    assert table.at("D1") == ()  # a printed square, nothing on it


def test_table_actions_show_on_the_table_and_implied_ones_do_not() -> None:
    for seed in range(4):
        state = _race(2 + seed % 3, seed)
        rng = random.Random(seed)
        while not state.is_over:
            before = TableObservation.of(physical.expected_table(state))
            action = choose(state, rng, Policy.BY_TYPE)
            state.apply(action)
            after = TableObservation.of(physical.expected_table(state))
            if action.VISIBILITY is Visibility.IMPLIED:
                assert after == before, action.describe()
            else:  # a tile laid as it was revealed shows too: it was in the player's hand
                assert after != before, action.describe()
            assert action.VISIBILITY is not Visibility.INPUT


def test_a_rotation_shows_as_the_tile_turned() -> None:
    state = _race(2, 1)
    rng = random.Random(1)
    while state.to_json()["phase"] != "play":
        state.apply(choose(state, rng))
    rotate = next(a for a in state.legal_actions() if a.TYPE == "rotate_tile")
    state.apply(rotate)
    square = rotate.to_json()["square"]
    (placed,) = [
        p
        for p in TableObservation.of(physical.expected_table(state)).at(square)
        if p.piece.kind == "tile"
    ]
    shape = Shape(placed.piece.identity.split("-")[1])
    tile = state.pos.tiles[state.board.square(square)]
    assert tile is not None and shape_exits(shape)[placed.rotation] == tile.exits
