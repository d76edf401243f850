"""Candidate actions for the conformance test: what the JSON can spell near a state, legal or not.

Every action type, with every square near the tiles, carts and chasm tokens (and a few far ones),
every exit mask, gem, cart, mission, speed and pile, and every chance outcome's values: enough that
a disagreement between `is_legal` and `legal_actions` shows up.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from rules.core import Action
from rules.offtherails import actions
from rules.offtherails.components import (
    COLOURS,
    GEM_BY_INDEX,
    SIDES,
    Direction,
    Gem,
    exits_text,
)
from rules.offtherails.missions import MISSIONS
from rules.offtherails.state import OffTheRails

ALL_MASKS = tuple(range(1, 16))


def near_squares(state: OffTheRails) -> list[int]:
    """Squares with a tile, cart or chasm token, their neighbours, starting tracks, mine centres
    and the four corners."""
    board = state.board
    squares: set[int] = set(board.mine_centres) | set(board.starting_track_exits)
    last = len(board.names) - 1
    squares |= {0, board.columns - 1, last - board.columns + 1, last}
    marked = [
        sq
        for sq in range(len(board.names))
        if state.tile(sq) is not None or state.chasm(sq) is not None
    ]
    marked += [cart.square for cart in state.carts() if cart.square >= 0]
    for square in marked:
        squares.add(square)
        squares.update(n for n in board.neighbours[square] if n is not None)
    return sorted(squares)


def candidates(state: OffTheRails) -> Iterator[Action]:
    """Every action of every type near the current state, most of them illegal."""
    board = state.board
    names = [board.names[square] for square in near_squares(state)]
    edges = [board.names[square] for square in sorted(board.side_of_square)]
    carts = [cart.name for cart in state.carts()]
    yield from (actions.ChooseSide(side) for side in SIDES)
    for name in names:
        for mask in ALL_MASKS:
            yield actions.PlaceTile(name, exits_text(mask))
            yield actions.Upgrade(name, exits_text(mask))
        yield actions.PlaceChasm(name)
    for name in sorted(set(names) | set(edges)):
        yield from (actions.PlaceCart(cart, name) for cart in carts)
    for cart in carts:
        yield from (actions.SetSpeed(cart, speed) for speed in range(0, 8))
        yield actions.MoveFirst(cart)
    yield actions.EndActions()
    yield from (actions.Route(exit) for exit in Direction)
    yield from (actions.TakeJewel(gem) for gem in Gem)
    yield from _splits(state)
    yield from (actions.DropPile(pile) for pile in range(0, 4))
    yield from (actions.ClaimMission(mission) for mission in MISSIONS)
    # chance outcomes
    yield from (actions.AssignSide(side) for side in SIDES)
    yield from (actions.DealMission(mission) for mission in MISSIONS)
    for colour in COLOURS:
        yield from (actions.RevealDeposit(colour, number) for number in range(0, 10))
        yield actions.DrawChasmToken(colour)
    yield actions.RevealChasmCard()
    yield from (actions.DrawGem(gem) for gem in Gem)
    yield from (actions.RollChasmDie(number) for number in range(0, 10))


def _splits(state: OffTheRails) -> Iterator[Action]:
    """Every pile of up to 5 jewels drawn from the hit cart's hold plus one more of each gem."""
    move = state.move
    hold = state.cart(move.hit).hold if move is not None and move.hit else (1, 1, 1, 1, 1)
    pool = [GEM_BY_INDEX[i] for i in range(5) for _ in range(hold[i])] + list(Gem)
    seen: set[tuple[Gem, ...]] = set()
    for size in range(0, 6):
        for pile in itertools.combinations(pool, size):
            ordered = tuple(sorted(pile, key=lambda gem: gem.order))
            if ordered not in seen:
                seen.add(ordered)
                yield actions.Split(ordered)
