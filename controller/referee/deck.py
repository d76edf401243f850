"""The digital deck: chance drawn from the game's seed, so the referee can look past a draw."""

from __future__ import annotations

import random

from rules.core import Action, State


def digital_draw(state: State) -> Action:
    """A chance outcome drawn from the game's seed and the number of steps, so the referee can
    look past a draw and the service draws the same, and replays agree."""
    rng = random.Random(state.seed * 1_000_003 + len(state.history))
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
