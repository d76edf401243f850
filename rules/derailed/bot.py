"""A simple Derailed! player: lays the card that brings its network nearest its destination."""

# It picks from `legal_actions()` only, so it serves the simulated table and the tests.

from __future__ import annotations

import random

from rules.core import CHANCE, Action
from rules.derailed import actions as act
from rules.derailed.data import Data, Rules
from rules.derailed.grid import LENGTH, reach, slot_index
from rules.derailed.legality import canonical_tile, tops
from rules.derailed.state import Derailed


def _distance(rules: Rules, d: Data, seat: int, on_top: list[int]) -> int:
    """How many slots lie between the network of `seat` and its destination (0: arrived)."""
    lane = d.start.index(seat)
    goal = d.dest.index(seat)
    reached, arrive = reach(rules.cards.exits, on_top, rules.players, lane)
    if arrive >> goal & 1:
        return 0
    best = 99
    for s, mask in enumerate(reached):
        if mask:
            row, col = divmod(s, LENGTH)
            best = min(best, 1 + (LENGTH - 1 - col) + abs(row - goal))
    return best


def _value(rules: Rules, d: Data, seat: int, play: act.Play) -> float:
    s = slot_index(play.slot, rules.players)
    assert s is not None
    on_top = list(tops(d))
    covers = on_top[s] >= 0
    on_top[s] = canonical_tile(rules.cards, rules.cards.tile(play.card, play.facing))
    return -_distance(rules, d, seat, on_top) - 0.3 * covers


def bot_action(state: Derailed, rng: random.Random) -> Action:
    """A plausible action for the seat to act (or a chance draw by its probability)."""
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    legal = state.legal_actions()
    seat = state.current_player
    assert seat is not None
    plays = [a for a in legal if isinstance(a, act.Play)]
    if plays:
        if rng.random() < 0.1:
            return rng.choice(plays)
        d, rules = state.d, state.rules
        return max(plays, key=lambda a: (_value(rules, d, seat, a), rng.random()))
    if act.KeepHand() in legal and rng.random() < 0.7:
        return act.KeepHand()
    return rng.choice(legal)
