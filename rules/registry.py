"""The registry of games: `GAMES`, `new_game(name, options, seed)` and `state_from_json`.

Each game package exposes its `GAME_INFO` and imports nothing of this module, so the registry
imports the games and never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import derailed, minewagons, offtherails, trickoftherails
from rules.core import BadOptions, GameInfo, State, resolve_options

GAMES: dict[str, GameInfo] = {
    info.name: info
    for info in (
        offtherails.GAME_INFO,
        trickoftherails.GAME_INFO,
        derailed.GAME_INFO,
        minewagons.GAME_INFO,
    )
}


def game_info(name: str) -> GameInfo:
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


def new_game(name: str, options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """Start a game. `options` may include `players`; unknown or bad options raise BadOptions."""
    info = game_info(name)
    resolved = resolve_options(info.options, options)
    players = resolved.get("players")
    if not isinstance(players, int) or not info.min_players <= players <= info.max_players:
        raise BadOptions(
            f"{info.title} takes {info.min_players} to {info.max_players} players, not {players!r}"
        )
    return info.start(resolved, seed)


def state_from_json(data: Mapping[str, Any]) -> State:
    return game_info(str(data.get("game"))).state_class.from_json(data)
