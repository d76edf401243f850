"""Pure rules engines for the table's games, behind one State interface (see rules.core)."""

from rules.core import (
    CHANCE,
    Action,
    BadOptions,
    Decision,
    IllegalAction,
    MalformedAction,
    State,
    Visibility,
    Why,
)
from rules.game import Game
from rules.registry import GAMES, game_named, new_game, state_from_json

__all__ = [
    "CHANCE",
    "GAMES",
    "Action",
    "BadOptions",
    "Decision",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "State",
    "Visibility",
    "Why",
    "game_named",
    "new_game",
    "state_from_json",
]
