"""Deposits and the chasm: cards turned up, gems drawn onto mine squares, squares collapsing."""

from __future__ import annotations

from rules.offtherails.components import (
    NO_GEMS,
    Colour,
    Gem,
    gems_add,
    gems_one,
    gems_sub,
)
from rules.offtherails.movement import lose
from rules.offtherails.settings import SoloChasmCard
from rules.offtherails.tabletop import (
    Phase,
    Tabletop,
    chasm_targets,
    die_numbers,
    occupied,
)
from rules.offtherails.turns import check_end, next_turn, start_turn

# ------------------------------------------------------------------------------ deposits


def draw_gem(tabletop: Tabletop, gem: Gem) -> None:
    """A gem drawn from the bag lands on the next square waiting for one."""
    square = tabletop.gem_queue[0]
    tabletop.gem_queue = tabletop.gem_queue[1:]
    one = gems_one(gem)
    tabletop.bag = gems_sub(tabletop.bag, one)
    tabletop.jewels[square] = gems_add(tabletop.jewels[square], one)
    if not tabletop.gem_queue or sum(tabletop.bag) == 0:
        tabletop.gem_queue = ()
        _after_gems(tabletop)


def _after_gems(tabletop: Tabletop) -> None:
    match tabletop.phase:
        case Phase.SOLO_GEMS:
            start_turn(tabletop, 0)
        case Phase.STARTING_DEPOSITS:
            if not tabletop.reveal_queue:
                start_turn(tabletop, 0)
        case Phase.DEPOSIT:
            next_turn(tabletop)


def reveal_deposit(tabletop: Tabletop, colour: Colour, number: int) -> None:
    """A deposit card turned up: gems for its square, or (chasm reveal, solo) a collapse."""
    tabletop.seen = {**tabletop.seen, colour: tabletop.seen[colour] | {number}}
    tabletop.revealed = f"{colour.value}-{number}"
    square = tabletop.board.mines[colour].squares[number - 1]
    gems = tabletop.components.gems_per_deposit_number[number]
    match tabletop.phase:
        case Phase.STARTING_DEPOSITS:
            tabletop.reveal_queue = tabletop.reveal_queue[1:]
            _queue_gems(tabletop, square, gems)
        case Phase.CHASM_REVEAL:
            tabletop.reveal_queue = tabletop.reveal_queue[1:]
            collapse(tabletop, square, colour)
            if not tabletop.reveal_queue:
                tabletop.chasm_open = True
                if not check_end(tabletop):
                    next_turn(tabletop)
        case Phase.DEPOSIT if tabletop.solo:
            tabletop.deck_left -= 1
            if tabletop.settings.solo_chasm_card is SoloChasmCard.NO_TOKEN_THIS_TURN:
                # the phase's tokens go down together, unless the Chasm card comes up
                tabletop.solo_waiting += ((square, colour),)
            else:
                _solo_collapse(tabletop, square, colour)
            _solo_reveal_done(tabletop)
        case Phase.DEPOSIT:
            tabletop.deck_left -= 1
            pile = tabletop.pile_drawn if len(tabletop.pile_drawn) < 4 else frozenset()
            tabletop.pile_drawn = pile | {colour}
            _queue_gems(tabletop, square, gems)


def _queue_gems(tabletop: Tabletop, square: int, count: int) -> None:
    count = min(count, sum(tabletop.bag))
    tabletop.gem_queue = (square,) * count
    if not count:
        _after_gems(tabletop)


def reveal_chasm_card(tabletop: Tabletop) -> None:
    """The Chasm card: the final turns begin (solo: it places nothing and is shuffled back)."""
    tabletop.revealed = "chasm"
    if tabletop.solo:
        tabletop.solo_chasm_card_out = True
        _solo_reveal_done(tabletop)
        return
    tabletop.chasm_card_in_deck = False
    tabletop.chasm_card_drawn_by = tabletop.active
    tabletop.final_turns_left = tabletop.players
    next_turn(tabletop)


def _solo_collapse(tabletop: Tabletop, square: int, colour: Colour) -> None:
    """Solo: a revealed card's square collapses, if a chasm token of its colour is left."""
    if tabletop.chasm_supply[colour] > 0:
        tabletop.chasm_supply = {**tabletop.chasm_supply, colour: tabletop.chasm_supply[colour] - 1}
        collapse(tabletop, square, colour)


def _solo_reveal_done(tabletop: Tabletop) -> None:
    tabletop.solo_reveals_left -= 1
    phase_over = tabletop.solo_reveals_left <= 0 or tabletop.deck_left == 0
    if phase_over:
        # "If during the Deposits Phase the Chasm Card is revealed, do not place a Chasm Token
        # this turn" (only what waits: with `places_nothing` each card placed its own at once)
        if not tabletop.solo_chasm_card_out:
            for square, colour in tabletop.solo_waiting:
                _solo_collapse(tabletop, square, colour)
        tabletop.solo_waiting = ()
    if check_end(tabletop):
        return
    if phase_over:
        next_turn(tabletop)


# ------------------------------------------------------------------------------ the chasm


def draw_chasm_token(tabletop: Tabletop, colour: Colour) -> None:
    """Chasm phase: a token drawn from the supply, placed by die, choice, or necessity."""
    tabletop.chasm_supply = {**tabletop.chasm_supply, colour: tabletop.chasm_supply[colour] - 1}
    tabletop.chasm_token = colour
    if tabletop.settings.chasm_die and die_numbers(tabletop, colour):
        tabletop.phase = Phase.CHASM_DIE
        return
    targets = chasm_targets(tabletop)
    if len(targets) == 1:
        place_chasm_token(tabletop, targets[0])
    elif not targets:
        # nowhere next to its colour is free: the token is set aside, out of the game
        tabletop.chasm_token = None
        tabletop.tokens_set_aside += 1
        if not check_end(tabletop):
            next_turn(tabletop)
    else:
        tabletop.phase = Phase.CHASM_PLACE


def roll_chasm_die(tabletop: Tabletop, number: int) -> None:
    """Chasm die variant: the die names the mine square of the token's colour."""
    assert tabletop.chasm_token is not None
    place_chasm_token(tabletop, tabletop.board.mines[tabletop.chasm_token].squares[number - 1])


def place_chasm_token(tabletop: Tabletop, square: int) -> None:
    assert tabletop.chasm_token is not None
    collapse(tabletop, square, tabletop.chasm_token)
    tabletop.chasm_token = None
    if not check_end(tabletop):
        next_turn(tabletop)


def collapse(tabletop: Tabletop, square: int, colour: Colour) -> None:
    """A chasm token lands: tile, jewels and minecart there leave the game."""
    tabletop.chasm[square] = colour
    if tabletop.tiles[square] is not None:
        tabletop.tiles_removed += 1
    tabletop.tiles[square] = None
    tabletop.removed = gems_add(tabletop.removed, tabletop.jewels[square])
    tabletop.jewels[square] = NO_GEMS
    name = occupied(tabletop).get(square)
    if name is not None:
        lose(tabletop, tabletop.carts[name])
