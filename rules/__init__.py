"""Pure rules engines for the table's games, behind one State interface (see rules.core)."""

from rules.core import CHANCE, Action, BadOptions, IllegalAction, MalformedAction, State
from rules.registry import GAMES, GameInfo, game_info, new_game, state_from_json

import rules.offtherails  # noqa: E402,F401,I001  (registers the game)

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
