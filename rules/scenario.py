"""Scenario files, the rules' executable specification: run one and report each failing step.

Format (docs/scenarios.md): {"game", "options", "seed", "rule", "steps": [...]} where a step is
{"apply": ACTION or [ACTION, ...]}, {"reject": ACTION, "because": "text"},
{"expect": {"dotted.path": value}}, {"absent": ["dotted.path", ...]}, {"set": {...}},
{"chance": "auto"}, {"legal": ACTION}, {"undo": N} or {"print": true | "path"}. Before a player
action is applied, rejected or checked, pending chance is resolved with a RNG seeded by the
scenario's seed (unless the step says "draw": false), so a scenario fixes only the draws it cares
about (by applying those outcomes itself). Anything not written so is an error, never a pass.
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


SCENARIO_KEYS = frozenset({"game", "options", "seed", "rule", "steps"})

# Each step kind: the keys it may hold besides its own (the first key names the kind).
STEP_KEYS: dict[str, frozenset[str]] = {
    "apply": frozenset({"draw"}),
    "reject": frozenset({"because", "draw"}),
    "legal": frozenset({"draw"}),
    "expect": frozenset(),
    "absent": frozenset(),
    "set": frozenset({"sketch"}),
    "chance": frozenset(),
    "undo": frozenset(),
    "print": frozenset(),
}


class ScenarioError(ValueError):
    """A scenario not written as docs/scenarios.md describes (so it cannot pass by accident)."""


def check_scenario(scenario: Any, extra: ExtraSteps | None = None) -> None:
    """Refuse unknown keys, a missing `game`, `rule` or `steps`, and malformed steps."""
    if not isinstance(scenario, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    unknown = sorted(set(scenario) - SCENARIO_KEYS)
    if unknown:
        raise ScenarioError(f"unknown key(s) {unknown}; a scenario holds {sorted(SCENARIO_KEYS)}")
    for key in ("game", "rule", "steps"):
        if key not in scenario:
            raise ScenarioError(f"the scenario has no {key!r}")
    if not isinstance(scenario["rule"], str) or not scenario["rule"].strip():
        raise ScenarioError("'rule' quotes the rule sentence the scenario checks, with its source")
    if not isinstance(scenario["steps"], list) or not scenario["steps"]:
        raise ScenarioError("'steps' is a non-empty list")
    for i, step in enumerate(scenario["steps"], start=1):
        _check_step(i, step, extra or {})


def _check_step(index: int, step: Any, extra: ExtraSteps) -> None:
    if not isinstance(step, Mapping) or not step:
        raise ScenarioError(f"step {index} is not a step object")
    kinds = [k for k in step if k in STEP_KEYS or k in extra]
    if len(kinds) != 1:
        known = sorted({*STEP_KEYS, *extra})
        raise ScenarioError(f"step {index} must hold exactly one of {known}, not {sorted(step)}")
    kind = kinds[0]
    if kind in extra:
        return  # its handler checks its own keys
    unknown = sorted(set(step) - {kind} - STEP_KEYS[kind])
    if unknown:
        raise ScenarioError(f"step {index} ({kind}): unknown key(s) {unknown}")
    if kind == "reject" and not isinstance(step.get("because"), str):
        raise ScenarioError(f"step {index}: a 'reject' names 'because' (a part of the refusal)")


def run_scenario(
    scenario: Mapping[str, Any], name: str = "scenario", extra: ExtraSteps | None = None
) -> ScenarioResult:
    """Run one scenario; never raises for a failing rule, only reports it."""
    try:
        check_scenario(scenario, extra)
    except ScenarioError as e:
        return ScenarioResult(name, StepFailure(0, str(e)))
    handlers = {key: make() for key, make in (extra or {}).items()}
    try:
        state = new_game(
            str(scenario["game"]), scenario.get("options", {}), int(scenario.get("seed", 0))
        )
    except (KeyError, ValueError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else e
        return ScenarioResult(name, StepFailure(0, f"cannot start the game: {message}"))
    rng = random.Random(int(scenario.get("seed", 0)))
    steps: Sequence[Mapping[str, Any]] = scenario["steps"]
    sketched = False
    for i, step in enumerate(steps, start=1):
        try:
            own = next((key for key in handlers if key in step), None)
            if own is not None:
                problem = handlers[own](state, step)
            else:
                state, problem = _run_step(state, step, rng)
            if problem is None and "set" in step:
                if step.get("sketch") is True:
                    sketched = True  # a position laid out for one rule: supplies not balanced
                else:
                    problem = _broken(state, 'after the set (or mark it "sketch": true)')
        except IllegalAction as e:
            problem = f"unexpected rejection: {e}"
        except Exception as e:  # a broken step or an engine bug: report it, check the next file
            problem = f"bad step {json.dumps(step)}: {type(e).__name__}: {e}"
        if problem:
            return ScenarioResult(name, StepFailure(i, problem))
    problem = None if sketched else _broken(state, "at the end")
    if problem:
        return ScenarioResult(name, StepFailure(len(steps), problem))
    return ScenarioResult(name, None)


def _broken(state: State, when: str) -> str | None:
    wrong = state.invariants()
    return f"invariants broken {when}: {'; '.join(wrong)}" if wrong else None


def same(want: Any, got: Any) -> bool:
    """Type-exact equality: 0, false and 0.0 differ; lists and objects compared item by item."""
    if type(want) is not type(got):
        return False
    if isinstance(want, list):
        return len(want) == len(got) and all(same(w, g) for w, g in zip(want, got, strict=True))
    if isinstance(want, dict):
        return want.keys() == got.keys() and all(same(want[k], got[k]) for k in want)
    return bool(want == got)


def _before_player_action(
    state: State, action: Action, rng: random.Random, step: Mapping[str, Any]
) -> None:
    if not action.CHANCE_OUTCOME and step.get("draw", True):
        resolve_chance(state, rng)


def _run_step(
    state: State, step: Mapping[str, Any], rng: random.Random
) -> tuple[State, str | None]:
    if "apply" in step:
        items = step["apply"]
        for item in items if isinstance(items, list) else [items]:
            action = state.parse_action(item)
            _before_player_action(state, action, rng, step)
            state.apply(action)
        return state, None
    if "reject" in step:
        before = state.to_json()
        try:
            action = state.parse_action(step["reject"])
            _before_player_action(state, action, rng, step)
            before = state.to_json()
            state.apply(action)
        except IllegalAction as e:
            want = str(step["because"])
            if want.lower() not in str(e).lower():
                return state, f"rejected, but the message {str(e)!r} lacks {want!r}"
            if state.to_json() != before:
                return state, "rejected, but the state changed"
            return state, None
        return state, f"{action.describe()} was accepted; expected a rejection"
    if "legal" in step:
        action = state.parse_action(step["legal"])
        _before_player_action(state, action, rng, step)
        if action not in state.legal_actions():
            return state, f"{action.describe()} is not among the legal actions"
        return state, None
    if "expect" in step:
        data = state.to_json()
        wrong = []
        for path, want in step["expect"].items():
            got = get_path(data, path)
            if got is not _MISSING:
                got = json.loads(json.dumps(got))  # as the JSON has it: tuples are lists
            if got is _MISSING or not same(want, got):
                wrong.append(f"{path}: expected {_show(want)}, got {_show(got)}")
        return state, "; ".join(wrong) or None
    if "absent" in step:
        data = state.to_json()
        there = [p for p in step["absent"] if get_path(data, p) is not _MISSING]
        return state, "; ".join(f"{p}: expected (absent), got {_show(get_path(data, p))}"
                                for p in there) or None  # fmt: skip
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
    if "print" in step:
        data = state.to_json()
        shown = data if step["print"] is True else get_path(data, str(step["print"]))
        print(json.dumps(shown, indent=1, sort_keys=True, default=str))
        print("history:", ", ".join(a.describe() for a in state.history))
        return state, None
    return state, f"unknown step {json.dumps(step)}"
