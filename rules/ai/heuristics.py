"""Each game's `Heuristic` for the search (see `rules.ai.hooks`): playout policy, evaluation."""

from __future__ import annotations

from rules.ai.hooks import Heuristic
from rules.derailed import heuristic as derailed
from rules.minewagons import heuristic as minewagons
from rules.offtherails import heuristic as offtherails

HEURISTICS: dict[str, Heuristic] = {
    "derailed": derailed.HEURISTIC,
    "minewagons": minewagons.HEURISTIC,
    "offtherails": offtherails.HEURISTIC,
}
"""By game name; a game not named here is searched with the defaults (uniform, to the end)."""


def heuristic_for(game: str) -> Heuristic:
    return HEURISTICS.get(game, Heuristic())
