"""What Derailed! tells the computer player's search (see rules.ai.hooks).

Playouts are played by the simple bot (`rules.derailed.bot`), the same choices drawn with the
same random numbers, worked out faster (`playout`: one search of the network per slot instead
of one per play), for a few player actions; then each seat is judged by its points and, for the
round under way, how near its network has come to its destination (the bot's measure: slots
still to lay). The root and the nodes searched often grow their children in the bot's order
(`ranked`: the plays that bring the seat's network nearest its destination first), so with few
iterations the search still compares the plays the bot would, rather than a few of 80 at random.

Why the bot plays the playouts: with four players a round ends when three have arrived, and a
seat's points come from arriving before the others (2 for the first, 1 for each later turn until
the round ends). Uniform playouts have nobody arrive in a few turns, so the search saw no race;
with the bot's playouts the others race as they will, and the search sees which of its plays
wins the race (A/B figures in docs/ai.md).
"""

from __future__ import annotations

import functools
import random

from rules.ai.hooks import Heuristic, ahead
from rules.core import CHANCE, Action, State
from rules.derailed import actions as act
from rules.derailed.bot import _distance, _value
from rules.derailed.data import Data, Phase, Rules
from rules.derailed.grid import BITS, DESTINATION, LENGTH, reach, slot_index, spread, steps
from rules.derailed.legality import canonical_tile, tops
from rules.derailed.state import Derailed

NEARER = 0.25
"""Points a slot nearer the destination is worth, in the round under way."""

SCALE = 1.5
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""

COVERS = 0.3
"""What the bot takes off a play's value for covering a card (as `rules.derailed.bot._value`)."""

RANDOM_PLAY = 0.1
"""How often the bot lays any play at all (as `rules.derailed.bot.bot_action`)."""

KEEPS = 0.7
"""How often the bot keeps its hand when it may exchange (as `rules.derailed.bot.bot_action`)."""


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


@functools.cache
def _to_go(lanes: int, goal: int) -> tuple[int, ...]:
    """Per slot, the slots still to lay from it to the destination of lane `goal` (the bot's
    measure: itself, the columns east of it and the lanes between)."""
    return tuple(
        1 + (LENGTH - 1 - s % LENGTH) + abs(s // LENGTH - goal) for s in range(lanes * LENGTH)
    )


def play_values(rules: Rules, d: Data, seat: int, plays: list[act.Play]) -> list[float]:
    """The bot's value of each play (`rules.derailed.bot._value`: minus the slots still to lay
    once it is made, 0.3 less for covering a card), worked out with one search of the network
    per slot played on: the network reached without that slot's card, then on from the sides
    it reaches through each new tile."""
    lanes = rules.players
    cards = rules.cards
    exits = cards.exits
    lane = d.start.index(seat)
    goal = d.dest.index(seat)
    table = _to_go(lanes, goal)
    step = steps(lanes)
    on_top = list(tops(d))
    around: dict[int, tuple[list[int], int, int]] = {}
    out: list[float] = []
    for play in plays:
        s = slot_index(play.slot, lanes)
        assert s is not None  # a legal play's slot
        tile = canonical_tile(cards, cards.tile(play.card, play.facing))
        covers = COVERS if on_top[s] >= 0 else 0.0
        found = around.get(s)
        if found is None:
            without, arrive = reach(exits, on_top, lanes, lane, s)
            near = min((g for g, mask in zip(table, without, strict=True) if mask), default=99)
            found = around[s] = (without, arrive, near)
        without, arrive, best = found
        if arrive >> goal & 1:
            out.append(-covers)
            continue
        reached = list(without)
        old, on_top[s] = on_top[s], tile
        todo = []
        for side in BITS[reached[s]]:
            for x in BITS[exits[tile][side]]:
                n = step[4 * s + x]
                if n >= 0:
                    todo.append(n)
                elif n == DESTINATION:
                    arrive |= 1 << (s // LENGTH)
        more, new = spread(exits, on_top, step, reached, todo)
        arrive |= more
        for t in new:
            if table[t] < best:
                best = table[t]
        on_top[s] = old
        out.append(-covers if arrive >> goal & 1 else -best - covers)
    return out


def playout(state: State, rng: random.Random) -> Action:
    """The simple bot's action (`rules.derailed.bot.bot_action`): the same choice drawn with
    the same random numbers, the plays valued by `play_values`."""
    assert isinstance(state, Derailed)
    seat = state.current_player
    if seat == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    legal = state.legal_actions()
    assert seat is not None
    plays = [a for a in legal if isinstance(a, act.Play)]
    if plays:
        if rng.random() < RANDOM_PLAY:
            return rng.choice(plays)
        values = play_values(state.rules, state.d, seat, plays)
        keys = [(v, rng.random()) for v in values]
        return plays[max(range(len(plays)), key=keys.__getitem__)]
    if act.KeepHand() in legal and rng.random() < KEEPS:
        return act.KeepHand()
    return rng.choice(legal)


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


HEURISTIC = Heuristic(playout=playout, evaluate=evaluate, cutoff=4, order=ranked, order_visits=2)
