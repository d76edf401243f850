"""Computer players for every game: information-set Monte Carlo tree search over `State`.

`decide(state, level, seed)` gives the action of the seat to act, with one line of why; see
`rules.ai.search` for how the search works and `rules.ai.hooks` for what a game may add.
"""

from rules.ai.hooks import Heuristic
from rules.ai.player import Decision, Level, decide
from rules.ai.search import Budget, Result, Settings, search

__all__ = ["Budget", "Decision", "Heuristic", "Level", "Result", "Settings", "decide", "search"]
