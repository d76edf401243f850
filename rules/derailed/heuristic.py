"""What Derailed! tells the computer player's search (see rules.ai.hooks).

Playouts are cut short and judged by each seat's points and, for the round under way, how near
its network has come to its destination (the simple bot's measure: slots still to lay). The root
and the nodes searched often grow their children in the simple bot's order (`ranked`: the plays
that bring the seat's network nearest its destination first), so with few iterations the search
still compares the plays the bot would, rather than a few of 80 at random.
"""

from __future__ import annotations

from rules.ai.hooks import Heuristic, ahead
from rules.core import Action, State
from rules.derailed import actions as act
from rules.derailed.bot import _distance, _value
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


def ranked(state: State) -> list[Action]:
    """The legal actions best first: plays by the simple bot's value (distance to go after the
    play, a covered card a little worse), then the rest in their own order."""
    assert isinstance(state, Derailed)
    seat = state.current_player
    legal = state.legal_actions()
    if seat is None or seat < 0:
        return legal
    d, rules = state.d, state.rules
    plays = [a for a in legal if isinstance(a, act.Play)]
    value = {a: _value(rules, d, seat, a) for a in plays}
    plays.sort(key=lambda a: -value[a])  # a stable sort: ties keep their legal order
    return [*plays, *(a for a in legal if not isinstance(a, act.Play))]


HEURISTIC = Heuristic(evaluate=evaluate, cutoff=4, order=ranked, order_visits=2)
