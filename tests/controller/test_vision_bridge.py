"""The vision bridge: settled views in the rules' terms; what lies under a tall piece."""

from __future__ import annotations

from controller.vision_bridge import observation
from rules.offtherails import physical
from vision.readings import (
    GLARE,
    ON_TOP,
    LocationReading,
    LocationState,
    MarkerReading,
    SettledView,
)


def _view(*readings: LocationReading) -> SettledView:
    return SettledView(0, readings, frozenset(), frozenset(), full_decode=True)


def test_a_location_with_only_a_minecart_read_is_on_top_and_a_tile_is_not() -> None:
    """A minecart read with no rim seen round it (vision's reason empty) still stands on what the
    rules say lies there: the location is on_top (a cart read without its tile stalled a game)."""
    catalogue = physical.catalogue()
    cart = next(e for e in catalogue.entries if e.piece.kind == "minecart")
    tile = next(e for e in catalogue.entries if e.piece.kind == "tile")
    seen = observation(
        _view(
            LocationReading(
                "C3", LocationState.OCCUPIED, (MarkerReading(cart.marker_id, 0, 1.0, 0, 0),)
            ),
            LocationReading(
                "D3", LocationState.OCCUPIED, (MarkerReading(tile.marker_id, 1, 1.0, 0, 0),)
            ),
            LocationReading(
                "E3", LocationState.OCCUPIED, (MarkerReading(cart.marker_id, 0, 1.0, 0, 0),), ON_TOP
            ),
            LocationReading("F3", LocationState.OCCLUDED, (), GLARE),
        ),
        catalogue,
    )
    assert seen.on_top == {"C3", "E3"}
    assert seen.unknown == {"F3"}
    assert [p.piece for p in seen.at("C3")] == [cart.piece]
    assert [p.piece for p in seen.at("D3")] == [tile.piece]
