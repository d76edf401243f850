"""Computer players for every game: information-set Monte Carlo tree search over `State`.

`rules.ai.player.decide(state, level, seed)` gives the action of the seat to act, with one line of
why; see `rules.ai.search` for how the search works and `rules.ai.hooks` for what a game may add.
The package imports only the search and its hooks: each game's `Game` (in `rules.game`) carries
its heuristic, and the player reaches the games through the registry, which imports them.
"""

from rules.ai.hooks import Heuristic
from rules.ai.search import Budget, Result, Settings, search

__all__ = ["Budget", "Heuristic", "Result", "Settings", "search"]
