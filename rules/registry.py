"""The registry of games: `GAMES`, `new_game(name, options, seed)` and `state_from_json`."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.core import Action, BadOptions, Option, State, resolve_options


@dataclass(frozen=True)
class GameInfo:
    """What the registry knows of a game: names, player counts, options, how to start one."""

    name: str
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    start: Callable[[dict[str, Any], int], State]
    state_class: type[State]
    bot: Callable[[Any, random.Random], Action] | None = None  # a plausible player, if any


GAMES: dict[str, GameInfo] = {}


def register(info: GameInfo) -> None:
    GAMES[info.name] = info


def game_info(name: str) -> GameInfo:
    _load_builtin()
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


def _load_builtin() -> None:
    import rules.offtherails  # noqa: F401  (registers itself; a no-op once imported)
