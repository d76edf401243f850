"""Scenario files, the rules' executable specification: run one and report each failing step.

Format (docs/scenarios.md): {"game", "options", "seed", "rule", "steps": [...]} where a step is
{"apply": ACTION or [ACTION, ...]}, {"reject": ACTION, "because": "text"},
{"expect": {"dotted.path": value}}, {"set": {"dotted.path": value}}, {"chance": "auto"},
{"legal": ACTION} or {"undo": N}. Before a player action is applied or rejected, pending chance
is resolved with a RNG seeded by the scenario's seed, so a scenario fixes only the draws it cares
about (by applying those outcomes itself).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.core import CHANCE, Action, IllegalAction, State
from rules.registry import new_game, state_from_json

_MISSING = object()

StepHandler = Callable[[State, Mapping[str, Any]], "str | None"]
"""A step kind added from outside `rules` (the referee's table steps): checks one step against
the state, may apply actions to it, and returns what went wrong (None: the step passed)."""

ExtraSteps = Mapping[str, Callable[[], StepHandler]]
"""Step kinds by the key that marks them; each scenario gets fresh handlers (they may keep
memory from step to step, such as the table as it was last seen)."""


@dataclass(frozen=True)
class StepFailure:
    """Why a scenario failed: which step, what was expected and what was found."""

    step: int
    message: str


@dataclass(frozen=True)
class ScenarioResult:
    """The outcome of running one scenario."""

    name: str
    failure: StepFailure | None

    @property
    def passed(self) -> bool:
        return self.failure is None


def resolve_chance(state: State, rng: random.Random) -> None:
    """Draw chance outcomes by their probabilities until a player is to act (or the end)."""
    while state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        weights = [p for _, p in outcomes]
        state.apply(rng.choices(actions, weights)[0])


def get_path(data: Any, path: str) -> Any:
    """`players.0.stockpile.ruby` into nested dicts and lists; _MISSING when absent."""
    node = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif (
            isinstance(node, list)
            and part.lstrip("-").isdigit()
            and -len(node) <= int(part) < len(node)
        ):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    node: Any = data
    for part in parts[:-1]:
        if isinstance(node, list):
            node = node[int(part)]
        else:
            if node.get(part) is None:
                node[part] = {}
            node = node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif value is None and last in node and isinstance(node[last], dict):
        del node[last]
    else:
        node[last] = value


def _show(v: Any) -> str:
    return "(absent)" if v is _MISSING else json.dumps(v, sort_keys=True)


def run_scenario(
    scenario: Mapping[str, Any], name: str = "scenario", extra: ExtraSteps | None = None
) -> ScenarioResult:
    """Run one scenario; never raises for a failing rule, only reports it."""
    handlers = {key: make() for key, make in (extra or {}).items()}
    try:
        state = new_game(
            str(scenario["game"]), scenario.get("options", {}), int(scenario.get("seed", 0))
        )
    except (KeyError, ValueError) as e:
        return ScenarioResult(name, StepFailure(0, f"cannot start the game: {e}"))
    rng = random.Random(int(scenario.get("seed", 0)))
    steps: Sequence[Mapping[str, Any]] = scenario.get("steps", [])
    for i, step in enumerate(steps, start=1):
        try:
            own = next((key for key in handlers if key in step), None)
            if own is not None:
                problem = handlers[own](state, step)
            else:
                state, problem = _run_step(state, step, rng)
        except IllegalAction as e:
            problem = f"unexpected rejection: {e}"
        except Exception as e:  # a broken step or an engine bug: report it, check the next file
            problem = f"bad step {json.dumps(step)}: {type(e).__name__}: {e}"
        if problem:
            return ScenarioResult(name, StepFailure(i, problem))
    return ScenarioResult(name, None)


def _before_player_action(state: State, action: Action, rng: random.Random) -> None:
    if not action.CHANCE_OUTCOME:
        resolve_chance(state, rng)


def _run_step(
    state: State, step: Mapping[str, Any], rng: random.Random
) -> tuple[State, str | None]:
    if "apply" in step:
        items = step["apply"]
        for item in items if isinstance(items, list) else [items]:
            action = state.parse_action(item)
            _before_player_action(state, action, rng)
            state.apply(action)
        return state, None
    if "reject" in step:
        before = state.to_json()
        try:
            action = state.parse_action(step["reject"])
            _before_player_action(state, action, rng)
            before = state.to_json()
            state.apply(action)
        except IllegalAction as e:
            want = str(step.get("because", ""))
            if want.lower() not in str(e).lower():
                return state, f"rejected, but the message {str(e)!r} lacks {want!r}"
            if state.to_json() != before:
                return state, "rejected, but the state changed"
            return state, None
        return state, f"{action.describe()} was accepted; expected a rejection"
    if "legal" in step:
        action = state.parse_action(step["legal"])
        _before_player_action(state, action, rng)
        if action not in state.legal_actions():
            return state, f"{action.describe()} is not among the legal actions"
        return state, None
    if "expect" in step:
        data = state.to_json()
        wrong = []
        for path, want in step["expect"].items():
            got = get_path(data, path)
            if got is _MISSING or got != want:
                wrong.append(f"{path}: expected {_show(want)}, got {_show(got)}")
        return state, "; ".join(wrong) or None
    if "set" in step:
        data = state.to_json()
        for path, value in step["set"].items():
            set_path(data, path, value)
        return state_from_json(data), None
    if "chance" in step:
        resolve_chance(state, rng)
        return state, None
    if "undo" in step:
        for _ in range(int(step["undo"])):
            state.undo()
        return state, None
    return state, f"unknown step {json.dumps(step)}"
