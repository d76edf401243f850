"""What Off the Rails tells the computer player's search (see rules.ai.hooks).

Playouts follow the simple bot (it lays track ahead of its minecarts, so carts travel, pick up
and deliver, as players do); they are cut short and judged by the points each seat has, plus
part of what its minecarts on the board carry (they may yet deliver it, or derail).

In the action phase the root, and any node searched `ORDER` times, grows its children in the
simple bot's order (`ranked`): a tile that lays track on ahead of one of the player's minecarts,
a minecart onto the board, a speed change, ending the actions, an upgrade; the other 400-odd
tile placements are left to the bot's picks. So with few iterations the search compares the
moves a player would weigh, not a handful of placements anywhere on the board.
"""

from __future__ import annotations

import random

from rules.ai.hooks import Heuristic, ahead
from rules.core import Action, State
from rules.offtherails import actions as act
from rules.offtherails.bot import bot_action, fitting_tiles, track_ends
from rules.offtherails.components import Gem
from rules.offtherails.state import OffTheRails, Phase
from rules.offtherails.tabletop import CartStatus

CARRIED = 0.6
"""What a jewel in a minecart on the board is worth, against one delivered."""

ORDER = 2
"""Visits after which a node of the tree grows its children in `ranked` order (the root at
once): ranking costs about what one bot action does."""

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


def ranked(state: State) -> list[Action]:
    """In the action phase, the actions the simple bot weighs, best first: tiles laying track on
    ahead of the player's minecarts (the nearest cart's first), minecarts onto the board, speed
    changes, ending the actions, upgrades; other placements are left out (the search then
    expands with the bot). Nothing in the other phases (their choices are few)."""
    assert isinstance(state, OffTheRails)
    if state.phase is not Phase.ACTIONS:
        return []
    groups = state.action_groups()
    ahead_of_carts: list[Action] = []
    for square, entry in track_ends(state):
        ahead_of_carts += (
            a for a in fitting_tiles(state.placings_at(square), entry) if a not in ahead_of_carts
        )
    return [
        *ahead_of_carts,
        *groups.carts,
        *groups.speeds,
        act.EndActions(),
        *groups.upgrades,
    ]


HEURISTIC = Heuristic(
    playout=playout, evaluate=evaluate, cutoff=40, order=ranked, order_visits=ORDER
)
