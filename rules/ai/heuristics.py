"""Each game's `Heuristic` for the search (see `rules.ai.hooks`): playout policy, evaluation."""

from __future__ import annotations

from rules.ai.hooks import Heuristic

HEURISTICS: dict[str, Heuristic] = {}
"""By game name; a game not named here is searched with the defaults (uniform, to the end)."""


def heuristic_for(game: str) -> Heuristic:
    return HEURISTICS.get(game, Heuristic())
