"""What Derailed! tells the computer player's search (see rules.ai.hooks).

Playouts are cut short and judged by each seat's points and, for the round under way, how near
its network has come to its destination (the simple bot's measure: slots still to lay).
"""

from __future__ import annotations

from rules.ai.hooks import Heuristic, ahead
from rules.core import State
from rules.derailed.bot import _distance
from rules.derailed.data import Phase
from rules.derailed.legality import tops
from rules.derailed.state import Derailed

NEARER = 0.25
"""Points a slot nearer the destination is worth, in the round under way."""

SCALE = 1.5
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1] from its points and its network's distance to go."""
    assert isinstance(state, Derailed)
    d, rules = state.d, state.rules
    points = state.scores()
    if d.phase is not Phase.OVER and len(d.start) == len(d.dest) == rules.players:
        on_top = list(tops(d))
        for seat in range(rules.players):
            if seat not in d.arrived:
                points[seat] -= NEARER * _distance(rules, d, seat, on_top)
    return ahead(points, SCALE)


HEURISTIC = Heuristic(evaluate=evaluate, cutoff=12)
