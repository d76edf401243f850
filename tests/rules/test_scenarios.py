"""Every scenario file under tests/scenarios passes, and the runner reports failures precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.checks.scenario import TABLE_STEPS
from rules.scenario import run_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.json"))


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 1


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SCENARIOS)))
def test_scenario_file_passes(path: Path) -> None:
    data = json.loads(path.read_text())
    for i, scenario in enumerate(data if isinstance(data, list) else [data]):
        assert scenario.get("rule"), f"{path.name}[{i}] names no rule sentence"
        result = run_scenario(scenario, f"{path.name}[{i}]", TABLE_STEPS)
        assert result.failure is None, f"step {result.failure.step}: {result.failure.message}"


BASE = {"game": "offtherails", "options": {"players": 2}, "seed": 1, "rule": "test"}
SIDE = {"apply": {"type": "choose_side", "side": "north"}}


def test_a_wrong_expectation_reports_step_path_and_difference() -> None:
    steps = [SIDE, {"chance": "auto"}, {"expect": {"actions_left": 3}}]
    result = run_scenario({**BASE, "steps": steps})
    assert result.failure is not None
    assert result.failure.step == 3
    assert "actions_left: expected 3, got 4" in result.failure.message


def test_an_absent_path_is_reported_as_absent() -> None:
    result = run_scenario({**BASE, "steps": [SIDE, {"expect": {"board.F6.tile.exits": "NS"}}]})
    assert result.failure is not None
    assert "got (absent)" in result.failure.message


def test_an_accepted_reject_step_fails() -> None:
    step = {"reject": {"type": "place_tile", "square": "F6", "exits": "NS"}, "because": "x"}
    result = run_scenario({**BASE, "steps": [SIDE, step]})
    assert result.failure is not None
    assert "was accepted; expected a rejection" in result.failure.message


def test_a_rejection_with_another_reason_fails() -> None:
    step = {"reject": {"type": "place_tile", "square": "D9", "exits": "NS"}, "because": "chasm"}
    result = run_scenario({**BASE, "steps": [SIDE, step]})
    assert result.failure is not None
    assert "lacks 'chasm'" in result.failure.message


def test_an_unexpected_rejection_fails_with_the_rule() -> None:
    step = {"apply": {"type": "place_tile", "square": "D9", "exits": "NS"}}
    result = run_scenario({**BASE, "steps": [SIDE, step]})
    assert result.failure is not None
    assert "centre square of a mine" in result.failure.message


def test_set_and_undo_steps() -> None:
    steps = [
        SIDE,
        {
            "set": {
                "board.F6": {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
            },
            "sketch": True,
        },
        {"expect": {"board.F6.tile.shape": "straight"}},
        {"apply": {"type": "upgrade", "square": "F6", "exits": "NES"}},
        {"expect": {"board.F6.tile.shape": "t"}},
        {"undo": 1},
        {"expect": {"board.F6.tile.shape": "straight"}},
    ]
    assert run_scenario({**BASE, "steps": steps}).passed


def test_a_bad_game_fails_at_step_zero() -> None:
    result = run_scenario({"game": "chess", "steps": []})
    assert result.failure is not None and result.failure.step == 0


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({**BASE, "rule": "x", "steps": [SIDE], "seeds": 3}, "unknown key(s) ['seeds']"),
        ({"game": "offtherails", "steps": [SIDE]}, "the scenario has no 'rule'"),
        ({**BASE, "rule": "x", "steps": []}, "'steps' is a non-empty list"),
        ({**BASE, "rule": "x", "steps": [{**SIDE, "expct": {}}]}, "unknown key(s) ['expct']"),
        (
            {**BASE, "rule": "x", "steps": [{"reject": {"type": "end_actions"}}]},
            "a 'reject' names 'because'",
        ),
        ({**BASE, "rule": "x", "steps": [{"explode": 1}]}, "must hold exactly one of"),
        ({}, "the scenario has no 'game'"),
    ],
)
def test_a_scenario_not_written_as_documented_fails(scenario: dict, message: str) -> None:  # type: ignore[type-arg]
    result = run_scenario(scenario)
    assert result.failure is not None
    assert message in result.failure.message


def test_expect_compares_type_exactly() -> None:
    steps = [SIDE, {"chance": "auto"}, {"expect": {"actions_left": 4.0}}]
    result = run_scenario({**BASE, "rule": "x", "steps": steps})
    assert result.failure is not None and "expected 4.0, got 4" in result.failure.message
    steps = [SIDE, {"chance": "auto"}, {"expect": {"chasm_open": 0}}]
    result = run_scenario({**BASE, "rule": "x", "steps": steps})
    assert result.failure is not None and "expected 0, got false" in result.failure.message


def test_absent_paths_and_the_print_step(capsys: pytest.CaptureFixture[str]) -> None:
    steps = [SIDE, {"absent": ["board.F6.tile"]}, {"print": "actions_left"}]
    assert run_scenario({**BASE, "rule": "x", "steps": steps}).passed
    assert "history: choose_side(side=north)" in capsys.readouterr().out
    steps = [SIDE, {"chance": "auto"}, {"absent": ["actions_left"]}]
    result = run_scenario({**BASE, "rule": "x", "steps": steps})
    assert (
        result.failure is not None and "actions_left: expected (absent)" in result.failure.message
    )


def test_invariants_are_checked_after_a_set_unless_it_is_a_sketch() -> None:
    gems = {"board.F6": {"jewels": {"rock": 5, "ruby": 0, "emerald": 0, "gold": 0, "diamond": 0}}}
    steps = [SIDE, {"chance": "auto"}, {"set": gems}]
    result = run_scenario({**BASE, "rule": "x", "steps": steps})
    assert (
        result.failure is not None and "invariants broken after the set" in result.failure.message
    )
    steps = [SIDE, {"chance": "auto"}, {"set": gems, "sketch": True}]
    assert run_scenario({**BASE, "rule": "x", "steps": steps}).passed


def test_draw_false_leaves_pending_chance_alone() -> None:
    step = {"reject": {"type": "end_actions"}, "because": "chance is to be resolved", "draw": False}
    assert run_scenario({**BASE, "rule": "x", "steps": [SIDE, step]}).passed
