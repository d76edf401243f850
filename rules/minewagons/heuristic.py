"""What the mine-wagon race tells the computer player's search (see rules.ai.hooks).

In the race, playouts (and a new node's first try) follow a cheap racer: a wagon across
whenever one can go, else mostly (`GREEDY`) the wagon move or entry that brings a wagon furthest
towards its far end, judged from the action alone (no action tried and taken back, as the simple
bot does: that made an iteration 50 times slower); the rest of the time any legal action, so
rotations and the Rock are tried too. A playout is cut short after a few actions and judged by
how far each seat's wagons stand (`bot.standing`: wagons across, how far the others have come,
the road open before them). The setup is played at random, as the simple bot does.
"""

from __future__ import annotations

import random

from rules.ai.hooks import Heuristic, ahead
from rules.core import Action, State
from rules.minewagons.actions import GOAL, EndTurn, EnterWagon, MoveWagon
from rules.minewagons.bot import progress
from rules.minewagons.bot import standing as wagons_standing
from rules.minewagons.position import Phase
from rules.minewagons.state import MineWagons

SCALE = 4.0
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""

GREEDY = 0.7
"""How often the racer takes its furthest move rather than any legal action."""

ENTRY_GAIN = 1
"""What bringing a wagon onto the board counts for, in lines of progress."""

ORDER = 16
"""Visits after which a node of the tree grows its children in `ranked` order (the root at
once): ranking a race position tries every action, about as long as 50 playouts."""


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1] from how far its wagons stand."""
    assert isinstance(state, MineWagons)
    board, pos = state.board, state.pos
    players = len(state.setup.seats)
    return ahead(
        [wagons_standing(board, pos, seat, state.colour(seat)) for seat in range(players)],
        SCALE,
    )


def racer(state: State, rng: random.Random) -> Action:
    """A wagon across if one can go; else, `GREEDY` of the time, a move that brings a wagon
    furthest forward (more than half a line: entries and forward moves), else any legal action."""
    assert isinstance(state, MineWagons)
    actions = state.legal_actions()
    pos = state.pos
    if pos.phase is not Phase.PLAY:
        return rng.choice(actions)
    board = state.board
    colour = state.colour(pos.seat)
    best: list[Action] = []
    most = 0.5
    for action in actions:
        if isinstance(action, MoveWagon):
            if action.to == GOAL:
                return action
            gain: float = progress(board, colour, board.square(action.to)) - progress(
                board, colour, board.square(action.start)
            )
        elif isinstance(action, EnterWagon):
            gain = ENTRY_GAIN
        else:
            continue
        if gain > most:
            best, most = [action], gain
        elif gain == most:
            best.append(action)
    if best and rng.random() < GREEDY:
        return rng.choice(best)
    return rng.choice(actions)


def ranked(state: State) -> list[Action]:
    """In the race, every legal action best first by how the player stands after it (the simple
    bot's judge: a wagon across first, ending the turn as good as standing still plus a little);
    nothing in the setup (the search then expands with the racer)."""
    assert isinstance(state, MineWagons)
    pos = state.pos
    if pos.phase is not Phase.PLAY:
        return []
    board, seat = state.board, pos.seat
    colour = state.colour(seat)
    now = wagons_standing(board, pos, seat, colour)
    scored: list[tuple[float, int, Action]] = []
    for i, action in enumerate(state.legal_actions()):
        if isinstance(action, MoveWagon) and action.to == GOAL:
            value = float("inf")
        elif isinstance(action, EndTurn):
            value = now + 0.1
        else:
            after = state.fork()
            after.advance(action)
            assert isinstance(after, MineWagons)
            value = wagons_standing(board, after.pos, seat, colour)
        scored.append((-value, i, action))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [action for _, _, action in scored]


HEURISTIC = Heuristic(
    playout=racer, evaluate=evaluate, cutoff=12, expand=racer, order=ranked, order_visits=ORDER
)
