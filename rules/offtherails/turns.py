"""Setup and the order of play: sides, turns and their phases, missions claimed, the game's end."""

from __future__ import annotations

from rules.offtherails.components import COLOURS, NO_GEMS, Die, Side
from rules.offtherails.missions import Mission, TurnRecord
from rules.offtherails.movement import derail, start_move_phase
from rules.offtherails.settings import Settings
from rules.offtherails.tabletop import Cart, CartStatus, Phase, Tabletop, claimable, tokens_in_play
from rules.said import spoken

# ------------------------------------------------------------------------------ setup


def new_tabletop(settings: Settings) -> Tabletop:
    """The table before the first decision: supplies full, deck counted, nothing placed."""
    board, components = settings.board, settings.components
    players = settings.players
    squares = len(board.names)
    chasm_tokens = components.chasm_tokens_per_colour - (0 if settings.solo else 1)
    tabletop = Tabletop(
        settings=settings,
        phase=Phase.CHOOSE_SIDE,
        sides=[None] * players,
        tiles=[None] * squares,
        jewels=[NO_GEMS] * squares,
        chasm=[None] * squares,
        carts={},
        stockpiles=[NO_GEMS] * players,
        delivered={colour: NO_GEMS for colour in COLOURS},
        claimed=[()] * players,
        bag=components.gems,
        tile_supply=dict(components.tiles),
        chasm_supply={colour: chasm_tokens for colour in COLOURS},
        seen={colour: frozenset() for colour in COLOURS},
    )
    if settings.solo:
        tabletop.bag = components.solo_gems
        for colour in COLOURS:
            tabletop.carts[colour.value] = Cart(colour.value, 0, colour, None)
        tabletop.gem_queue = tuple(sq for colour in COLOURS for sq in board.mines[colour].squares)
        tabletop.phase = Phase.SOLO_GEMS
        tabletop.deck_left = len(COLOURS) * components.deposit_numbers
        tabletop.chasm_open = True
    else:
        total = settings.deposit_cards or (21 if players == 4 else 17)
        tabletop.deck_left = total - 1
        tabletop.missions_to_deal = players + 1
    return tabletop


def choose_side(tabletop: Tabletop, first: Side) -> None:
    """The first player's side; the second player sits opposite."""
    tabletop.sides[0] = first
    tabletop.sides[1] = first.opposite
    if tabletop.players >= 3:
        tabletop.phase = Phase.ASSIGN_SIDE
    else:
        _sides_done(tabletop)


def assign_side(tabletop: Tabletop, side: Side) -> None:
    """The third player's side, drawn at random; a fourth sits opposite."""
    tabletop.sides[2] = side
    if tabletop.players == 4:
        tabletop.sides[3] = side.opposite
    _sides_done(tabletop)


def _sides_done(tabletop: Tabletop) -> None:
    for seat, side in enumerate(tabletop.sides):
        assert side is not None
        colour = tabletop.board.sides[side].colour
        for die in Die:
            name = f"{colour.value}-{die.value}"
            tabletop.carts[name] = Cart(name, seat, colour, die)
    tabletop.phase = Phase.DEAL_MISSIONS


def deal_mission(tabletop: Tabletop, mission: Mission) -> None:
    tabletop.missions_open += (mission,)
    if len(tabletop.missions_open) == tabletop.missions_to_deal:
        tabletop.phase = Phase.STARTING_DEPOSITS
        tabletop.reveal_queue = COLOURS


# ------------------------------------------------------------------------------ turns


def start_turn(tabletop: Tabletop, seat: int) -> None:
    tabletop.phase = Phase.ACTIONS
    tabletop.active = seat
    tabletop.actions_left = tabletop.components.actions_per_turn
    tabletop.record = TurnRecord()
    tabletop.claimed_this_turn = False
    tabletop.move = None


def next_turn(tabletop: Tabletop) -> None:
    """The next player's turn, or the chasm deck's reveal once the final turns are played."""
    if tabletop.chasm_card_drawn_by is not None and not tabletop.chasm_open:
        if tabletop.final_turns_left == 0:
            tabletop.phase = Phase.CHASM_REVEAL
            tabletop.reveal_queue = COLOURS
            return
        tabletop.final_turns_left -= 1
    tabletop.turn += 1
    start_turn(tabletop, (tabletop.active + 1) % tabletop.players)


def action_used(tabletop: Tabletop) -> None:
    """One of the turn's actions is spent; after the last the minecarts move."""
    tabletop.actions_left -= 1
    if tabletop.actions_left == 0:
        end_actions(tabletop)


def end_actions(tabletop: Tabletop) -> None:
    if start_move_phase(tabletop):
        after_move(tabletop)


def after_move(tabletop: Tabletop) -> None:
    """Every minecart has moved: a completed mission may be claimed (one is taken at once)."""
    tabletop.phase = Phase.CLAIM
    missions = claimable(tabletop)
    if len(missions) == 1:
        claim(tabletop, missions[0])
    elif not missions:
        _end_turn_phase(tabletop)


def claim(tabletop: Tabletop, mission: Mission) -> None:
    seat = tabletop.active
    tabletop.missions_open = tuple(m for m in tabletop.missions_open if m is not mission)
    tabletop.claimed[seat] = tabletop.claimed[seat] + (mission,)
    tabletop.claimed_this_turn = True
    _end_turn_phase(tabletop)


def _end_turn_phase(tabletop: Tabletop) -> None:
    """After moving and claiming: the deposits phase, or the chasm phase that replaces it."""
    if tabletop.solo:
        tabletop.phase = Phase.DEPOSIT
        tabletop.solo_reveals_left = 4 if tabletop.turn == 1 else 1
        tabletop.solo_chasm_card_out = False
        if tabletop.deck_left == 0:
            check_end(tabletop)
    elif tabletop.chasm_open:
        tabletop.phase = Phase.CHASM_DRAW
    elif tabletop.deck_left == 0 and not tabletop.chasm_card_in_deck:
        next_turn(tabletop)
    else:
        tabletop.phase = Phase.DEPOSIT


# ------------------------------------------------------------------------------ the end


def check_end(tabletop: Tabletop) -> bool:
    """End the game if it is over; True if it is."""
    on_board = any(cart.on_board for cart in tabletop.carts.values())
    if tabletop.solo:
        total = len(COLOURS) * tabletop.components.chasm_tokens_per_colour
        if tokens_in_play(tabletop) >= total:
            return _end(tabletop, spoken("all chasm tokens are on the board"))
        if all(cart.status is CartStatus.LOST for cart in tabletop.carts.values()):
            return _end(tabletop, spoken("every minecart is derailed"))
        if tabletop.deck_left == 0:
            return _end(tabletop, spoken("the deposit deck is spent"))
        return False
    if sum(tabletop.chasm_supply.values()) == 0:
        return _end(tabletop, spoken("all chasm tokens have been placed"))
    if not on_board:
        return _end(tabletop, spoken("all minecarts have left the board"))
    return False


def _end(tabletop: Tabletop, reason: str) -> bool:
    for cart in list(tabletop.carts.values()):
        if cart.on_board:
            derail(tabletop, cart)  # still on the board at the end: derailed
    tabletop.phase = Phase.OVER
    tabletop.end_reason = reason
    tabletop.move = None
    return True
