"""What the mine-wagon race tells the computer player's search (see rules.ai.hooks).

A playout is cut short after a few actions and judged by how far each seat's wagons stand
(`bot.standing`: wagons across, how far the others have come, the road open before them).
"""

from __future__ import annotations

from rules.ai.hooks import Heuristic, ahead
from rules.core import State
from rules.minewagons.bot import bot_action
from rules.minewagons.bot import standing as wagons_standing
from rules.minewagons.state import MineWagons

SCALE = 4.0
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1] from how far its wagons stand."""
    assert isinstance(state, MineWagons)
    board, pos = state.board, state.pos
    players = len(state.setup.seats)
    return ahead(
        [wagons_standing(board, pos, seat, state.colour(seat)) for seat in range(players)],
        SCALE,
    )


HEURISTIC = Heuristic(evaluate=evaluate, cutoff=12, expand=bot_action)
