"""Table steps for scenario files: show the referee a table, check its verdict (docs/scenarios.md).

A step `{"observe": {...}, "verdict": "applied", ...}` builds a table from what the rules expect
now (or after some actions), with pieces put, taken or covered by hand, shows it to the referee
as the camera and/or the sensor board would see it, checks the verdict, and carries it out as the
service would: applied actions are applied, a choice or an input is answered when the step says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import Observation, fuse
from controller.referee.tables import Pieces, as_laid
from controller.referee.verdict import Verdict, VerdictKind
from controller.words.book import Book
from controller.words.verdicts import verdict_line
from rules.core import CHANCE, Action, State
from rules.physical import Piece, PlacedPiece, TableObservation
from rules.registry import game_info
from rules.scenario import ExtraSteps, StepHandler

_TURNS = "NESW"
_OBSERVE_KEYS = {"after", "put", "take", "cover", "on_top", "sensors"}
_STEP_KEYS = {"observe", "verdict", "actions", "locations", "says", "choose", "answer"}
_SENSORS = ("none", "also", "only")


class TableStepError(ValueError):
    """A table step that is not written as docs/scenarios.md describes."""


def parse_piece(text: object) -> PlacedPiece:
    """`minecart:red-white@S`: a piece as `kind:identity[:face]`, turned N (default), E, S or W."""
    if not isinstance(text, str) or not text:
        raise TableStepError(f"a piece is written 'kind:identity[:face][@N|E|S|W]', not {text!r}")
    name, _, turned = text.partition("@")
    parts = name.split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise TableStepError(f"a piece is written 'kind:identity[:face][@N|E|S|W]', not {text!r}")
    if turned and (len(turned) != 1 or turned not in _TURNS):
        raise TableStepError(f"{text!r}: a piece is turned N, E, S or W, not {turned!r}")
    piece = Piece(parts[0], parts[1], parts[2] if len(parts) == 3 else "")
    return PlacedPiece(piece, _TURNS.index(turned) if turned else 0)


def new_observer() -> StepHandler:
    """A fresh handler for one scenario: it remembers the table as it was last accepted."""
    memory: dict[str, Any] = {}  # "table": as last accepted; "game": the state it was seen for

    def observe(state: State, step: Mapping[str, Any]) -> str | None:
        return _observe(state, step, memory)

    return observe


def _observe(state: State, step: Mapping[str, Any], memory: dict[str, Any]) -> str | None:
    unknown = set(step) - _STEP_KEYS
    if unknown:
        raise TableStepError(f"unknown key(s) {sorted(unknown)} in a table step")
    spec = step["observe"]
    if not isinstance(spec, Mapping):
        raise TableStepError("'observe' holds an object: after, put, take, cover, sensors")
    wrong = set(spec) - _OBSERVE_KEYS
    if wrong:
        raise TableStepError(f"unknown key(s) {sorted(wrong)} in 'observe'")
    if "verdict" not in step:
        raise TableStepError("a table step names the 'verdict' it expects")
    info = game_info(state.GAME)
    referee = Referee.for_game(info)
    if info.layout is None or info.catalogue is None:
        raise TableStepError(f"{info.title} has no physical form")
    layout = info.layout(state.options)
    if (
        memory.get("game") == id(state)
        and state.history[: len(memory["history"])] != memory["history"]
    ):  # an `undo` step: the host took back; the table lies as it was last seen (after a
        # take-back, the pieces the players put back), as the service keeps it
        memory["table"] = as_laid(
            memory["table"], memory["seen"], referee.table_of(state), referee.fits
        )
    _resolve(state)
    if memory.get("game") != id(state):  # a new game or a `set` position: start from its table
        memory["table"] = referee.table_of(state)
    table = memory["table"]
    seen = _table_after(state, referee, spec["after"]) if "after" in spec else dict(table)
    _take(seen, spec.get("take", []))  # taken first, so a piece can be taken and put back turned
    for name, pieces in _put(spec.get("put", {})).items():
        seen[name] = tuple(sorted((*seen.get(name, ()), *pieces)))
    names = {loc.name for loc in layout.locations}
    cover = spec.get("cover", [])
    on_top = spec.get("on_top", [])
    for name in [*seen, *cover, *on_top]:
        if name not in names:
            raise TableStepError(f"{name!r} is not a location of {layout.name}")
    standing = {e.piece for e in info.catalogue().entries if e.height_mm > 0}
    shown = {  # where pieces stand on others, the camera sees only them
        n: tuple(p for p in ps if n not in on_top or p.piece in standing) for n, ps in seen.items()
    }
    camera = TableObservation.of(shown, cover, on_top)
    sensors = spec.get("sensors", "none")
    if sensors not in _SENSORS:
        raise TableStepError(f"'sensors' is one of {', '.join(_SENSORS)}, not {sensors!r}")
    occupied = frozenset(
        loc.sensor
        for loc in layout.locations
        if loc.sensor is not None
        and any(p.piece in _magnetic(info) for p in seen.get(loc.name, ()))
    )
    observation = (
        Observation.exact(camera, sorted(names))
        if sensors == "none"
        else fuse(
            layout,
            info.catalogue(),
            camera if sensors == "also" else None,
            occupied,
        )
    )
    verdict = referee.judge(state, observation, table, digital_draw)
    problem = _check(state, verdict, step, Book.of(info, plain=True))
    if problem:
        return problem
    _carry_out(state, referee, verdict, step, observation, memory)
    memory["seen"] = observation
    memory["game"] = id(state)
    memory["history"] = list(state.history)
    return None


def _resolve(state: State) -> None:
    """Draw pending chance as the service's digital deck does (not a draw made on the table)."""
    while state.current_player == CHANCE and not state.observed_chance():
        state.apply(digital_draw(state))


def _magnetic(info: Any) -> frozenset[Piece]:
    return frozenset(e.piece for e in info.catalogue().entries if e.magnetic)


def _table_after(state: State, referee: Referee, actions: Any) -> dict[str, Pieces]:
    """The rules' table after `actions` (chance drawn as the service draws it); state unchanged."""
    if not isinstance(actions, list):
        raise TableStepError("'after' holds a list of actions")
    with state.applied([]):  # taken back with the block, as all it applies
        for item in actions:
            action = state.parse_action(item)
            if not action.CHANCE_OUTCOME:
                _resolve(state)  # draws the list leaves to the deck come before a player acts
            state.apply(action)
        _resolve(state)
        return dict(referee.table_of(state))


def _put(spec: Any) -> dict[str, list[PlacedPiece]]:
    if not isinstance(spec, Mapping):
        raise TableStepError("'put' maps a location to the pieces put there")
    out: dict[str, list[PlacedPiece]] = {}
    for name, pieces in spec.items():
        items = pieces if isinstance(pieces, list) else [pieces]
        out[name] = [parse_piece(p) for p in items]
    return out


def _take(seen: dict[str, Pieces], spec: Any) -> None:
    if isinstance(spec, list):
        for name in spec:
            seen.pop(name, None)
        return
    if not isinstance(spec, Mapping):
        raise TableStepError("'take' lists locations to clear, or maps a location to pieces")
    for name, pieces in spec.items():
        items = pieces if isinstance(pieces, list) else [pieces]
        left = list(seen.get(name, ()))
        for text in items:
            piece = parse_piece(text)
            match = next((p for p in left if p.piece == piece.piece), None)
            if match is None:
                raise TableStepError(f"'take': no {text!r} lies on {name}")
            left.remove(match)
        seen[name] = tuple(left)


def _check(state: State, verdict: Verdict, step: Mapping[str, Any], book: Book) -> str | None:
    text = verdict_line(verdict, book)
    kinds = [k.value for k in VerdictKind]
    want = step["verdict"]
    if want not in kinds:
        raise TableStepError(f"'verdict' is one of {', '.join(kinds)}, not {want!r}")
    wrong = []
    if verdict.kind.value != want:
        wrong.append(f"verdict {verdict.kind.value!r}, expected {want!r}: {text}")
    if "actions" in step:
        got = [a.to_json() for a in verdict.actions if not a.CHANCE_OUTCOME]
        expected = [state.parse_action(a).to_json() for a in step["actions"]]
        if got != expected:
            wrong.append(f"actions {got}, expected {expected}")
    if "locations" in step and sorted(verdict.locations) != sorted(step["locations"]):
        wrong.append(f"locations {list(verdict.locations)}, expected {step['locations']}")
    if "says" in step and str(step["says"]).lower() not in text.lower():
        wrong.append(f"the verdict says {text!r}, without {step['says']!r}")
    if "answer" in step and verdict.kind is VerdictKind.NEEDS_INPUT:
        answer = state.parse_action(step["answer"])
        offered = [o.actions for o in verdict.options]
        if (answer,) not in offered:
            shown = "; ".join(
                book.actions([a.to_json() for a in o.actions]) for o in verdict.options
            )
            wrong.append(f"the answer {answer.describe()} is not among the options: {shown}")
    return "; ".join(wrong) or None


def _carry_out(
    state: State,
    referee: Referee,
    verdict: Verdict,
    step: Mapping[str, Any],
    observation: Observation,
    memory: dict[str, Any],
) -> None:
    actions: list[Action] = list(verdict.actions)
    if verdict.kind is VerdictKind.CHOICE and "choose" in step:
        index = step["choose"]
        if not isinstance(index, int) or not 0 <= index < len(verdict.options):
            raise TableStepError(
                f"'choose' is an option number from 0 to {len(verdict.options) - 1}"
            )
        actions += verdict.options[index].actions
    elif verdict.kind is VerdictKind.NEEDS_INPUT and "answer" in step:
        actions.append(state.parse_action(step["answer"]))
    elif verdict.kind not in (VerdictKind.APPLIED, VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
        actions = []  # no question here; one unanswered: what comes before it is applied
    for action in actions:  # the draws among them are the digital deck's, as the service's
        state.apply(action)
    _resolve(state)  # then the deck draws what is still pending, as the service does
    if verdict.settles_table:
        rules = referee.table_of(state)
        memory["table"] = as_laid(memory["table"], observation, rules, referee.fits)


TABLE_STEPS: ExtraSteps = {"observe": new_observer}
"""The step kinds this module adds to scenario files, for `rules.scenario.run_scenario`."""
