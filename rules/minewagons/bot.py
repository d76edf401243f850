"""A plausible mine-wagon racer: it looks one action ahead and keeps the one that leaves its wagons
furthest along, with the most road open in front of them."""

from __future__ import annotations

import random
from typing import Any

from rules.core import Action
from rules.minewagons.actions import GOAL, EndTurn, MoveWagon
from rules.minewagons.components import Board, Colour, Side
from rules.minewagons.position import Phase, Position
from rules.minewagons.rails import reach, wagon_edges

ACROSS = 10.0  # a wagon beyond the far end is worth more than any square on the board
OPEN_ROAD = 0.5  # how much the best next move of a wagon counts, besides where it stands


def progress(board: Board, colour: Colour, sq: int) -> int:
    """How far a square lies from a colour's starting end, in lines (0 on its first line)."""
    row, col = divmod(sq, board.size)
    last = board.size - 1
    return {Side.S: row, Side.N: last - row, Side.W: col, Side.E: last - col}[
        board.home_edge[colour]
    ]


def standing(board: Board, pos: Position, seat: int, colour: Colour) -> float:
    """How well `colour` stands: wagons across, wagons on the board by how far they have come,
    and for each the furthest it could get with one more move."""
    score = ACROSS * pos.goal[seat]
    occupied = set(pos.wagons)
    if pos.rock is not None:
        occupied.add(pos.rock)
    edges = wagon_edges(board, colour)
    for sq, owner in pos.wagons.items():
        if owner is not colour:
            continue
        here = progress(board, colour, sq)
        score += 1 + here
        found = reach(board, pos.tiles, occupied, sq, edges)
        best = (
            board.size
            if found.goal
            else max((progress(board, colour, to) for to in found.stops), default=here)
        )
        score += OPEN_ROAD * max(0, best - here)
    return score


def bot_action(state: Any, rng: random.Random) -> Action:
    """During the setup a random choice; in the race a wagon across whenever one can go, else
    the action (tried and taken back) after which the player stands best, ties by chance."""
    actions: list[Action] = state.legal_actions()
    if state.pos.phase is not Phase.PLAY:
        return rng.choice(actions)
    for action in actions:
        if isinstance(action, MoveWagon) and action.to == GOAL:
            return action
    board: Board = state.board
    seat: int = state.pos.seat
    colour = state.colour(seat)
    now = standing(board, state.pos, seat, colour)
    best: list[Action] = []
    best_score = float("-inf")
    for action in actions:
        with state.applied([action]):
            score = standing(board, state.pos, seat, colour)
        if isinstance(action, EndTurn):
            score = now + 0.1  # stop when nothing else helps
        if score > best_score:
            best, best_score = [action], score
        elif score == best_score:
            best.append(action)
    return rng.choice(best)
