"""Off the Rails movement checks that a scenario step cannot state: what is *not* offered."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import rules
from rules.offtherails import actions
from rules.offtherails.components import Direction
from rules.scenario import resolve_chance, set_path

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "offtherails"


def test_an_exit_onto_a_chasm_is_not_offered_while_another_is_open() -> None:
    scenario: dict[str, Any] = json.loads((SCENARIOS / "move_chasm.json").read_text())[0]
    state = rules.new_game("offtherails", scenario["options"], scenario["seed"])
    state.apply({"type": "choose_side", "side": "north"})
    resolve_chance(state, random.Random(1))
    data = state.to_json()
    data["board"] = {}
    for step in scenario["steps"]:
        for path, value in step.get("set", {}).items():
            set_path(data, path, value)
    state = rules.state_from_json(data)
    state.apply({"type": "end_actions"})
    assert set(state.legal_actions()) == {actions.Route(Direction.N), actions.Route(Direction.S)}
    assert not state.is_legal(actions.Route(Direction.E))
