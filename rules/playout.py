"""Random play: the policies used by `railtable rules play`, the benchmark and conformance tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from enum import StrEnum

from rules.core import CHANCE, Action, State


class Policy(StrEnum):
    """How a random player picks among legal actions."""

    UNIFORM = "uniform"  # every legal action equally likely
    BY_TYPE = "by_type"  # an action type first, then one of that type: carts get used
    BOT = "bot"  # the game's own bot


def chance_step(state: State, rng: random.Random) -> Action:
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def choose(state: State, rng: random.Random, policy: Policy = Policy.UNIFORM) -> Action:
    """The next action of a random game: a chance draw by its probability, or a player's pick."""
    if state.current_player == CHANCE:
        return chance_step(state, rng)
    if policy is Policy.BOT:
        from rules.registry import game_named

        return game_named(state.GAME).bot(state, rng)
    actions = state.legal_actions()
    if policy is Policy.BY_TYPE:
        kind = rng.choice(sorted({a.TYPE for a in actions}))
        return rng.choice([a for a in actions if kind == a.TYPE])
    return rng.choice(actions)


def play_out(
    state: State,
    rng: random.Random,
    policy: Policy = Policy.UNIFORM,
    max_steps: int = 100_000,
    on_step: Callable[[State, Action], None] | None = None,
) -> int:
    """Play random actions until the game ends; returns the number of steps taken."""
    steps = 0
    while not state.is_over:
        if steps >= max_steps:
            raise RuntimeError(f"{state.GAME}: no end after {max_steps} steps")
        action = choose(state, rng, policy)
        state.apply(action)
        if on_step is not None:
            on_step(state, action)
        steps += 1
    return steps
