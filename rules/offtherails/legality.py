"""What a player may do now: for each action, its generator and its "why not" side by side.

`legal_actions` lists every player action allowed now; `why_not` names the rule an action breaks,
in players' words, or None when it is allowed (the game's `State.why_not` for player actions; each
`_why_not_*` check gives the rule as text). The two must agree (the conformance test checks them
against each other over many candidate actions).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from rules.core import Action, MalformedAction, Why, may_explain
from rules.offtherails import actions
from rules.offtherails.components import (
    CORNER_MASKS,
    CROSS_MASK,
    GEM_BY_INDEX,
    PRECIOUS,
    SIDES,
    STRAIGHT_MASKS,
    T_MASKS,
    Board,
    Gem,
    Gems,
    Shape,
    TileKind,
    exits_mask,
    exits_text,
    shape_of,
)
from rules.offtherails.movement import split_size, splits
from rules.offtherails.settings import CartPlacement
from rules.offtherails.tabletop import (
    CartStatus,
    Pending,
    Phase,
    Tabletop,
    cart_squares,
    chasm_beyond,
    chasm_targets,
    claimable,
    exits_ahead,
    free_cart_squares,
    may_place_cart,
    occupied,
    own_cart,
    own_carts,
    ways_on,
)

_SHAPE_WORDS = {
    Shape.STRAIGHT: "straight",
    Shape.CORNER: "corner",
    Shape.T: "T-junction",
    Shape.CROSS: "cross",
}

_PENDING_WORDS = {
    Pending.NONE: "nothing",
    Pending.CHOOSE_CART: "the choice of which minecart moves next",
    Pending.ROUTE: "a route at a junction",
    Pending.TAKE_JEWEL: "the choice of a jewel to pick up",
    Pending.SPLIT: "the hit minecart's owner to split its jewels",
    Pending.DROP_PILE: "the choice of which pile is dropped",
}


def legal_actions(tabletop: Tabletop) -> list[Action]:
    """Every action the player to act may take now (not chance outcomes)."""
    match tabletop.phase:
        case Phase.CHOOSE_SIDE:
            return list(_choose_side_actions(tabletop))
        case Phase.ACTIONS:
            groups = action_groups(tabletop)
            return [
                *groups.placings,
                *groups.upgrades,
                *groups.speeds,
                *groups.carts,
                actions.EndActions(),
            ]
        case Phase.MOVE:
            generate = _MOVE_GENERATORS[tabletop.moving.pending]
            return list(generate(tabletop))
        case Phase.CLAIM:
            return list(_claim_actions(tabletop))
        case Phase.CHASM_PLACE:
            return list(_place_chasm_actions(tabletop))
    raise AssertionError(tabletop.phase)


def actions_naming(
    tabletop: Tabletop, changed: AbstractSet[str], known: AbstractSet[str]
) -> list[Action]:
    """`legal_actions` less the placements on squares of `known` outside `changed` (see
    `State.legal_actions_naming`): the action phase lists tiles on the squares asked for alone,
    not the 400-odd placements of the whole board."""
    if tabletop.phase is not Phase.ACTIONS:
        return [a for a in legal_actions(tabletop) if may_explain(a, changed, known)]
    names = tabletop.board.names
    squares = {i for i, name in enumerate(names) if name in changed or name not in known}
    placed, upgraded = _tile_actions(tabletop, squares)
    carts = [a for a in _place_cart_actions(tabletop) if may_explain(a, changed, known)]
    return [*placed, *upgraded, *_set_speed_actions(tabletop), *carts, actions.EndActions()]


def why_not(tabletop: Tabletop, action: Action) -> Why | None:
    """None if the player action is legal now, else the rule it breaks, in players' words."""
    rule = _RULES[type(action)]
    if tabletop.phase is not rule.phase:
        return Why(
            f"that is done in the {rule.phase.value} phase, not the {tabletop.phase.value} phase"
        )
    if rule.pending is not None and tabletop.moving.pending is not rule.pending:
        waiting, asked = _PENDING_WORDS[tabletop.moving.pending], _PENDING_WORDS[rule.pending]
        return Why(f"the move phase waits for {waiting}, not {asked}")
    try:
        broken = rule.why_not(tabletop, action)
    except ValueError as e:  # a square or cart that does not exist, named in the message
        return Why(str(e))
    return None if broken is None else Why(broken)


@functools.lru_cache(maxsize=4096)
def normalise(action: Action) -> Action:
    """Squares upper-case, carts lower-case, exits in N, E, S, W order, a pile in gem order.

    Cached: actions are frozen values, and the search normalises the same few again and again.
    """
    try:
        match action:
            case actions.PlaceTile(square=square, exits=exits):
                return actions.PlaceTile(square.upper(), exits_text(exits_mask(exits)))
            case actions.Upgrade(square=square, exits=exits):
                return actions.Upgrade(square.upper(), exits_text(exits_mask(exits)))
            case actions.PlaceCart(cart=cart, square=square):
                return actions.PlaceCart(cart.lower(), square.upper())
            case actions.PlaceChasm(square=square):
                return actions.PlaceChasm(square.upper())
            case actions.SetSpeed(cart=cart, speed=speed):
                return actions.SetSpeed(cart.lower(), speed)
            case actions.MoveFirst(cart=cart):
                return actions.MoveFirst(cart.lower())
            case actions.Split(pile=pile):
                return actions.Split(tuple(sorted(pile, key=lambda gem: gem.order)))
    except ValueError as e:
        raise MalformedAction(str(e), action) from None
    return action


# ------------------------------------------------------------------------------ setup


def _choose_side_actions(tabletop: Tabletop) -> list[Action]:
    return [actions.ChooseSide(side) for side in SIDES if side in tabletop.board.sides]


def _why_not_choose_side(tabletop: Tabletop, action: actions.ChooseSide) -> str | None:
    return None if action.side in tabletop.board.sides else f"the board has no {action.side} side"


# ------------------------------------------------------------------------------ action phase


@functools.cache
def _placements(board: Board) -> tuple[tuple[tuple[actions.PlaceTile, ...], ...], ...]:
    """Per square, the PlaceTile actions (straight ones, corner ones); built once per board."""
    out = []
    for square, name in enumerate(board.names):
        straights = tuple(actions.PlaceTile(name, exits_text(m)) for m in STRAIGHT_MASKS)
        corners = tuple(actions.PlaceTile(name, exits_text(m)) for m in CORNER_MASKS)
        out.append((straights, corners) if square in board.placeable else ((), ()))
    return tuple(out)


class ActionGroups:
    """The action phase's legal actions by kind, each in `legal_actions`' order (EndActions is
    always legal besides): for a bot or a search that weighs kinds, without sorting them out.
    Each kind is worked out when first asked for (a bot placing a minecart never needs the 400-odd
    tile placements), so read them before the game moves on."""

    def __init__(self, tabletop: Tabletop) -> None:
        self._tabletop = tabletop

    @functools.cached_property
    def _tiles(self) -> tuple[list[Action], list[Action]]:
        return _tile_actions(self._tabletop)

    @property
    def placings(self) -> list[Action]:
        return self._tiles[0]

    @property
    def upgrades(self) -> list[Action]:
        return self._tiles[1]

    @functools.cached_property
    def speeds(self) -> list[Action]:
        return _set_speed_actions(self._tabletop)

    @functools.cached_property
    def carts(self) -> list[Action]:
        return _place_cart_actions(self._tabletop)


def action_groups(tabletop: Tabletop) -> ActionGroups:
    """The action phase's legal actions by kind (call it in the action phase only)."""
    return ActionGroups(tabletop)


def placings_at(tabletop: Tabletop, square: int) -> tuple[actions.PlaceTile, ...]:
    """The legal PlaceTile actions on `square`, in `legal_actions`' order."""
    supply = tabletop.tile_supply
    straight_left = supply[TileKind.STRAIGHT_T] > 0
    corner_left = supply[TileKind.CORNER_T] > 0
    if tabletop.phase is not Phase.ACTIONS or not (straight_left or corner_left):
        return ()
    if tabletop.tiles[square] is not None or tabletop.chasm[square] is not None:
        return ()
    straights, corners = _placements(tabletop.board)[square]  # both () off the placeable squares
    if straight_left and corner_left:
        return straights + corners
    return straights if straight_left else corners


def _tile_actions(
    tabletop: Tabletop, only: AbstractSet[int] | None = None
) -> tuple[list[Action], list[Action]]:
    """The PlaceTile actions and the Upgrade ones: one pass over the squares for both (those
    of the squares `only`, if given)."""
    supply = tabletop.tile_supply
    straight_left = supply[TileKind.STRAIGHT_T] > 0
    corner_left = supply[TileKind.CORNER_T] > 0
    cross_left = supply[TileKind.T_CROSS] > 0
    which = 2 if straight_left and corner_left else 0 if straight_left else 1
    tiles, chasm = tabletop.tiles, tabletop.chasm
    taken = occupied(tabletop)
    placed: list[Action] = []
    upgraded: list[Action] = []
    rows, squares_of = _tile_table(tabletop.board)
    for (square, placings, upgrades), tile, gap in zip(
        rows, squares_of(tiles), squares_of(chasm), strict=True
    ):
        if only is not None and square not in only:
            continue
        if tile is None:
            if gap is None and (straight_left or corner_left):
                placed += placings[which]
        elif square not in taken:
            mask = tile.mask
            if cross_left or mask not in T_MASKS:
                upgraded += upgrades.get(mask, ())
    return placed, upgraded


_TileRow = tuple[
    int,
    tuple[tuple[actions.PlaceTile, ...], ...],
    dict[int, tuple[actions.Upgrade, ...]],
]


@functools.cache
def _tile_table(
    board: Board,
) -> tuple[tuple[_TileRow, ...], Callable[[list[Any]], tuple[Any, ...]]]:
    """Per placeable square: its PlaceTile actions (straight, corner, both) and its upgrades;
    and what picks the placeable squares' entries out of a per-square list, in that order."""
    placements = _placements(board)
    upgrades = _upgrade_table(board)
    rows = []
    for square in board.placeable:
        straights, corners = placements[square]
        rows.append((square, (straights, corners, straights + corners), upgrades[square]))
    return tuple(rows), _picker(board.placeable)


def _picker(squares: tuple[int, ...]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """A function giving `(seq[s] for s in squares)` as a tuple, in one C call."""
    if not squares:
        return lambda seq: ()
    if len(squares) == 1:
        (square,) = squares
        return lambda seq: (seq[square],)
    return operator.itemgetter(*squares)


def _why_not_place_tile(tabletop: Tabletop, action: actions.PlaceTile) -> str | None:
    board = tabletop.board
    square = board.index(action.square)
    shape = shape_of(exits_mask(action.exits))
    kind = {Shape.STRAIGHT: TileKind.STRAIGHT_T, Shape.CORNER: TileKind.CORNER_T}.get(shape)
    name = board.names[square]
    if kind is None:
        return (
            f"only a straight or corner tile may be placed, not a {_SHAPE_WORDS[shape]} "
            "(a T-junction or a cross comes only by upgrading a tile)"
        )
    if square in board.mine_centres:
        return f"tracks may not be placed on the centre square of a mine ({name})"
    if square in board.starting_track_exits:
        return f"{name} is a starting track printed on the surface; tiles go in the mine area"
    if square in board.surface:
        return f"{name} is on the surface, where no track is laid"
    if tabletop.chasm[square] is not None:
        return f"no track may be placed on a chasm space ({name})"
    if tabletop.tiles[square] is not None:
        return f"a track tile goes only on an empty square ({name} has one)"
    if tabletop.tile_supply[kind] == 0:
        return f"no {shape.value} tile left in the supply"
    return None


@functools.cache
def _upgrade_table(board: Board) -> tuple[dict[int, tuple[actions.Upgrade, ...]], ...]:
    """Per square, a tile's exits -> the Upgrade actions that add one exit; built once a board.

    A straight or corner becomes any T that keeps its exits, a T the cross (whose supply
    `_tile_actions` checks).
    """
    out: list[dict[int, tuple[actions.Upgrade, ...]]] = []
    for name in board.names:
        by_mask: dict[int, tuple[actions.Upgrade, ...]] = {}
        for mask in (*STRAIGHT_MASKS, *CORNER_MASKS):
            ts = (t for t in T_MASKS if t & mask == mask)
            by_mask[mask] = tuple(actions.Upgrade(name, exits_text(t)) for t in ts)
        for mask in T_MASKS:
            by_mask[mask] = (actions.Upgrade(name, exits_text(CROSS_MASK)),)
        out.append(by_mask)
    return tuple(out)


def _why_not_upgrade(tabletop: Tabletop, action: actions.Upgrade) -> str | None:
    board = tabletop.board
    square, mask = board.index(action.square), exits_mask(action.exits)
    name = board.names[square]
    tile = tabletop.tiles[square]
    if tile is None:
        if square in board.starting_track_exits:
            return f"{name}'s starting track is printed on the board and cannot be upgraded"
        if tabletop.chasm[square] is not None:
            return f"{name} has fallen into the chasm: there is no track tile to upgrade"
        return f"there is no track tile on {name} to upgrade"
    if square in occupied(tabletop):
        return f"a tile with a minecart on it cannot be upgraded ({name})"
    if mask & tile.mask != tile.mask:
        return (
            f"an upgrade must add to the tile's exits and never remove any "
            f"({name} has {exits_text(tile.mask)}, not all in {exits_text(mask)})"
        )
    if bin(mask).count("1") != bin(tile.mask).count("1") + 1:
        return (
            f"a straight or corner becomes a T, a T becomes a cross "
            f"({name}: {exits_text(tile.mask)} to {exits_text(mask)})"
        )
    if mask == CROSS_MASK and tabletop.tile_supply[TileKind.T_CROSS] == 0:
        return "no cross tile left in the supply"
    return None


def _set_speed_actions(tabletop: Tabletop) -> list[Action]:
    components = tabletop.components
    out: list[Action] = []
    for cart in own_carts(tabletop):
        if cart.on_board:
            for speed in (cart.speed - 1, cart.speed + 1):
                if components.speed_min <= speed <= components.speed_max:
                    out.append(actions.SetSpeed(cart.name, speed))
    return out


def _why_not_set_speed(tabletop: Tabletop, action: actions.SetSpeed) -> str | None:
    cart = own_cart(tabletop, action.cart)
    components = tabletop.components
    if not cart.on_board:
        return f"minecart {cart.name} is not on the board"
    if abs(action.speed - cart.speed) != 1:
        return f"speed changes by one: minecart {cart.name} is at {cart.speed}, not {action.speed}"
    if not components.speed_min <= action.speed <= components.speed_max:
        return (
            f"a speed die shows {components.speed_min} to {components.speed_max}, "
            f"not {action.speed}"
        )
    return None


def _place_cart_actions(tabletop: Tabletop) -> list[Action]:
    if not may_place_cart(tabletop):
        return []
    names = tabletop.board.names
    taken = occupied(tabletop)
    return [
        _place_cart(cart.name, names[square])
        for cart in own_carts(tabletop)
        if cart.status is CartStatus.SUPPLY
        for square in cart_squares(tabletop, cart)
        if square not in taken
    ]


@functools.cache
def _place_cart(cart: str, square: str) -> actions.PlaceCart:
    """One PlaceCart action, made once (actions are frozen values)."""
    return actions.PlaceCart(cart, square)


def _why_not_place_cart(tabletop: Tabletop, action: actions.PlaceCart) -> str | None:
    board = tabletop.board
    square = board.index(action.square)
    cart = own_cart(tabletop, action.cart)
    if cart.status is not CartStatus.SUPPLY:
        return f"minecart {cart.name} is not in your supply ({cart.status.value})"
    if not may_place_cart(tabletop):
        limit = tabletop.settings.cart_limit
        return f"a minecart may be placed only with fewer than {limit} on the board"
    free = free_cart_squares(tabletop, cart)
    if square in free:
        return None
    side = board.side_for_colour(cart.colour)
    there = occupied(tabletop).get(square)
    place = (
        "square of the Surface Layer"
        if tabletop.settings.cart_placement is CartPlacement.SURFACE
        else "starting track"
    )
    if there is not None and square in cart_squares(tabletop, cart):
        return f"{board.names[square]} is not a free {place}: minecart {there} is on it"
    where = ", ".join(board.names[t] for t in free) or "none"
    return (
        f"{board.names[square]} is not a free {place} on the {side.value} side of "
        f"minecart {cart.name} (free: {where})"
    )


def _why_not_end_actions(tabletop: Tabletop, action: actions.EndActions) -> str | None:
    return None


# ------------------------------------------------------------------------------ move phase


def _move_first_actions(tabletop: Tabletop) -> list[Action]:
    return [actions.MoveFirst(name) for name in tabletop.moving.to_move]


def _why_not_move_first(tabletop: Tabletop, action: actions.MoveFirst) -> str | None:
    to_move = tabletop.moving.to_move
    if action.cart in to_move:
        return None
    return f"minecart {action.cart} is not one of yours still to move ({', '.join(to_move)})"


def _route_actions(tabletop: Tabletop) -> list[Action]:
    cart = tabletop.carts[tabletop.moving.cart]
    return [actions.Route(exit) for exit in ways_on(tabletop, cart)]


def _why_not_route(tabletop: Tabletop, action: actions.Route) -> str | None:
    cart = tabletop.carts[tabletop.moving.cart]
    ways = ways_on(tabletop, cart)
    exit = action.exit
    if exit in ways:
        return None
    if exit is cart.heading.opposite:
        why = "that is the way it came in"
    elif exit in exits_ahead(tabletop, cart) and chasm_beyond(tabletop, cart.square, exit):
        why = "a chasm lies that way and another exit is open"
    else:
        why = f"the track there has no {exit.name} exit"
    square = tabletop.board.names[cart.square]
    options = " or ".join(way.name for way in ways)
    return (
        f"minecart {cart.name} on {square} cannot leave by {exit.name}: {why} "
        f"(it can leave by {options})"
    )


def _take_jewel_actions(tabletop: Tabletop) -> list[Action]:
    deposit = tabletop.jewels[tabletop.carts[tabletop.moving.cart].square]
    return [actions.TakeJewel(gem) for gem in PRECIOUS if deposit[gem.order] > 0]


def _why_not_take_jewel(tabletop: Tabletop, action: actions.TakeJewel) -> str | None:
    square = tabletop.carts[tabletop.moving.cart].square
    if action.jewel is not Gem.ROCK and tabletop.jewels[square][action.jewel.order] > 0:
        return None
    name = tabletop.board.names[square]
    if action.jewel is Gem.ROCK:
        return f"rocks are taken first, without a choice (on {name})"
    return f"the deposit on {name} has no {action.jewel.value} to take"


def pile_gems(pile: tuple[Gem, ...]) -> Gems:
    counts = [0, 0, 0, 0, 0]
    for gem in pile:
        counts[gem.order] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def _gems_tuple(gems: Gems) -> tuple[Gem, ...]:
    return tuple(GEM_BY_INDEX[i] for i in range(5) for _ in range(gems[i]))


def _split_actions(tabletop: Tabletop) -> list[Action]:
    hold = tabletop.carts[tabletop.moving.hit].hold
    return [actions.Split(_gems_tuple(pile)) for pile in splits(hold)]


def _why_not_split(tabletop: Tabletop, action: actions.Split) -> str | None:
    hit = tabletop.carts[tabletop.moving.hit]
    pile = pile_gems(action.pile)
    if pile in splits(hit.hold):
        return None
    return f"pile 1 must be {split_size(hit.hold)} of the jewels minecart {hit.name} holds"


def _drop_pile_actions(tabletop: Tabletop) -> list[Action]:
    return [actions.DropPile(1), actions.DropPile(2)]


def _why_not_drop_pile(tabletop: Tabletop, action: actions.DropPile) -> str | None:
    return None if action.pile in (1, 2) else "the pile is 1 or 2"


def _nothing(tabletop: Tabletop) -> list[Action]:
    raise AssertionError("the move phase always waits for a decision")


_MOVE_GENERATORS: dict[Pending, Callable[[Tabletop], list[Action]]] = {
    Pending.NONE: _nothing,
    Pending.CHOOSE_CART: _move_first_actions,
    Pending.ROUTE: _route_actions,
    Pending.TAKE_JEWEL: _take_jewel_actions,
    Pending.SPLIT: _split_actions,
    Pending.DROP_PILE: _drop_pile_actions,
}


# ------------------------------------------------------------------------------ after the move


def _claim_actions(tabletop: Tabletop) -> list[Action]:
    return [actions.ClaimMission(mission) for mission in claimable(tabletop)]


def _why_not_claim(tabletop: Tabletop, action: actions.ClaimMission) -> str | None:
    mission = action.mission
    if mission not in tabletop.missions_open:
        return f"mission {mission} is not on the table (claimed or not dealt)"
    if mission not in claimable(tabletop):
        return f"mission {mission} is not completed"
    return None


def _place_chasm_actions(tabletop: Tabletop) -> list[Action]:
    names = tabletop.board.names
    return [actions.PlaceChasm(names[square]) for square in chasm_targets(tabletop)]


def _why_not_place_chasm(tabletop: Tabletop, action: actions.PlaceChasm) -> str | None:
    board = tabletop.board
    square = board.index(action.square)
    targets = chasm_targets(tabletop)
    if square in targets:
        return None
    name = board.names[square]
    token = tabletop.chasm_token
    if square in board.surface:
        return f"chasm tokens fall only in the mine area; {name} is on the surface"
    if tabletop.chasm[square] is not None:
        return f"{name} already has a {tabletop.chasm[square]} chasm token"
    where = ", ".join(board.names[t] for t in targets)
    return (
        f"a {token} chasm token goes orthogonally next to a {token} chasm "
        f"token, on a square without one ({name} is not; it can go on {where})"
    )


# ------------------------------------------------------------------------------ the table of rules


@dataclass(frozen=True)
class _Rule:
    """When an action type may be taken, and the check of one such action."""

    phase: Phase
    why_not: Callable[[Tabletop, Any], str | None]
    pending: Pending | None = None  # in the move phase: the decision it answers


_RULES: dict[type[Action], _Rule] = {
    actions.ChooseSide: _Rule(Phase.CHOOSE_SIDE, _why_not_choose_side),
    actions.PlaceTile: _Rule(Phase.ACTIONS, _why_not_place_tile),
    actions.Upgrade: _Rule(Phase.ACTIONS, _why_not_upgrade),
    actions.SetSpeed: _Rule(Phase.ACTIONS, _why_not_set_speed),
    actions.PlaceCart: _Rule(Phase.ACTIONS, _why_not_place_cart),
    actions.EndActions: _Rule(Phase.ACTIONS, _why_not_end_actions),
    actions.MoveFirst: _Rule(Phase.MOVE, _why_not_move_first, Pending.CHOOSE_CART),
    actions.Route: _Rule(Phase.MOVE, _why_not_route, Pending.ROUTE),
    actions.TakeJewel: _Rule(Phase.MOVE, _why_not_take_jewel, Pending.TAKE_JEWEL),
    actions.Split: _Rule(Phase.MOVE, _why_not_split, Pending.SPLIT),
    actions.DropPile: _Rule(Phase.MOVE, _why_not_drop_pile, Pending.DROP_PILE),
    actions.ClaimMission: _Rule(Phase.CLAIM, _why_not_claim),
    actions.PlaceChasm: _Rule(Phase.CHASM_PLACE, _why_not_place_chasm),
}
