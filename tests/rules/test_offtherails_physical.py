"""Off the Rails' physical form: layout, catalogue and what should lie on each square."""

from __future__ import annotations

import rules
from rules.offtherails.physical import catalogue, expected_table, layout
from rules.physical import LocationKind, Piece, PlacedPiece, TableObservation
from rules.scenario import run_scenario, set_path


def test_layout_has_every_square_and_a_reveal_slot() -> None:
    lay = layout()
    squares = [loc for loc in lay.locations if loc.kind is LocationKind.SQUARE]
    assert len(squares) == 144
    a1, l12 = lay.location("A1"), lay.location("L12")
    assert a1.x_mm < l12.x_mm and a1.y_mm > l12.y_mm  # north at the top of the mat
    assert a1.sensor == (11, 0) and l12.sensor == (0, 11)
    assert lay.location("reveal").kind is LocationKind.SLOT
    for loc in lay.locations:
        assert 0 < loc.x_mm < lay.width_mm and 0 < loc.y_mm < lay.height_mm
    assert sorted(c.marker_id for c in lay.corner_markers) == [0, 1, 2, 3]


def test_catalogue_ids_are_unique_and_clear_of_the_corners() -> None:
    cat = catalogue()
    ids = [e.marker_id for e in cat.entries]
    assert len(ids) == len(set(ids))
    assert min(ids) == 4
    assert len(cat.by_piece()) == len(ids)
    straight = cat.by_piece()[Piece("tile", "straight_t", "straight")]
    assert straight.same_rotation(0, 2) and not straight.same_rotation(0, 1)


def test_expected_table_shows_tiles_carts_and_chasms() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 4)
    data = state.to_json()
    set_path(data, "board.F6", {"tile": {"exits": "EW", "shape": "straight", "kind": "straight_t"}})
    set_path(data, "board.F7", {"tile": {"exits": "NES", "shape": "t", "kind": "corner_t"}})
    set_path(data, "board.C3", {"chasm": "blue"})
    state = rules.state_from_json(data)
    table = TableObservation.of(expected_table(state))  # type: ignore[arg-type]
    assert table.at("F6") == (PlacedPiece(Piece("tile", "straight_t", "straight"), 1),)
    assert table.at("F7") == (PlacedPiece(Piece("tile", "corner_t", "t"), 0),)
    assert table.at("C3") == (PlacedPiece(Piece("chasm_token", "blue"), 0),)
    assert table.at("A1") == ()


def test_expected_table_follows_a_cart_onto_the_board() -> None:
    steps = [
        {"apply": {"type": "choose_side", "side": "north"}},
        {"apply": {"type": "place_cart", "cart": "red-white", "square": "D12"}},
    ]
    scenario = {"game": "offtherails", "options": {"players": 2}, "rule": "test", "steps": steps}
    assert run_scenario(scenario).passed
    state = rules.new_game("offtherails", {"players": 2}, 0)
    import random

    from rules.scenario import resolve_chance

    state.apply({"type": "choose_side", "side": "north"})
    resolve_chance(state, random.Random(0))
    state.apply({"type": "place_cart", "cart": "red-white", "square": "D12"})
    table = TableObservation.of(expected_table(state))  # type: ignore[arg-type]
    assert table.at("D12") == (PlacedPiece(Piece("minecart", "red-white"), 2),)  # heading south
