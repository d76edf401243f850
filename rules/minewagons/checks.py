"""The race's conservation laws: every tile and wagon accounted for, the centre kept clear."""

from __future__ import annotations

from rules.minewagons.components import SHAPES, Board, Colour, Setup
from rules.minewagons.position import Phase, Position


def broken_invariants(board: Board, setup: Setup, pos: Position) -> list[str]:
    """What does not add up now (empty when all is well)."""
    problems: list[str] = []
    for sq in board.printed:
        if pos.tiles[sq] is not None:
            problems.append(f"printed square {board.names[sq]} is covered")
    for seat, colour in enumerate(setup.seats):
        for shape in SHAPES:
            laid = sum(1 for t in pos.tiles if t and t.colour is colour and t.shape is shape)
            if laid + pos.to_place[seat].get(shape, 0) != setup.per_player.get(shape, 0):
                problems.append(f"{colour.value} {shape.value} tiles do not add up")
        on_board = sum(1 for c in pos.wagons.values() if c is colour)
        if on_board + pos.start[seat] + pos.goal[seat] != setup.wagons:
            problems.append(f"{colour.value} wagons do not add up")
        if min(pos.start[seat], pos.goal[seat]) < 0:
            problems.append(f"{colour.value} has a negative count of wagons")
    greens = [t for t in pos.tiles if t is not None and t.colour is Colour.GREEN]
    if len(greens) + pos.green_to_lay != sum(setup.green.values()):
        problems.append("green tiles do not add up")
    for shape in SHAPES:
        up = sum(1 for t in greens if t.shape is shape)
        if up + pos.face_down.get(shape, 0) != setup.green.get(shape, 0):
            problems.append(f"green {shape.value} tiles do not add up")
    if board.centre in pos.wagons:
        problems.append("a wagon occupies the central square")
    if pos.rock == board.centre and pos.rock_moved:
        problems.append("the Rock came back to the central square")
    if pos.rock is not None and pos.rock in pos.wagons:
        problems.append("the Rock and a wagon share a square")
    if pos.phase is Phase.PLAY and pos.rock is None:
        problems.append("the Rock is missing from the race")
    for sq in pos.wagons:
        if sq not in board.printed and pos.tiles[sq] is None:
            problems.append(f"a wagon stands on {board.names[sq]}, which has no tile")
    return problems
