"""Every game's mat keeps its corner markers' white quiet zones clear of every location: a piece
on the corner square must not hide a calibration marker."""

from __future__ import annotations

import pytest

import rules
from rules.physical import CORNER_CLEAR_MM, corner_footprint_mm


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_corner_markers_and_their_quiet_zones_are_clear_of_every_location(game: str) -> None:
    info = rules.GAMES[game]
    for players in range(info.min_players, info.max_players + 1):
        layout = info.layout({"players": players})
        for corner in layout.corner_markers:
            half = corner_footprint_mm(corner.size_mm) / 2
            assert half <= corner.x_mm <= layout.width_mm - half
            assert half <= corner.y_mm <= layout.height_mm - half
            for loc in layout.locations:
                gap_x = abs(loc.x_mm - corner.x_mm) - loc.w_mm / 2 - half
                gap_y = abs(loc.y_mm - corner.y_mm) - loc.h_mm / 2 - half
                assert max(gap_x, gap_y) >= CORNER_CLEAR_MM - 1e-9, (players, corner, loc.name)
