"""Pure rules engines for the table's games, behind one State interface (see rules.core)."""

from rules.core import (
    CHANCE,
    Action,
    BadOptions,
    Decision,
    GameInfo,
    IllegalAction,
    MalformedAction,
    State,
    Visibility,
    Why,
)
from rules.registry import GAMES, game_info, new_game, state_from_json

__all__ = [
    "CHANCE",
    "GAMES",
    "Action",
    "BadOptions",
    "Decision",
    "GameInfo",
    "IllegalAction",
    "MalformedAction",
    "State",
    "Visibility",
    "Why",
    "game_info",
    "new_game",
    "state_from_json",
]
