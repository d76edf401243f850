"""Pure rules engines for the table's games, behind one State interface (see rules.core)."""

import rules.offtherails  # noqa: F401  (registers the game)
from rules.core import CHANCE, Action, BadOptions, IllegalAction, MalformedAction, State
from rules.registry import GAMES, GameInfo, game_info, new_game, state_from_json

__all__ = [
    "CHANCE",
    "GAMES",
    "Action",
    "BadOptions",
    "GameInfo",
    "IllegalAction",
    "MalformedAction",
    "State",
    "game_info",
    "new_game",
    "state_from_json",
]
