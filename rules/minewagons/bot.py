"""A plausible mine-wagon racer: wagons home first, then the longest step towards the far end."""

from __future__ import annotations

import random
from typing import Any

from rules.core import Action
from rules.minewagons.actions import GOAL, EnterWagon, MoveWagon, RotateTile
from rules.minewagons.components import Board, Colour, Side


def progress(board: Board, colour: Colour, sq: int) -> int:
    """How far a square lies from a colour's starting end, in lines (0 on its first line)."""
    row, col = divmod(sq, board.size)
    last = board.size - 1
    return {Side.S: row, Side.N: last - row, Side.W: col, Side.E: last - col}[
        board.home_edge[colour]
    ]


def bot_action(state: Any, rng: random.Random) -> Action:
    """Take a wagon across if one can go; else the longest step forward; else enter; else turn."""
    actions: list[Action] = state.legal_actions()
    if state.pos.phase.value != "play":
        return rng.choice(actions)
    board: Board = state.board
    colour = state.colour(state.pos.seat)
    best: list[Action] = []
    gain = 0
    for action in actions:
        if isinstance(action, MoveWagon):
            if action.to == GOAL:
                return action
            step = progress(board, colour, board.square(action.to)) - progress(
                board, colour, board.square(action.start)
            )
            if step > gain:
                best, gain = [action], step
            elif step == gain and step > 0:
                best.append(action)
    if best:
        return rng.choice(best)
    enter = [a for a in actions if isinstance(a, EnterWagon)]
    if enter:
        return rng.choice(enter)
    turns = [a for a in actions if isinstance(a, RotateTile)]
    if turns and rng.random() < 0.7:
        return rng.choice(turns)
    others = [a for a in actions if not isinstance(a, RotateTile)]
    return rng.choice(others or actions)
