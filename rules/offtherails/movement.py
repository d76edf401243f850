"""The move phase: minecarts travel, pick up jewels, collide, derail, fall, or leave the mine.

Each entry point carries the move on as far as it can and returns True once every minecart of the
active player has moved (the turn then goes on to missions), False while a decision is awaited.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from enum import StrEnum

from rules.offtherails.components import (
    GEM_BY_INDEX,
    NO_GEMS,
    PRECIOUS,
    Direction,
    Gem,
    Gems,
    Side,
    gems_add,
    gems_one,
    gems_sub,
)
from rules.offtherails.settings import BumperHeadOn, CollisionOnDeposit, EndOnDeposit
from rules.offtherails.tabletop import (
    Cart,
    CartStatus,
    Move,
    Pending,
    Phase,
    Tabletop,
    exits_ahead,
    occupied,
    own_carts,
    track_mask,
    ways_on,
)


class _Step(StrEnum):
    """How one square's travel ended."""

    MOVED = "moved"
    STOPPED = "stopped"
    WAIT = "wait"


# ------------------------------------------------------------------------------ the phase


def start_move_phase(tabletop: Tabletop) -> bool:
    """Every own minecart on the board moves, the player choosing the order."""
    tabletop.phase = Phase.MOVE
    carts = tuple(sorted(cart.name for cart in own_carts(tabletop) if cart.on_board))
    tabletop.move = Move(to_move=carts)
    return _next_cart(tabletop)


def move_first(tabletop: Tabletop, name: str) -> bool:
    """The player chose which minecart moves next."""
    return _start_cart(tabletop, name)


def route(tabletop: Tabletop, exit: Direction) -> bool:
    """At a junction, the moving cart leaves by `exit`."""
    tabletop.move = replace(tabletop.moving, pending=Pending.NONE)
    if _step(tabletop, exit) is _Step.WAIT:
        return False
    return _carry_on(tabletop)


def take_jewel(tabletop: Tabletop, gem: Gem) -> bool:
    """The player chose which jewel the cart picks up."""
    _take(tabletop, gem)
    move = tabletop.moving
    tabletop.move = replace(move, take_left=move.take_left - 1, pending=Pending.NONE)
    if _pickup_rest(tabletop) is _Step.WAIT:
        return False
    return _carry_on(tabletop)


def split(tabletop: Tabletop, pile: Gems) -> bool:
    """The hit cart's owner split its jewels; `pile` is pile 1."""
    tabletop.move = replace(tabletop.moving, pile=pile, pending=Pending.NONE)
    _after_split(tabletop)
    if tabletop.moving.pending is not Pending.NONE:
        return False
    return _carry_on(tabletop)


def drop_pile(tabletop: Tabletop, number: int) -> bool:
    """The moving player chose which hidden pile (1 or 2) the hit cart drops."""
    move = tabletop.moving
    assert move.pile is not None
    other = gems_sub(tabletop.carts[move.hit].hold, move.pile)
    _finish_collision(tabletop, move.pile if number == 1 else other)
    return _carry_on(tabletop)


def split_size(hold: Gems) -> int:
    """Pile 1 of a split: half the jewels, rounded up."""
    return (sum(hold) + 1) // 2


def splits(hold: Gems) -> list[Gems]:
    """Every pile 1 a hold of jewels can be split into."""
    size = split_size(hold)
    ranges = [range(min(count, size) + 1) for count in hold]
    piles: list[Gems] = []
    for rock, ruby, emerald, gold, diamond in itertools.product(*ranges):
        if rock + ruby + emerald + gold + diamond == size:
            piles.append((rock, ruby, emerald, gold, diamond))
    return piles


# ------------------------------------------------------------------------------ travelling


def _next_cart(tabletop: Tabletop) -> bool:
    move = tabletop.moving
    to_move = tuple(name for name in move.to_move if tabletop.carts[name].on_board)
    tabletop.move = Move(to_move=to_move)
    if not to_move:
        tabletop.move = None
        return True
    if len(to_move) == 1:
        return _start_cart(tabletop, to_move[0])
    tabletop.move = replace(tabletop.move, pending=Pending.CHOOSE_CART)
    return False


def _start_cart(tabletop: Tabletop, name: str) -> bool:
    rest = tuple(other for other in tabletop.moving.to_move if other != name)
    tabletop.move = Move(to_move=rest, cart=name, remaining=tabletop.carts[name].speed)
    return _carry_on(tabletop)


def _carry_on(tabletop: Tabletop) -> bool:
    """Move the current cart on until its move ends or a decision is needed."""
    while True:
        move = tabletop.moving
        cart = tabletop.carts[move.cart]
        if move.remaining <= 0 or not cart.on_board:
            if move.end_pickup and cart.on_board:
                tabletop.move = replace(move, end_pickup=False)
                if _pickup(tabletop, cart.square, _Pickup.STOPPED) is _Step.WAIT:
                    return False
            return _next_cart(tabletop)
        ways = ways_on(tabletop, cart)
        if len(ways) > 1:
            tabletop.move = replace(move, pending=Pending.ROUTE)
            return False
        if not ways:
            derail(tabletop, cart)
            continue
        if _step(tabletop, ways[0]) is _Step.WAIT:
            return False


def _stop(tabletop: Tabletop) -> _Step:
    tabletop.move = replace(tabletop.moving, remaining=0)
    return _Step.STOPPED


def _step(tabletop: Tabletop, exit: Direction) -> _Step:
    """The moving cart leaves its square by `exit`."""
    board = tabletop.board
    move = tabletop.moving
    cart = tabletop.carts[move.cart]
    beyond = board.neighbours[cart.square][exit]
    if beyond is None:  # off the board's edge from a surface track: out of the mine
        leave_mine(tabletop, cart, board.side_of_square[cart.square])
        return _stop(tabletop)
    other = occupied(tabletop).get(beyond)
    if other is not None:
        return _collide(tabletop, cart, tabletop.carts[other], exit)
    if tabletop.chasm[beyond] is not None:
        lose(tabletop, cart)
        return _stop(tabletop)
    if beyond in board.surface:
        if board.starting_track_exits.get(beyond, 0) & exit.opposite.bit:
            leave_mine(tabletop, cart, board.side_of_square[beyond])
        else:
            derail(tabletop, cart)  # a surface square without track
        return _stop(tabletop)
    tile = tabletop.tiles[beyond]
    if tile is None or not tile.mask & exit.opposite.bit:
        derail(tabletop, cart)  # no connected track to move onto
        return _stop(tabletop)
    remaining = move.remaining - 1
    tabletop.carts[cart.name] = replace(cart, square=beyond, heading=exit)
    tabletop.move = replace(move, remaining=remaining)
    return _pickup(tabletop, beyond, _Pickup.PASSING if remaining > 0 else _Pickup.ENDING)


# ------------------------------------------------------------------------------ picking up


class _Pickup(StrEnum):
    """Why a cart picks up on a deposit: passing through, ending its move there, or stopped
    there by a collision after taking one jewel on the way in."""

    PASSING = "passing"
    ENDING = "ending"
    STOPPED = "stopped"


def _pickup(tabletop: Tabletop, square: int, why: _Pickup) -> _Step:
    deposit = tabletop.jewels[square]
    move = tabletop.moving
    cart = tabletop.carts[move.cart]
    room = tabletop.components.hold_capacity - sum(cart.hold)
    if not sum(deposit) or room <= 0:
        return _Step.MOVED
    if why is _Pickup.PASSING:
        amount = 1
    elif tabletop.settings.end_on_deposit is EndOnDeposit.FILL:
        amount = room
    else:  # two gems, one of them perhaps taken already on the way in
        amount = 2 if why is _Pickup.ENDING else 1
    amount = min(amount, room, sum(deposit))
    rocks = min(deposit[Gem.ROCK.order], amount)
    for _ in range(rocks):
        _take(tabletop, Gem.ROCK)
    tabletop.move = replace(tabletop.moving, take_left=amount - rocks)
    return _pickup_rest(tabletop)


def _pickup_rest(tabletop: Tabletop) -> _Step:
    """Take the jewels still owed here; ask the player when there is a real choice."""
    move = tabletop.moving
    square = tabletop.carts[move.cart].square
    while move.take_left > 0:
        deposit = tabletop.jewels[square]
        kinds = [gem for gem in PRECIOUS if deposit[gem.order] > 0]
        if not kinds:
            break
        if len(kinds) > 1 and move.take_left < sum(deposit):
            tabletop.move = replace(move, pending=Pending.TAKE_JEWEL)
            return _Step.WAIT
        _take(tabletop, kinds[0])
        move = replace(move, take_left=move.take_left - 1)
        tabletop.move = move
    tabletop.move = replace(move, take_left=0)
    return _Step.MOVED


def _take(tabletop: Tabletop, gem: Gem) -> None:
    cart = tabletop.carts[tabletop.moving.cart]
    one = gems_one(gem)
    tabletop.jewels[cart.square] = gems_sub(tabletop.jewels[cart.square], one)
    hold = gems_add(cart.hold, one)
    tabletop.carts[cart.name] = replace(cart, hold=hold)
    if sum(hold) >= tabletop.components.hold_capacity and hold[Gem.ROCK.order] == 0:
        tabletop.record = replace(tabletop.record, filled_with_precious=True)


# ------------------------------------------------------------------------------ collisions


def faces(tabletop: Tabletop, cart: Cart, toward: Direction) -> bool:
    """Whether `cart` is heading at its neighbour in direction `toward` (for head-on)."""
    ahead = exits_ahead(tabletop, cart)
    if len(ahead) == 1:
        return ahead[0] is toward
    return cart.heading is toward and toward in ahead


def _collide(tabletop: Tabletop, mover: Cart, hit: Cart, exit: Direction) -> _Step:
    settings = tabletop.settings
    connected = bool(track_mask(tabletop, hit.square) & exit.opposite.bit)
    head_on = connected and faces(tabletop, hit, exit.opposite)
    if head_on and hit.owner != tabletop.active:  # Head to Head asks for an opponent's cart
        tabletop.record = replace(tabletop.record, head_on=True)
    move = tabletop.moving
    # "When an active minecart causes a collision it ends its movement immediately": on a
    # square it entered this move (it has used some speed), it picks up as at any move's end.
    ends_move = settings.collision_on_deposit is CollisionOnDeposit.ENDS_MOVE
    tabletop.move = replace(
        move,
        remaining=0,
        end_pickup=ends_move and move.remaining < mover.speed,
        hit=hit.name,
        direction=exit,
        head_on=head_on,
        mover_was_empty=sum(mover.hold) == 0,
        hit_was_empty=sum(hit.hold) == 0,
    )
    # Bumper carts: "Collisions no longer cause Minecarts to drop Jewels or derail. Head on
    # collisions resolve as normal."
    bumped = settings.bumper_carts and not (
        head_on and settings.bumper_head_on is BumperHeadOn.NORMAL
    )
    if not connected or bumped:  # unconnected: no drop, no derailment, the mover turns
        _turn_after_collision(tabletop)
        return _Step.STOPPED
    if sum(hit.hold) == 0:
        _finish_collision(tabletop, NO_GEMS)
        return _Step.STOPPED
    kinds = [i for i in range(5) if hit.hold[i]]
    drop = split_size(hit.hold)
    tabletop.move = replace(tabletop.moving, drop=drop)
    if len(kinds) == 1:
        only = GEM_BY_INDEX[kinds[0]]
        tabletop.move = replace(tabletop.moving, pile=gems_one(only, drop))
        _after_split(tabletop)
    else:
        tabletop.move = replace(tabletop.moving, pending=Pending.SPLIT)
    return _Step.WAIT if tabletop.moving.pending is not Pending.NONE else _Step.STOPPED


def _after_split(tabletop: Tabletop) -> None:
    move = tabletop.moving
    assert move.pile is not None
    rest = gems_sub(tabletop.carts[move.hit].hold, move.pile)
    if sum(move.pile) != sum(rest) or move.pile == rest:
        _finish_collision(tabletop, move.pile)  # odd: the larger pile drops, half rounded up
    else:
        tabletop.move = replace(move, pending=Pending.DROP_PILE)


def _finish_collision(tabletop: Tabletop, dropped: Gems) -> None:
    move = tabletop.moving
    hit = tabletop.carts[move.hit]
    opponent = hit.owner != tabletop.active
    if sum(dropped):
        tabletop.jewels[hit.square] = gems_add(tabletop.jewels[hit.square], dropped)
        tabletop.carts[hit.name] = replace(hit, hold=gems_sub(hit.hold, dropped))
        if opponent:
            tabletop.record = replace(tabletop.record, made_opponent_drop=True)
    tabletop.move = replace(move, pending=Pending.NONE, pile=None)
    _turn_after_collision(tabletop)
    if move.mover_was_empty:
        derail(tabletop, tabletop.carts[move.cart])
    if move.hit_was_empty:
        derail(tabletop, tabletop.carts[move.hit])
        if opponent:
            tabletop.record = replace(tabletop.record, derailed_opponent=True)


def _turn_after_collision(tabletop: Tabletop) -> None:
    move = tabletop.moving
    mover = tabletop.carts[move.cart]
    tabletop.carts[mover.name] = replace(mover, heading=move.direction.opposite)
    if move.head_on:
        hit = tabletop.carts[move.hit]
        tabletop.carts[hit.name] = replace(hit, heading=move.direction)


# ------------------------------------------------------------------------------ leaving the board


def _off_board(tabletop: Tabletop, cart: Cart, status: CartStatus, derailed: bool) -> None:
    tabletop.carts[cart.name] = replace(
        cart, square=-1, hold=NO_GEMS, status=status, derailed=derailed
    )


def leave_mine(tabletop: Tabletop, cart: Cart, side: Side) -> None:
    """The cart drives out of the mine on `side`: its hold goes to its owner's stockpile."""
    haul = cart.hold
    tabletop.stockpiles[cart.owner] = gems_add(tabletop.stockpiles[cart.owner], haul)
    colour = tabletop.board.sides[side].colour
    tabletop.delivered = {**tabletop.delivered, colour: gems_add(tabletop.delivered[colour], haul)}
    owner_of_side = next((seat for seat, s in enumerate(tabletop.sides) if s is side), None)
    record = tabletop.record.with_haul(haul)
    if sum(haul) and owner_of_side is not None and owner_of_side != cart.owner:
        record = replace(record, left_from_opponent_surface=True)
    tabletop.record = record
    _off_board(tabletop, cart, CartStatus.SUPPLY, derailed=False)


def derail(tabletop: Tabletop, cart: Cart) -> None:
    """Jewels back to the bag; the cart to its owner's supply (solo: out of the game)."""
    tabletop.bag = gems_add(tabletop.bag, cart.hold)
    status = CartStatus.LOST if tabletop.solo else CartStatus.SUPPLY
    _off_board(tabletop, cart, status, derailed=True)


def lose(tabletop: Tabletop, cart: Cart) -> None:
    """The chasm takes the cart and its jewels out of the game."""
    tabletop.removed = gems_add(tabletop.removed, cart.hold)
    _off_board(tabletop, cart, CartStatus.LOST, derailed=True)
