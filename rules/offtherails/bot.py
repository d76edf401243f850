"""A simple Off the Rails bot: lays track ahead of its minecarts so they travel, pick up, collide.

It plays legal actions only (it picks from `legal_actions()`), so it serves the simulated table and
the conformance tests, which need games that reach collisions, pick-ups and exits.
"""

from __future__ import annotations

import random

from rules.core import Action
from rules.offtherails import actions as act
from rules.offtherails.components import Direction, exits_mask, mask_directions
from rules.offtherails.state import CartStatus, OffTheRails, Phase


def track_ends(state: OffTheRails) -> list[tuple[int, Direction]]:
    """For each own cart on the board, the first empty square on its way and the side entered."""
    board = state.board
    ends = []
    for cart in state.carts():
        if cart.owner != state.active or cart.status is not CartStatus.ON_BOARD:
            continue
        square, heading = cart.square, cart.heading
        for _ in range(12):
            exits = mask_directions(state.track_exits(square))
            ahead = [exit for exit in exits if exit != heading.opposite]
            if not ahead:
                break
            exit = ahead[0]
            beyond = board.neighbours[square][exit]
            if beyond is None or beyond in board.surface or state.chasm(beyond) is not None:
                break
            tile = state.tile(beyond)
            if tile is None:
                if beyond in board.placeable:
                    ends.append((beyond, exit.opposite))
                break
            if not tile.mask & exit.opposite.bit:
                break
            square, heading = beyond, exit
    return ends


def bot_action(state: OffTheRails, rng: random.Random) -> Action:
    """A plausible legal action for the player to act (never a chance outcome).

    In the action phase it asks for the legal actions by kind (`OffTheRails.action_groups`), not
    for all of them to sort out: the same choices, drawn the same way, several times faster."""
    if state.phase is not Phase.ACTIONS:
        return rng.choice(state.legal_actions())
    groups = state.action_groups()
    if groups.carts and rng.random() < 0.6:
        return rng.choice(groups.carts)
    ends = track_ends(state)
    if ends and rng.random() < 0.85:
        sq, entry = rng.choice(ends)
        fitting = fitting_tiles(state.placings_at(sq), entry)
        if fitting:
            return rng.choice(fitting)
    if groups.speeds and rng.random() < 0.2:
        return rng.choice(groups.speeds)
    if groups.upgrades and rng.random() < 0.1:
        return rng.choice(groups.upgrades)
    if rng.random() < 0.3:
        return act.EndActions()
    if groups.placings:
        return rng.choice(groups.placings)
    return rng.choice(state.legal_actions())


def fitting_tiles(placings: tuple[act.PlaceTile, ...], entry: Direction) -> list[Action]:
    """The tile placements (on one square) with an exit on its side `entry`."""
    return [action for action in placings if exits_mask(action.exits) & entry.bit]
