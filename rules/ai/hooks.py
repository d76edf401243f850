"""The small hook through which a game may help the search: a playout policy and an evaluation.

The search (`rules.ai.search`) works on any game through the `State` interface alone. A game may
make it stronger or faster with a `Heuristic`, its `Game.heuristic` (see `rules.game`):

- `playout`: the action a player takes in a playout (default: uniform among `legal_actions()`);
  the simple bots (`Game.bot`) fit here, and so does anything cheaper.
- `evaluate`: how the game stands for each seat, in [0, 1] (1: as good as won), when a playout is
  cut short after `cutoff` of a player's actions (default: from `scores()`, see `standing`).
- `cutoff`: player actions a playout takes before `evaluate` judges it; 0 plays to the end.
- `expand`: the first action a new node of the tree tries (default: `playout`); a slower, better
  judge fits here (the bot that tries every action), since it runs once an iteration.
- `order`: the legal actions best first, for the root and any node searched `ORDER_VISITS`
  times: such a node then grows its children in that order (worked out once for the node), so
  the actions a careful judge likes best are the ones the search compares. It may be slow (it
  runs once a node, for few nodes).

Both functions see a searched copy of the game (a determinisation: see `State.determinise`),
never the real one, so they may read the game's internals without peeking.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rules.core import Action, State

WIN = 0.75
"""How much of a seat's reward is winning; the rest is its score against the others'."""


@dataclass(frozen=True)
class Heuristic:
    """What a game tells the search (all optional; see the module docstring)."""

    playout: Callable[[State, random.Random], Action] | None = None
    evaluate: Callable[[State], Sequence[float]] | None = None
    cutoff: int = 0
    expand: Callable[[State, random.Random], Action] | None = None
    order: Callable[[State], Sequence[Action]] | None = None
    order_visits: int = 8


def standing(scores: Sequence[float]) -> list[float]:
    """Each seat's reward in [0, 1] from the scores: `WIN` shared among the seats with the most
    points, the rest by where its score lies between the lowest and the highest."""
    best, worst = max(scores), min(scores)
    leaders = sum(1 for s in scores if s == best)
    spread = best - worst
    out = []
    for s in scores:
        won = WIN / leaders if s == best else 0.0
        place = (s - worst) / spread if spread else 0.5
        out.append(won + (1 - WIN) * place)
    return out


def ahead(values: Sequence[float], scale: float) -> list[float]:
    """Each seat's reward in (0, 1) from how far its value lies ahead of the best other seat's
    (a logistic curve: 0.5 level, about 0.73 one `scale` ahead): for a game not yet over, where
    a small lead is worth less than a win and a wider one more."""
    out = []
    for seat, mine in enumerate(values):
        others = [v for i, v in enumerate(values) if i != seat]
        lead = mine - max(others) if others else 0.0
        out.append(1 / (1 + math.exp(-max(-50.0, min(50.0, lead / scale)))))
    return out
