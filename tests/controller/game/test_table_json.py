"""The players' drawing of the mat: places a game leaves unused are drawn only when needed."""

from __future__ import annotations

from controller.game.phrasing import Phrasebook
from controller.game.snapshot import table_json
from controller.referee.judge import Referee
from rules.registry import game_named, new_game

DERAILED = game_named("derailed")


def _drawn(players: int, **kwargs: list[str]) -> set[str]:
    state = new_game("derailed", {"players": players}, seed=1)
    table = table_json(
        DERAILED,
        state,
        Referee(DERAILED),
        Phrasebook.of(DERAILED, ()),
        marked=kwargs.get("marked", []),
        alert=bool(kwargs.get("marked")),
        last_move=[],
    )
    return {loc["name"] for loc in table["locations"]}


def test_a_two_player_derailed_page_draws_the_two_lanes_in_play_not_the_mats_six() -> None:
    printed = {loc.name for loc in DERAILED.layout({"players": 2}).locations}
    drawn = _drawn(2)
    assert drawn < printed  # the other four lanes are watched by the camera, not drawn
    assert {"A1", "D2"} <= drawn and not {"A3", "D6"} & drawn
    assert _drawn(6) == {loc.name for loc in DERAILED.layout({"players": 6}).locations}


def test_an_unused_lane_is_drawn_when_the_referee_points_at_it() -> None:
    drawn = _drawn(2, marked=["B3"])
    assert "B3" in drawn and "A3" not in drawn
