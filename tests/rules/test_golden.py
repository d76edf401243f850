"""Golden playthroughs: whole recorded games replay action by action to the same final state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules

GOLDEN = sorted((Path(__file__).resolve().parent / "golden").glob("*.json"))


def test_there_are_golden_playthroughs() -> None:
    assert len(GOLDEN) >= 3


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_playthrough_replays_exactly(path: Path) -> None:
    golden = json.loads(path.read_text())
    state = rules.new_game(golden["game"], golden["options"], golden["seed"])
    for i, action in enumerate(golden["actions"]):
        assert not state.is_over, f"the game ended early, before action {i}"
        state.apply(action)  # an IllegalAction here means the rules changed
    assert state.is_over
    final = state.to_json()
    for key, value in golden["final"].items():
        assert final[key] == value, key
