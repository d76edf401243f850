"""What Off the Rails tells the computer player's search (see rules.ai.hooks).

Playouts follow the simple bot (it lays track ahead of its minecarts, so carts travel, pick up
and deliver, as players do); they are cut short and judged by the points each seat has, plus
part of what its minecarts on the board carry (they may yet deliver it, or derail).
"""

from __future__ import annotations

import random

from rules.ai.hooks import Heuristic, ahead
from rules.core import Action, State
from rules.offtherails.bot import bot_action
from rules.offtherails.components import Gem
from rules.offtherails.state import OffTheRails
from rules.offtherails.tabletop import CartStatus

CARRIED = 0.6
"""What a jewel in a minecart on the board is worth, against one delivered."""

SCALE = 4.0
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1] from its points and what its minecarts carry."""
    assert isinstance(state, OffTheRails)
    points = state.scores()
    for cart in state.carts():
        if cart.status is CartStatus.ON_BOARD:
            carried = sum(n * gem.points for gem, n in zip(Gem, cart.hold, strict=True))
            points[cart.owner] += CARRIED * carried
    return ahead(points, SCALE)


def playout(state: State, rng: random.Random) -> Action:
    """The simple bot's action."""
    assert isinstance(state, OffTheRails)
    return bot_action(state, rng)


HEURISTIC = Heuristic(playout=playout, evaluate=evaluate, cutoff=40)
