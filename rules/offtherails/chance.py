"""Chance in Off the Rails: every outcome possible now, with its probability.

No hidden order is kept: a face-down card is uniform among the cards not yet seen, so the same
engine serves a digital deck (a seeded draw) and a physical one (a card observed face up).
"""

from __future__ import annotations

import functools

from rules.core import Action
from rules.offtherails import actions
from rules.offtherails.components import COLOURS, GEM_BY_INDEX, SIDES, Colour
from rules.offtherails.missions import MISSIONS
from rules.offtherails.tabletop import Phase, Tabletop, die_numbers, unseen

_DRAW_GEM = tuple(actions.DrawGem(gem) for gem in GEM_BY_INDEX)  # by `Gem.order`


@functools.cache
def _reveal(colour: Colour, number: int) -> actions.RevealDeposit:
    """A deposit card turned up, made once (actions are frozen values)."""
    return actions.RevealDeposit(colour, number)


def chance_outcomes(tabletop: Tabletop) -> list[tuple[Action, float]]:
    """At a chance step, each outcome with its probability (the caller checks it is one)."""
    if tabletop.gem_queue:
        bag = tabletop.bag
        total = sum(bag)
        return [(_DRAW_GEM[i], bag[i] / total) for i in range(5) if bag[i]]
    match tabletop.phase:
        case Phase.ASSIGN_SIDE:
            free = [side for side in SIDES if side not in tabletop.sides]
            return [(actions.AssignSide(side), 1 / len(free)) for side in free]
        case Phase.DEAL_MISSIONS:
            left = [m for m in MISSIONS if m not in tabletop.missions_open]
            return [(actions.DealMission(mission), 1 / len(left)) for mission in left]
        case Phase.STARTING_DEPOSITS | Phase.CHASM_REVEAL:
            colour = tabletop.reveal_queue[0]
            numbers = unseen(tabletop, colour)
            return [(_reveal(colour, k), 1 / len(numbers)) for k in numbers]
        case Phase.DEPOSIT:
            return _solo_deck(tabletop) if tabletop.solo else _deposit_deck(tabletop)
        case Phase.CHASM_DRAW:
            supply = tabletop.chasm_supply
            total = sum(supply.values())
            return [
                (actions.DrawChasmToken(colour), supply[colour] / total)
                for colour in COLOURS
                if supply[colour] > 0
            ]
        case Phase.CHASM_DIE:
            assert tabletop.chasm_token is not None
            numbers = die_numbers(tabletop, tabletop.chasm_token)
            return [(actions.RollChasmDie(k), 1 / len(numbers)) for k in numbers]
    raise AssertionError(tabletop.phase)


def _solo_deck(tabletop: Tabletop) -> list[tuple[Action, float]]:
    # The Chasm card goes back into the deck after the phase, so it shows at most once among
    # the first phase's four cards.
    cards = [(colour, k) for colour in COLOURS for k in unseen(tabletop, colour)]
    chasm = 0 if tabletop.solo_chasm_card_out else 1
    total = len(cards) + chasm
    out: list[tuple[Action, float]] = [(actions.RevealChasmCard(), 1 / total)] if chasm else []
    return out + [(_reveal(colour, k), 1 / total) for colour, k in cards]


def _deposit_deck(tabletop: Tabletop) -> list[tuple[Action, float]]:
    left = tabletop.deck_left + (1 if tabletop.chasm_card_in_deck else 0)
    p_chasm = 0.0
    if tabletop.chasm_card_in_deck:
        # The Chasm card lies 5th to 8th from the bottom, each equally likely; it has not come
        # up yet, so it is on top with probability 1 / (positions still possible).
        possible = [position for position in (5, 6, 7, 8) if position <= left]
        if left in possible:
            p_chasm = 1 / len(possible)
        elif not possible:  # only an edited state gets here: every card left is as likely
            p_chasm = 1 / left
    out: list[tuple[Action, float]] = []
    if p_chasm:
        out.append((actions.RevealChasmCard(), p_chasm))
    if tabletop.deck_left and p_chasm < 1:
        pile = tabletop.pile_drawn if len(tabletop.pile_drawn) < 4 else frozenset()
        colours = [c for c in COLOURS if c not in pile and unseen(tabletop, c)]
        for colour in colours:
            numbers = unseen(tabletop, colour)
            p = (1 - p_chasm) / len(colours) / len(numbers)
            out.extend((_reveal(colour, k), p) for k in numbers)
    return out
