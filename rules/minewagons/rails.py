"""Where a wagon or the Rock can get to along connected rails: the squares, its goal, its start.

A moving piece leaves its square by any side its rails reach, enters the next square by the side
facing it (which needs a rail there), and goes on by any side joined to that one. It stops before
an obstacle (a wagon, the Rock) and at a dead end; it may stop earlier on any square but the
centre. Leaving the board by a side (not an end) it comes back in on the same line at the far
side at once, if the rails and a free square let it.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from enum import IntEnum

from rules.minewagons.components import Board, Colour, Tile


class Edge(IntEnum):
    """What leaving the board by one edge means for the piece that moves."""

    WRAP = 0  # a side: come back in on the same line at the far side
    GOAL = 1  # the opposite end: the wagon has reached its goal
    HOME = 2  # the near end: back to the starting area
    DEAD = 3  # no way on (the Rock at an end)


EdgeRules = tuple[Edge, Edge, Edge, Edge]


@dataclass(frozen=True)
class Reach:
    """Where a piece may end its move: squares, and whether its goal or starting area is open."""

    stops: frozenset[int]
    goal: bool = False
    home: bool = False


def wagon_edges(board: Board, colour: Colour) -> EdgeRules:
    home = board.home_edge[colour]
    rules = [Edge.WRAP] * 4
    rules[home] = Edge.HOME
    rules[home.opposite] = Edge.GOAL
    return rules[0], rules[1], rules[2], rules[3]


def rock_edges(board: Board, mover: Colour) -> EdgeRules:
    """The Rock moves as a wagon of the player who moves it that can leave by neither end."""
    home = board.home_edge[mover]
    rules = [Edge.WRAP] * 4
    rules[home] = Edge.DEAD
    rules[home.opposite] = Edge.DEAD
    return rules[0], rules[1], rules[2], rules[3]


_BIT = (1, 2, 4, 8)
_OPPOSITE = (2, 3, 0, 1)
_SIDES_OF = tuple(tuple(side for side in range(4) if mask >> side & 1) for mask in range(16))


def reach(
    board: Board,
    tiles: Sequence[Tile | None],
    occupied: Container[int],
    origin: int,
    edges: EdgeRules,
) -> Reach:
    """Every stop of a piece on `origin`; `occupied` holds the squares with another piece.

    Plain ints inside (sides 0-3, their bits 1, 2, 4, 8): this runs for every wagon at every
    step of a random game.
    """
    stops: set[int] = set()
    seen = bytearray(len(tiles) * 4)  # square * 4 + the side it was entered by
    goal = home = False
    neighbour, wrap, centre, printed = board.neighbour, board.wrap, board.centre, board.printed
    todo: list[tuple[int, int]] = [(origin, board.exits_of(origin, tiles[origin]))]
    while todo:
        sq, leave = todo.pop()
        near = neighbour[sq]
        for side in _SIDES_OF[leave]:
            nxt = near[side]
            if nxt < 0:
                rule = edges[side]
                if rule is Edge.WRAP:
                    nxt = wrap[sq][side]
                elif rule is Edge.GOAL:
                    goal = True
                    continue
                elif rule is Edge.HOME:
                    home = True
                    continue
                else:
                    continue
            if nxt in occupied and nxt != origin:
                continue  # an obstacle: the move ends before it
            entry = _OPPOSITE[side]
            key = nxt * 4 + entry
            if seen[key]:
                continue
            rails = printed.get(nxt)
            if rails is not None:
                onward = rails[entry]
                if not onward:
                    continue  # no rail meets this side: a dead end
            else:
                tile = tiles[nxt]
                exits = tile.exits if tile is not None else 0
                if not exits & _BIT[entry]:
                    continue  # no rail meets this side: a dead end
                onward = exits & ~_BIT[entry]
            seen[key] = 1
            if nxt != centre:
                stops.add(nxt)
            todo.append((nxt, onward))
    stops.discard(origin)
    return Reach(frozenset(stops), goal, home)
