"""The registry of games: `GAMES`, `game_named(name)`, `new_game(name, options, seed)` and
`state_from_json`.

Each game package exposes its one `Game` (the rules, the physical form, the bot and the search's
heuristic) and imports nothing of this module, so the registry imports the games and never the
other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import derailed, minewagons, offtherails, trickoftherails
from rules.core import BadOptions, State, resolve_options
from rules.game import Game

GAMES: dict[str, Game[Any]] = {
    game.name: game
    for game in (
        offtherails.OFF_THE_RAILS,
        trickoftherails.TRICK_OF_THE_RAILS,
        derailed.DERAILED,
        minewagons.MINE_WAGONS,
    )
}


def game_named(name: str) -> Game[Any]:
    """The registered game of that name; a KeyError naming the known ones otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}") from None


def new_game(name: str, options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """Start a game. `options` may include `players`; unknown or bad options raise BadOptions."""
    game = game_named(name)
    resolved = resolve_options(game.options, options)
    players = resolved.get("players")
    if not isinstance(players, int) or not game.min_players <= players <= game.max_players:
        raise BadOptions(
            f"{game.title} takes {game.min_players} to {game.max_players} players, not {players!r}"
        )
    state: State = game.start(resolved, seed)
    return state


def state_from_json(data: Mapping[str, Any]) -> State:
    state: State = game_named(str(data.get("game"))).state_class.from_json(data)
    return state
