"""What the referee reads of the rules' actions and turns: the locations an action names, who
acts next once the digital deck has drawn, and what a seat alone knows."""

from __future__ import annotations

import dataclasses
import operator
import random
import typing
from collections.abc import Callable
from typing import Any

from rules.core import CHANCE, Action, State, Visibility

ChanceResolver = Callable[[State], Action]


def field_values(action: Action) -> set[str]:
    """The string values of an action's fields (location names among them)."""
    return {v for v in vars(action).values() if isinstance(v, str)}


_TEXT_VALUES: dict[type[Action], Callable[[Action], tuple[Any, ...]]] = {}


def text_values(cls: type[Action]) -> Callable[[Action], tuple[Any, ...]]:
    """For an action class, what reads the values of its fields that hold plain text (where
    location names go) as a tuple: the search asks it of every legal action it meets."""
    known = _TEXT_VALUES.get(cls)
    if known is None:
        hints = typing.get_type_hints(cls)
        fields = [f.name for f in dataclasses.fields(cls) if hints.get(f.name) is str]
        getter = operator.attrgetter(*fields) if fields else None
        if getter is None:
            known = _no_values
        elif len(fields) == 1:
            known = _one_value(getter)
        else:
            known = getter
        _TEXT_VALUES[cls] = known
    return known


def _no_values(action: Action) -> tuple[Any, ...]:
    return ()


def _one_value(getter: Callable[[Action], Any]) -> Callable[[Action], tuple[Any, ...]]:
    return lambda action: (getter(action),)


def next_choices(state: State, resolve_chance: ChanceResolver | None) -> frozenset[Action]:
    """What players may do next, past any draws the digital deck makes first."""
    with state.applied([]) as drawn:
        while state.current_player == CHANCE and len(drawn) < 40:
            if resolve_chance is None or state.observed_chance():
                return frozenset(a for a, _ in state.chance_outcomes())
            outcome = resolve_chance(state)
            state.apply(outcome)  # taken back with the block, as all it applies
            drawn.append(outcome)
        return frozenset(state.legal_actions())


def draw_digitally(
    state: State, resolve_chance: ChanceResolver | None, done: list[Action], at_most: int
) -> None:
    """Let the digital deck draw what it draws now (inside a `state.applied` block, which takes
    the draws back with everything else it applied), until `done` holds `at_most` actions."""
    while (
        state.current_player == CHANCE
        and resolve_chance is not None
        and not state.observed_chance()
        and len(done) < at_most
    ):
        outcome = resolve_chance(state)
        state.apply(outcome)
        done.append(outcome)


def waiting(
    state: State, prefix: tuple[Action, ...], resolve_chance: ChanceResolver | None
) -> tuple[int | None, list[Action]]:
    """Who is to act once `prefix` is applied and the digital deck has drawn (None for the
    host: a real draw), and what they may do (a real draw: its outcomes)."""
    with state.applied(prefix) as done:
        draw_digitally(state, resolve_chance, done, len(prefix) + 64)
        seat = state.current_player
        if seat is None:
            legal: list[Action] = []
        elif seat == CHANCE:
            legal = [a for a, p in state.chance_outcomes() if p > 0 and state.observed_chance()]
        else:
            legal = state.legal_actions()
    return (seat if seat is not None and seat >= 0 else None), legal


def holds_secrets(state: State, seat: int) -> bool:
    """Whether `seat` knows something the others do not (a dealt hand)."""
    return state.redeal_secrets(seat, random.Random(0)) is not None


def after_seen_draw(state: State) -> bool:
    """Whether the last action was a draw the table shows (a tile turned up: its face)."""
    history = state.history
    if not history:
        return False
    last = history[-1]
    return bool(last.CHANCE_OUTCOME) and last.VISIBILITY is Visibility.TABLE


def common_prefix(sequences: list[tuple[Action, ...]]) -> tuple[Action, ...]:
    """The actions every sequence starts with."""
    prefix: list[Action] = []
    for items in zip(*sequences, strict=False):
        if all(i == items[0] for i in items):
            prefix.append(items[0])
        else:
            break
    return tuple(prefix)
