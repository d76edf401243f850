"""The Off the Rails rules engine: setup, turns, movement, collisions, deposits, chasm, scoring.

Every rule sentence of the seed texts lives here or in the modules it imports; the decisions the
texts leave open are options (see `OPTIONS`) written up in docs/rules/offtherails.md.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Self

from rules.core import (
    CHANCE,
    Action,
    BadOptions,
    IllegalAction,
    JsonDict,
    MalformedAction,
    Option,
    State,
)
from rules.offtherails import actions as act
from rules.offtherails.components import (
    COLOURS,
    CORNER_MASKS,
    CROSS_MASK,
    GEM_BY_INDEX,
    NO_GEMS,
    PRECIOUS,
    SIDES,
    SOLO_GEM_COLOUR,
    STRAIGHT_MASKS,
    T_MASKS,
    Board,
    Colour,
    Die,
    Direction,
    Gem,
    Gems,
    Shape,
    Side,
    TileKind,
    exits_mask,
    exits_text,
    gems_add,
    gems_from_json,
    gems_json,
    gems_one,
    gems_sub,
    load_board,
    load_components,
    mask_directions,
    shape_of,
)
from rules.offtherails.missions import MISSIONS, Mission, TurnRecord, completed

GAME = "offtherails"

OPTIONS: tuple[Option, ...] = (
    Option("players", 4, (1, 2, 3, 4), "1 plays the solo game"),
    Option("board", "standard", None, "board data file name (rules/offtherails/data)"),
    Option(
        "end_on_deposit",
        "two",
        ("two", "fill"),
        "ending a move on a deposit: pick up two gems (seed 000) or fill the hold (seed 001)",
    ),
    Option(
        "cart_bonus",
        "underailed",
        ("underailed", "in_supply"),
        "3 points per underailed minecart (seed 001) or per minecart in supply (seed 000)",
    ),
    Option("bumper_carts", False, (False, True), "variant: collisions only turn carts"),
    Option(
        "bumper_head_on",
        "normal",
        ("normal", "bump"),
        "bumper carts: a head-on collision still drops and derails (normal) or only turns (bump)",
    ),
    Option("chasm_die", False, (False, True), "variant: a d8 picks the collapsing mine square"),
    Option(
        "deposit_cards",
        0,
        (0, 13, 17, 21, 25),
        "game length in deposit cards incl. the Chasm card; 0: 21 for 4 players, else 17",
    ),
    Option("solo_carts_on_board", 2, (2, 4), "solo: how many minecarts may be on the board"),
)


class Phase(StrEnum):
    """Where the game stands; chance phases are resolved by draws, the others by a player."""

    CHOOSE_SIDE = "choose_side"
    ASSIGN_SIDE = "assign_side"
    DEAL_MISSIONS = "deal_missions"
    SOLO_GEMS = "solo_gems"
    STARTING_DEPOSITS = "starting_deposits"
    ACTIONS = "actions"
    MOVE = "move"
    CLAIM = "claim"
    DEPOSIT = "deposit"
    CHASM_REVEAL = "chasm_reveal"
    CHASM_DRAW = "chasm_draw"
    CHASM_DIE = "chasm_die"
    CHASM_PLACE = "chasm_place"
    OVER = "over"


CHANCE_PHASES = frozenset(
    {
        Phase.ASSIGN_SIDE,
        Phase.DEAL_MISSIONS,
        Phase.SOLO_GEMS,
        Phase.STARTING_DEPOSITS,
        Phase.DEPOSIT,
        Phase.CHASM_REVEAL,
        Phase.CHASM_DRAW,
        Phase.CHASM_DIE,
    }
)


class CartStatus(StrEnum):
    """Where a minecart is: in its owner's supply, on the board, or lost to the chasm."""

    SUPPLY = "supply"
    ON_BOARD = "on_board"
    LOST = "lost"


class Pending(StrEnum):
    """The decision the move phase waits for."""

    NONE = "none"
    CHOOSE_CART = "choose_cart"
    ROUTE = "route"
    TAKE_JEWEL = "take_jewel"
    SPLIT = "split"
    DROP_PILE = "drop_pile"


@dataclass(frozen=True)
class Tile:
    """A track tile on the board: its exits and which double-sided tile it physically is."""

    mask: int
    kind: TileKind


@dataclass(frozen=True)
class Cart:
    """A minecart: owner, where it is and which way it last travelled, speed die, hold."""

    name: str
    owner: int
    colour: Colour
    die: Die | None
    status: CartStatus = CartStatus.SUPPLY
    square: int = -1
    heading: Direction = Direction.N
    speed: int = 3
    hold: Gems = NO_GEMS
    derailed: bool = False  # in supply after a derailment: not an "underailed" minecart


@dataclass(frozen=True)
class Move:
    """The move phase in progress: which carts still move, the moving one, what is awaited."""

    to_move: tuple[str, ...] = ()
    cart: str = ""
    remaining: int = 0
    pending: Pending = Pending.NONE
    take_left: int = 0
    hit: str = ""
    direction: Direction = Direction.N
    drop: int = 0
    pile: Gems | None = None
    mover_was_empty: bool = False
    hit_was_empty: bool = False
    head_on: bool = False


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


class _Step(StrEnum):
    MOVED = "moved"
    STOPPED = "stopped"
    WAIT = "wait"


@dataclass(slots=True)
class _Data:
    """Everything that changes during a game: containers of frozen values, cheap to copy."""

    phase: Phase
    players: int
    active: int = 0
    turn: int = 1
    actions_left: int = 0
    sides: list[Side | None] = field(default_factory=list)
    tiles: list[Tile | None] = field(default_factory=list)
    jewels: list[Gems] = field(default_factory=list)
    chasm: list[Colour | None] = field(default_factory=list)
    carts: dict[str, Cart] = field(default_factory=dict)
    stockpiles: list[Gems] = field(default_factory=list)
    delivered: dict[Colour, Gems] = field(default_factory=dict)
    claimed: list[tuple[Mission, ...]] = field(default_factory=list)
    missions_open: tuple[Mission, ...] = ()
    missions_to_deal: int = 0
    bag: Gems = NO_GEMS
    removed: Gems = NO_GEMS
    tiles_removed: int = 0
    tokens_set_aside: int = 0
    tile_supply: dict[TileKind, int] = field(default_factory=dict)
    chasm_supply: dict[Colour, int] = field(default_factory=dict)
    seen: dict[Colour, frozenset[int]] = field(default_factory=dict)
    deck_left: int = 0
    pile_drawn: frozenset[Colour] = frozenset()
    chasm_card_in_deck: bool = True
    chasm_card_drawn_by: int | None = None
    final_turns_left: int = 0
    chasm_open: bool = False
    chasm_token: Colour | None = None
    gem_queue: tuple[int, ...] = ()
    reveal_queue: tuple[Colour, ...] = ()
    solo_reveals_left: int = 0
    solo_chasm_card_out: bool = False  # revealed this deposits phase: not shuffled back yet
    move: Move | None = None
    record: TurnRecord = field(default_factory=TurnRecord)
    claimed_this_turn: bool = False
    end_reason: str = ""

    def copy(self) -> _Data:
        c = _Data(self.phase, self.players)
        for name in self.__slots__:
            v = getattr(self, name)
            if isinstance(v, list):
                v = list(v)
            elif isinstance(v, dict):
                v = dict(v)
            setattr(c, name, v)
        return c


@functools.cache
def _place_actions(board: Board) -> tuple[tuple[tuple[act.PlaceTile, ...], ...], ...]:
    """Per square, the PlaceTile actions (straight ones, corner ones); built once per board."""
    out = []
    for i, name in enumerate(board.names):
        straights = tuple(act.PlaceTile(name, exits_text(m)) for m in STRAIGHT_MASKS)
        corners = tuple(act.PlaceTile(name, exits_text(m)) for m in CORNER_MASKS)
        out.append((straights, corners) if i in board.placeable else ((), ()))
    return tuple(out)


def _upgrade_masks(mask: int) -> tuple[int, ...]:
    if bin(mask).count("1") == 2:
        return tuple(t for t in T_MASKS if t & mask == mask)
    if bin(mask).count("1") == 3:
        return (CROSS_MASK,)
    return ()


def _submultisets(hold: Gems, size: int) -> list[Gems]:
    ranges = [range(min(hold[i], size) + 1) for i in range(5)]
    return [
        (a, b, c, d, e) for a, b, c, d, e in itertools.product(*ranges) if a + b + c + d + e == size
    ]


def _gems_tuple(g: Gems) -> tuple[Gem, ...]:
    return tuple(GEM_BY_INDEX[i] for i in range(5) for _ in range(g[i]))


class OffTheRails(State):
    """An Off the Rails game for 1 (solo) to 4 players."""

    GAME = GAME
    CODEC = act.CODEC

    def __init__(self, options: Mapping[str, Any], seed: int, data: _Data | None = None) -> None:
        super().__init__(options, seed)
        try:
            self.board = load_board(str(options["board"]))
        except ValueError as e:  # a board file is an option like any other
            raise BadOptions(f"option 'board' is {options['board']!r}: {e}") from None
        self.components = load_components()
        self.solo = options["players"] == 1
        self.d = data if data is not None else self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> _Data:
        b, comp = self.board, self.components
        n = int(self.options["players"])
        squares = len(b.names)
        d = _Data(
            phase=Phase.CHOOSE_SIDE,
            players=n,
            sides=[None] * n,
            tiles=[None] * squares,
            jewels=[NO_GEMS] * squares,
            chasm=[None] * squares,
            carts={},
            stockpiles=[NO_GEMS] * n,
            delivered={c: NO_GEMS for c in COLOURS},
            claimed=[()] * n,
            bag=comp.gems,
            tile_supply=dict(comp.tiles),
            chasm_supply={c: comp.chasm_tokens_per_colour - (0 if n == 1 else 1) for c in COLOURS},
            seen={c: frozenset() for c in COLOURS},
        )
        if self.solo:
            d.bag = comp.solo_gems
            d.sides = [None]
            for colour in COLOURS:
                d.carts[colour.value] = Cart(colour.value, 0, colour, None)
            d.gem_queue = tuple(sq for c in COLOURS for sq in b.mines[c].squares)
            d.phase = Phase.SOLO_GEMS
            d.deck_left = len(COLOURS) * comp.deposit_numbers
            d.chasm_open = True
        else:
            total = int(self.options["deposit_cards"]) or (21 if n == 4 else 17)
            d.deck_left = total - 1
            d.missions_to_deal = n + 1
        return d

    def _seat_sides(self, first: Side) -> None:
        d = self.d
        d.sides[0] = first
        d.sides[1] = first.opposite
        if d.players >= 3:
            d.phase = Phase.ASSIGN_SIDE
        else:
            self._sides_done()

    def _sides_done(self) -> None:
        d = self.d
        for seat, side in enumerate(d.sides):
            assert side is not None
            colour = self.board.sides[side].colour
            for die in Die:
                name = f"{colour.value}-{die.value}"
                d.carts[name] = Cart(name, seat, colour, die)
        d.phase = Phase.DEAL_MISSIONS

    # ------------------------------------------------------------------ who acts
    @property
    def current_player(self) -> int | None:
        d = self.d
        if d.phase is Phase.OVER:
            return None
        if d.gem_queue or d.phase in CHANCE_PHASES:
            return CHANCE
        if d.phase is Phase.CHOOSE_SIDE:
            return 0
        if d.phase is Phase.MOVE and d.move is not None and d.move.pending is Pending.SPLIT:
            return d.carts[d.move.hit].owner
        return d.active

    # ------------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        d = self.d
        if self.current_player != CHANCE:
            return []
        if d.gem_queue:
            total = sum(d.bag)
            return [(act.DrawGem(g), d.bag[g.order] / total) for g in Gem if d.bag[g.order] > 0]
        match d.phase:
            case Phase.ASSIGN_SIDE:
                free = [s for s in SIDES if s not in d.sides]
                return [(act.AssignSide(s), 1 / len(free)) for s in free]
            case Phase.DEAL_MISSIONS:
                left = [m for m in MISSIONS if m not in d.missions_open]
                return [(act.DealMission(m), 1 / len(left)) for m in left]
            case Phase.STARTING_DEPOSITS | Phase.CHASM_REVEAL:
                colour = d.reveal_queue[0]
                unseen = self._unseen(colour)
                return [(act.RevealDeposit(colour, k), 1 / len(unseen)) for k in unseen]
            case Phase.DEPOSIT:
                return self._deck_outcomes()
            case Phase.CHASM_DRAW:
                total = sum(d.chasm_supply.values())
                return [
                    (act.DrawChasmToken(c), d.chasm_supply[c] / total)
                    for c in COLOURS
                    if d.chasm_supply[c] > 0
                ]
            case Phase.CHASM_DIE:
                assert d.chasm_token is not None
                numbers = self._die_numbers(d.chasm_token)
                return [(act.RollChasmDie(k), 1 / len(numbers)) for k in numbers]
        raise AssertionError(d.phase)

    def _unseen(self, colour: Colour) -> list[int]:
        seen = self.d.seen[colour]
        return [k for k in range(1, self.components.deposit_numbers + 1) if k not in seen]

    def _deck_outcomes(self) -> list[tuple[Action, float]]:
        d = self.d
        if self.solo:
            # The Chasm card goes back into the deck after the phase, so it shows at most once
            # among the first phase's four cards.
            cards = [(c, k) for c in COLOURS for k in self._unseen(c)]
            chasm = 0 if d.solo_chasm_card_out else 1
            total = len(cards) + chasm
            outs: list[tuple[Action, float]] = [(act.RevealChasmCard(), 1 / total)] if chasm else []
            return outs + [(act.RevealDeposit(c, k), 1 / total) for c, k in cards]
        left = d.deck_left + (1 if d.chasm_card_in_deck else 0)
        p_chasm = 0.0
        if d.chasm_card_in_deck:
            # The Chasm card lies 5th to 8th from the bottom, each equally likely; it has not
            # come up yet, so it is on top with probability 1 / (positions still possible).
            possible = [p for p in (5, 6, 7, 8) if p <= left]
            if left in possible:
                p_chasm = 1 / len(possible)
            elif not possible:  # only an edited state gets here: every card left is as likely
                p_chasm = 1 / left
        out: list[tuple[Action, float]] = []
        if p_chasm:
            out.append((act.RevealChasmCard(), p_chasm))
        if d.deck_left and p_chasm < 1:
            pile = d.pile_drawn if len(d.pile_drawn) < 4 else frozenset()
            colours = [c for c in COLOURS if c not in pile and self._unseen(c)]
            for c in colours:
                unseen = self._unseen(c)
                p = (1 - p_chasm) / len(colours) / len(unseen)
                out.extend((act.RevealDeposit(c, k), p) for k in unseen)
        return out

    def _die_numbers(self, colour: Colour) -> list[int]:
        mine = self.board.mines[colour]
        return [i + 1 for i, sq in enumerate(mine.squares) if self.d.chasm[sq] is None]

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[Action]:
        d = self.d
        player = self.current_player
        if player is None:
            return []
        if player == CHANCE:
            return [a for a, p in self.chance_outcomes() if p > 0]
        match d.phase:
            case Phase.CHOOSE_SIDE:
                return [act.ChooseSide(s) for s in SIDES if s in self.board.sides]
            case Phase.ACTIONS:
                return self._action_phase_actions()
            case Phase.MOVE:
                return self._move_actions()
            case Phase.CLAIM:
                return [act.ClaimMission(m) for m in self._claimable()]
            case Phase.CHASM_PLACE:
                return [act.PlaceChasm(self.board.names[sq]) for sq in self._chasm_targets()]
        raise AssertionError(d.phase)

    def _action_phase_actions(self) -> list[Action]:
        d, b = self.d, self.board
        out: list[Action] = []
        place = _place_actions(b)
        supply = d.tile_supply
        straight_ok = supply[TileKind.STRAIGHT_T] > 0
        corner_ok = supply[TileKind.CORNER_T] > 0
        tiles, chasm = d.tiles, d.chasm
        occupied = self._occupied()
        for sq in b.placeable:
            tile = tiles[sq]
            if chasm[sq] is not None:
                continue
            if tile is None:
                straights, corners = place[sq]
                if straight_ok:
                    out.extend(straights)
                if corner_ok:
                    out.extend(corners)
            elif sq not in occupied:
                for m in self._upgrade_targets(tile):
                    out.append(act.Upgrade(b.names[sq], exits_text(m)))
        for cart in self._own_carts():
            if cart.status is CartStatus.ON_BOARD:
                for speed in (cart.speed - 1, cart.speed + 1):
                    if self.components.speed_min <= speed <= self.components.speed_max:
                        out.append(act.SetSpeed(cart.name, speed))
        if self._may_place_cart():
            for cart in self._own_carts():
                if cart.status is CartStatus.SUPPLY:
                    for sq in self._free_starting_tracks(cart):
                        out.append(act.PlaceCart(cart.name, b.names[sq]))
        out.append(act.EndActions())
        return out

    def _upgrade_targets(self, tile: Tile) -> tuple[int, ...]:
        targets = _upgrade_masks(tile.mask)
        if targets == (CROSS_MASK,) and self.d.tile_supply[TileKind.T_CROSS] == 0:
            return ()
        return targets

    def _move_actions(self) -> list[Action]:
        d = self.d
        m = d.move
        assert m is not None
        match m.pending:
            case Pending.CHOOSE_CART:
                return [act.MoveFirst(c) for c in m.to_move]
            case Pending.ROUTE:
                return [act.Route(x) for x in self._ways_on(d.carts[m.cart])]
            case Pending.TAKE_JEWEL:
                dep = d.jewels[d.carts[m.cart].square]
                return [act.TakeJewel(g) for g in PRECIOUS if dep[g.order] > 0]
            case Pending.SPLIT:
                hold = d.carts[m.hit].hold
                size = (sum(hold) + 1) // 2
                return [act.Split(_gems_tuple(p)) for p in _submultisets(hold, size)]
            case Pending.DROP_PILE:
                return [act.DropPile(1), act.DropPile(2)]
        raise AssertionError(m.pending)

    def normalise(self, action: Action) -> Action:
        """Squares upper-case, exits in N, E, S, W order, a split pile in gem order."""
        try:
            match action:
                case act.PlaceTile(square=sq, exits=ex):
                    return act.PlaceTile(sq.upper(), exits_text(exits_mask(ex)))
                case act.Upgrade(square=sq, exits=ex):
                    return act.Upgrade(sq.upper(), exits_text(exits_mask(ex)))
                case act.PlaceCart(cart=cart, square=sq):
                    return act.PlaceCart(cart.lower(), sq.upper())
                case act.PlaceChasm(square=sq):
                    return act.PlaceChasm(sq.upper())
                case act.SetSpeed(cart=cart, speed=speed):
                    return act.SetSpeed(cart.lower(), speed)
                case act.MoveFirst(cart=cart):
                    return act.MoveFirst(cart.lower())
                case act.Split(pile=pile):
                    return act.Split(tuple(sorted(pile, key=lambda g: g.order)))
        except ValueError as e:
            raise MalformedAction(str(e), action) from None
        return action

    def is_legal(self, action: Action) -> bool:
        if action.CHANCE_OUTCOME:
            return any(a == action for a, p in self.chance_outcomes() if p > 0)
        return self._why_illegal(action) is None

    def explain_illegal(self, action: Action) -> IllegalAction:
        if action.CHANCE_OUTCOME:
            possible = [a.describe() for a, p in self.chance_outcomes() if p > 0]
            shown = ", ".join(possible[:6]) + (
                f" and {len(possible) - 6} more" if len(possible) > 6 else ""
            )
            return IllegalAction("chance cannot give that now", action, f"possible: {shown}")
        return IllegalAction(self._why_illegal(action) or "not possible now", action)

    def _why_illegal(self, a: Action) -> str | None:
        """None if the player action is legal now, else the rule it breaks, in players' words."""
        d, b = self.d, self.board
        phase = d.phase
        expected = {
            act.ChooseSide: Phase.CHOOSE_SIDE,
            act.ClaimMission: Phase.CLAIM,
            act.PlaceChasm: Phase.CHASM_PLACE,
            act.MoveFirst: Phase.MOVE,
            act.Route: Phase.MOVE,
            act.TakeJewel: Phase.MOVE,
            act.Split: Phase.MOVE,
            act.DropPile: Phase.MOVE,
        }.get(type(a), Phase.ACTIONS)
        if phase is not expected:
            return f"that is done in the {expected.value} phase, not the {phase.value} phase"
        try:
            match a:
                case act.PlaceTile(square=sq_name, exits=ex):
                    return self._why_not_place_tile(b.index(sq_name), exits_mask(ex))
                case act.Upgrade(square=sq_name, exits=ex):
                    return self._why_not_upgrade(b.index(sq_name), exits_mask(ex))
                case act.PlaceCart(cart=name, square=sq_name):
                    return self._why_not_place_cart(name, b.index(sq_name))
                case act.SetSpeed(cart=name, speed=speed):
                    return self._why_not_set_speed(name, speed)
                case act.EndActions():
                    return None
                case act.ChooseSide(side=side):
                    return None if side in b.sides else f"the board has no {side} side"
                case act.ClaimMission(mission=mission):
                    if mission not in d.missions_open:
                        return f"mission {mission} is not on the table (claimed or not dealt)"
                    if mission not in self._claimable():
                        return f"mission {mission} is not completed"
                    return None
                case act.PlaceChasm(square=sq_name):
                    return self._why_not_place_chasm(b.index(sq_name))
            return self._why_not_move_action(a)
        except ValueError as e:
            return str(e)

    def _why_not_place_chasm(self, sq: int) -> str | None:
        d, b = self.d, self.board
        targets = self._chasm_targets()
        if sq in targets:
            return None
        name = b.names[sq]
        if sq in b.surface:
            return f"chasm tokens fall only in the mine area; {name} is on the surface"
        if d.chasm[sq] is not None:
            return f"{name} already has a {d.chasm[sq]} chasm token"
        where = ", ".join(b.names[t] for t in targets)
        return (
            f"a {d.chasm_token} chasm token goes orthogonally next to a {d.chasm_token} chasm "
            f"token, on a square without one ({name} is not; it can go on {where})"
        )

    def _why_not_place_tile(self, sq: int, mask: int) -> str | None:
        d, b = self.d, self.board
        name = b.names[sq]
        shape = shape_of(mask)
        kind = {"straight": TileKind.STRAIGHT_T, "corner": TileKind.CORNER_T}.get(shape.value)
        if kind is None:
            return (
                f"only a straight or corner tile may be placed, not a {_SHAPE_WORDS[shape]} "
                "(a T-junction or a cross comes only by upgrading a tile)"
            )
        if sq in b.mine_centres:
            return f"tracks may not be placed on the centre square of a mine ({name})"
        if sq in b.starting_track_exits:
            return f"{name} is a starting track printed on the surface; tiles go in the mine area"
        if sq in b.surface:
            return f"{name} is on the surface, where no track is laid"
        if d.chasm[sq] is not None:
            return f"no track may be placed on a chasm space ({name})"
        if d.tiles[sq] is not None:
            return f"a track tile goes only on an empty square ({name} has one)"
        if d.tile_supply[kind] == 0:
            return f"no {shape.value} tile left in the supply"
        return None

    def _why_not_upgrade(self, sq: int, mask: int) -> str | None:
        d, b = self.d, self.board
        name = b.names[sq]
        tile = d.tiles[sq]
        if tile is None:
            if sq in b.starting_track_exits:
                return f"{name}'s starting track is printed on the board and cannot be upgraded"
            if d.chasm[sq] is not None:
                return f"{name} has fallen into the chasm: there is no track tile to upgrade"
            return f"there is no track tile on {name} to upgrade"
        if sq in self._occupied():
            return f"a tile with a minecart on it cannot be upgraded ({name})"
        if mask & tile.mask != tile.mask:
            return (
                f"an upgrade must add to the tile's exits and never remove any "
                f"({name} has {exits_text(tile.mask)}, not all in {exits_text(mask)})"
            )
        if mask not in _upgrade_masks(tile.mask):
            return (
                f"a straight or corner becomes a T, a T becomes a cross "
                f"({name}: {exits_text(tile.mask)} to {exits_text(mask)})"
            )
        if mask == CROSS_MASK and d.tile_supply[TileKind.T_CROSS] == 0:
            return "no cross tile left in the supply"
        return None

    def _why_not_place_cart(self, name: str, sq: int) -> str | None:
        cart = self._own_cart(name)
        if cart.status is not CartStatus.SUPPLY:
            return f"minecart {name} is not in your supply ({cart.status.value})"
        if not self._may_place_cart():
            limit = self._cart_limit()
            return f"a minecart may be placed only with fewer than {limit} on the board"
        free = self._free_starting_tracks(cart)
        if sq not in free:
            b = self.board
            side = b.side_for_colour(cart.colour)
            there = self._occupied().get(sq)
            if there is not None and sq in b.sides[side].starting_tracks:
                return f"{b.names[sq]} is not a free starting track: minecart {there} is on it"
            where = ", ".join(b.names[t] for t in free) or "none"
            return (
                f"{b.names[sq]} is not a free starting track on the {side.value} surface of "
                f"minecart {name} (free: {where})"
            )
        return None

    def _why_not_set_speed(self, name: str, speed: int) -> str | None:
        cart = self._own_cart(name)
        comp = self.components
        if cart.status is not CartStatus.ON_BOARD:
            return f"minecart {name} is not on the board"
        if abs(speed - cart.speed) != 1:
            return f"speed changes by one: minecart {name} is at {cart.speed}, not {speed}"
        if not comp.speed_min <= speed <= comp.speed_max:
            return f"a speed die shows {comp.speed_min} to {comp.speed_max}, not {speed}"
        return None

    def _why_not_move_action(self, a: Action) -> str | None:
        m = self.d.move
        assert m is not None
        wanted = {
            act.MoveFirst: Pending.CHOOSE_CART,
            act.Route: Pending.ROUTE,
            act.TakeJewel: Pending.TAKE_JEWEL,
            act.Split: Pending.SPLIT,
            act.DropPile: Pending.DROP_PILE,
        }[type(a)]
        if m.pending is not wanted:
            waiting, asked = _PENDING_WORDS[m.pending], _PENDING_WORDS[wanted]
            return f"the move phase waits for {waiting}, not {asked}"
        if a not in self._move_actions():
            match a:
                case act.MoveFirst(cart=c):
                    return (
                        f"minecart {c} is not one of yours still to move ({', '.join(m.to_move)})"
                    )
                case act.Route(exit=x):
                    cart = self.d.carts[m.cart]
                    opts = " or ".join(o.name for o in self._ways_on(cart))
                    if x is cart.heading.opposite:
                        why = "that is the way it came in"
                    elif x in self._leaving_options(cart):
                        why = "a chasm lies that way and another exit is open"
                    else:
                        why = f"the track there has no {x.name} exit"
                    square = self.board.names[cart.square]
                    return (
                        f"minecart {m.cart} on {square} cannot leave by {x.name}: {why} "
                        f"(it can leave by {opts})"
                    )
                case act.TakeJewel(jewel=g):
                    square = self.board.names[self.d.carts[m.cart].square]
                    if g is Gem.ROCK:
                        return f"rocks are taken first, without a choice (on {square})"
                    return f"the deposit on {square} has no {g.value} to take"
                case act.Split():
                    size = (sum(self.d.carts[m.hit].hold) + 1) // 2
                    return f"pile 1 must be {size} of the jewels minecart {m.hit} holds"
                case act.DropPile():
                    return "the pile is 1 or 2"
        return None

    # ------------------------------------------------------------------ helpers
    def _own_carts(self) -> list[Cart]:
        active = self.d.active
        return [c for c in self.d.carts.values() if c.owner == active]

    def _own_cart(self, name: str) -> Cart:
        cart = self.d.carts.get(name)
        if cart is None:
            raise ValueError(f"there is no minecart {name!r}")
        if cart.owner != self.d.active:
            raise ValueError(
                f"minecart {name} belongs to seat {cart.owner}, not to seat {self.d.active}"
            )
        return cart

    def _cart_limit(self) -> int:
        return int(self.options["solo_carts_on_board"]) if self.solo else 2

    def _may_place_cart(self) -> bool:
        on_board = sum(1 for c in self._own_carts() if c.status is CartStatus.ON_BOARD)
        return on_board < self._cart_limit()

    def _free_starting_tracks(self, cart: Cart) -> list[int]:
        side = self.board.side_for_colour(cart.colour)
        occupied = self._occupied()
        return [sq for sq in self.board.sides[side].starting_tracks if sq not in occupied]

    def _occupied(self) -> dict[int, str]:
        return {c.square: c.name for c in self.d.carts.values() if c.status is CartStatus.ON_BOARD}

    def _track_mask(self, sq: int) -> int:
        tile = self.d.tiles[sq]
        return tile.mask if tile is not None else self.board.starting_track_exits.get(sq, 0)

    def _leaving_options(self, cart: Cart) -> tuple[Direction, ...]:
        behind = cart.heading.opposite
        return tuple(x for x in mask_directions(self._track_mask(cart.square)) if x != behind)

    def _ways_on(self, cart: Cart) -> tuple[Direction, ...]:
        """The exits a cart may take: never onto a chasm while another exit is open (seed 000:
        'No player can move onto ... the chasm spaces, if a minecart is forced to move onto a
        Chasm Token it is removed'); with only chasms ahead it is forced into the first."""
        ahead = self._leaving_options(cart)
        open_ = tuple(x for x in ahead if not self._chasm_beyond(cart.square, x))
        return open_ or ahead[:1]

    def _chasm_beyond(self, sq: int, x: Direction) -> bool:
        beyond = self.board.neighbours[sq][x]
        return beyond is not None and self.d.chasm[beyond] is not None

    def _claimable(self) -> list[Mission]:
        d = self.d
        if d.claimed_this_turn or self.solo:
            return []
        holds = [
            c.hold
            for c in d.carts.values()
            if c.owner == d.active and c.status is CartStatus.ON_BOARD
        ]
        return [m for m in d.missions_open if completed(m, d.active, d.record, d.stockpiles, holds)]

    def _chasm_targets(self) -> list[int]:
        d, b = self.d, self.board
        colour = d.chasm_token
        if colour is None:
            return []
        allowed = set(b.chasm_squares)
        out = set()
        for sq, c in enumerate(d.chasm):
            if c is colour:
                for n in b.neighbours[sq]:
                    if n is not None and n in allowed and d.chasm[n] is None:
                        out.add(n)
        return sorted(out)

    # ------------------------------------------------------------------ apply
    def _apply(self, a: Action) -> None:
        d, b = self.d, self.board
        match a:
            case act.DrawGem(gem=g):
                sq = d.gem_queue[0]
                d.gem_queue = d.gem_queue[1:]
                one = gems_one(g)
                d.bag = gems_sub(d.bag, one)
                d.jewels[sq] = gems_add(d.jewels[sq], one)
                if not d.gem_queue or sum(d.bag) == 0:
                    d.gem_queue = ()
                    self._after_gems()
            case act.ChooseSide(side=side):
                self._seat_sides(side)
            case act.AssignSide(side=side):
                d.sides[2] = side
                if d.players == 4:
                    d.sides[3] = side.opposite
                self._sides_done()
            case act.DealMission(mission=mission):
                d.missions_open += (mission,)
                if len(d.missions_open) == d.missions_to_deal:
                    d.phase = Phase.STARTING_DEPOSITS
                    d.reveal_queue = COLOURS
            case act.RevealDeposit(colour=colour, number=k):
                self._reveal(colour, k)
            case act.RevealChasmCard():
                self._reveal_chasm_card()
            case act.DrawChasmToken(colour=colour):
                d.chasm_supply = {**d.chasm_supply, colour: d.chasm_supply[colour] - 1}
                d.chasm_token = colour
                self._chasm_placement()
            case act.RollChasmDie(number=k):
                assert d.chasm_token is not None
                self._place_chasm_token(self.board.mines[d.chasm_token].squares[k - 1])
            case act.PlaceChasm(square=name):
                self._place_chasm_token(b.index(name))
            case act.PlaceTile(square=name, exits=ex):
                mask = exits_mask(ex)
                kind = TileKind.STRAIGHT_T if mask in STRAIGHT_MASKS else TileKind.CORNER_T
                d.tile_supply = {**d.tile_supply, kind: d.tile_supply[kind] - 1}
                d.tiles[b.index(name)] = Tile(mask, kind)
                self._action_used()
            case act.Upgrade(square=name, exits=ex):
                sq, mask = b.index(name), exits_mask(ex)
                old = d.tiles[sq]
                assert old is not None
                if mask == CROSS_MASK:
                    # the T goes back to the supply; a T/cross tile goes down cross face up
                    d.tile_supply = {
                        **d.tile_supply,
                        old.kind: d.tile_supply[old.kind] + 1,
                        TileKind.T_CROSS: d.tile_supply[TileKind.T_CROSS] - 1,
                    }
                    d.tiles[sq] = Tile(mask, TileKind.T_CROSS)
                else:
                    d.tiles[sq] = Tile(mask, old.kind)  # the same tile, turned over
                self._action_used()
            case act.PlaceCart(cart=name, square=sq_name):
                sq = b.index(sq_name)
                side = b.side_of_square[sq]
                d.carts[name] = replace(
                    d.carts[name],
                    status=CartStatus.ON_BOARD,
                    square=sq,
                    heading=side.outward.opposite,
                    speed=self.components.start_speed,
                    derailed=False,
                )
                self._action_used()
            case act.SetSpeed(cart=name, speed=speed):
                d.carts[name] = replace(d.carts[name], speed=speed)
                self._action_used()
            case act.EndActions():
                self._start_move_phase()
            case act.MoveFirst(cart=name):
                assert d.move is not None
                self._start_cart(name)
            case act.Route(exit=x):
                assert d.move is not None
                d.move = replace(d.move, pending=Pending.NONE)
                if self._step(x) is not _Step.WAIT:
                    self._continue_move()
            case act.TakeJewel(jewel=g):
                assert d.move is not None
                self._take(g)
                d.move = replace(d.move, take_left=d.move.take_left - 1, pending=Pending.NONE)
                if self._pickup_rest() is not _Step.WAIT:
                    self._continue_move()
            case act.Split(pile=pile):
                assert d.move is not None
                pile_gems = gems_from_json({g.value: pile.count(g) for g in set(pile)})
                d.move = replace(d.move, pile=pile_gems, pending=Pending.NONE)
                self._after_split()
                if d.move.pending is Pending.NONE:
                    self._continue_move()
            case act.DropPile(pile=k):
                m = d.move
                assert m is not None and m.pile is not None
                other = gems_sub(d.carts[m.hit].hold, m.pile)
                self._finish_collision(m.pile if k == 1 else other)
                self._continue_move()
            case act.ClaimMission(mission=mission):
                self._claim(mission)
            case _:
                raise AssertionError(a)

    # ---- setup and deposits
    def _after_gems(self) -> None:
        d = self.d
        match d.phase:
            case Phase.SOLO_GEMS:
                self._start_turn(0)
            case Phase.STARTING_DEPOSITS:
                if not d.reveal_queue:
                    self._start_turn(0)
            case Phase.DEPOSIT:
                self._next_turn()

    def _reveal(self, colour: Colour, k: int) -> None:
        d, b = self.d, self.board
        d.seen = {**d.seen, colour: d.seen[colour] | {k}}
        square = b.mines[colour].squares[k - 1]
        gems = self.components.gems_per_deposit_number[k]
        match d.phase:
            case Phase.STARTING_DEPOSITS:
                d.reveal_queue = d.reveal_queue[1:]
                self._queue_gems(square, gems)
            case Phase.CHASM_REVEAL:
                d.reveal_queue = d.reveal_queue[1:]
                self._collapse(square, colour)
                if not d.reveal_queue:
                    d.chasm_open = True
                    if not self._check_end():
                        self._next_turn()
            case Phase.DEPOSIT if self.solo:
                d.deck_left -= 1
                if d.chasm_supply[colour] > 0:
                    d.chasm_supply = {**d.chasm_supply, colour: d.chasm_supply[colour] - 1}
                    self._collapse(square, colour)
                self._solo_reveal_done()
            case Phase.DEPOSIT:
                d.deck_left -= 1
                pile = d.pile_drawn if len(d.pile_drawn) < 4 else frozenset()
                d.pile_drawn = pile | {colour}
                self._queue_gems(square, gems)

    def _queue_gems(self, square: int, n: int) -> None:
        d = self.d
        n = min(n, sum(d.bag))
        d.gem_queue = (square,) * n
        if not n:
            self._after_gems()

    def _reveal_chasm_card(self) -> None:
        d = self.d
        if self.solo:
            d.solo_chasm_card_out = True  # no collapse for it; shuffled back after the phase
            self._solo_reveal_done()
            return
        d.chasm_card_in_deck = False
        d.chasm_card_drawn_by = d.active
        d.final_turns_left = d.players
        self._next_turn()

    def _solo_reveal_done(self) -> None:
        d = self.d
        d.solo_reveals_left -= 1
        if self._check_end():
            return
        if d.solo_reveals_left <= 0 or d.deck_left == 0:
            self._next_turn()

    # ---- turns
    def _start_turn(self, seat: int) -> None:
        d = self.d
        d.phase = Phase.ACTIONS
        d.active = seat
        d.actions_left = self.components.actions_per_turn
        d.record = TurnRecord()
        d.claimed_this_turn = False
        d.move = None

    def _next_turn(self) -> None:
        d = self.d
        if d.chasm_card_drawn_by is not None and not d.chasm_open:
            if d.final_turns_left == 0:
                d.phase = Phase.CHASM_REVEAL
                d.reveal_queue = COLOURS
                return
            d.final_turns_left -= 1
        d.turn += 1
        self._start_turn((d.active + 1) % d.players)

    def _action_used(self) -> None:
        d = self.d
        d.actions_left -= 1
        if d.actions_left == 0:
            self._start_move_phase()

    def _end_turn_phase(self) -> None:
        """After moving and claiming: the deposits phase, or the chasm phase that replaces it."""
        d = self.d
        if self.solo:
            d.phase = Phase.DEPOSIT
            d.solo_reveals_left = 4 if d.turn == 1 else 1
            d.solo_chasm_card_out = False
            if d.deck_left == 0:
                self._check_end()
        elif d.chasm_open:
            d.phase = Phase.CHASM_DRAW
        elif d.deck_left == 0 and not d.chasm_card_in_deck:
            self._next_turn()
        else:
            d.phase = Phase.DEPOSIT

    # ---- move phase
    def _start_move_phase(self) -> None:
        d = self.d
        d.phase = Phase.MOVE
        carts = tuple(sorted(c.name for c in self._own_carts() if c.status is CartStatus.ON_BOARD))
        d.move = Move(to_move=carts)
        self._next_cart()

    def _next_cart(self) -> None:
        d = self.d
        assert d.move is not None
        to_move = tuple(c for c in d.move.to_move if d.carts[c].status is CartStatus.ON_BOARD)
        d.move = Move(to_move=to_move)
        if not to_move:
            d.move = None
            self._after_move()
        elif len(to_move) == 1:
            self._start_cart(to_move[0])
        else:
            d.move = replace(d.move, pending=Pending.CHOOSE_CART)

    def _start_cart(self, name: str) -> None:
        d = self.d
        assert d.move is not None
        rest = tuple(c for c in d.move.to_move if c != name)
        d.move = Move(to_move=rest, cart=name, remaining=d.carts[name].speed)
        self._continue_move()

    def _continue_move(self) -> None:
        """Move the current cart on until its move ends or a decision is needed."""
        d = self.d
        while True:
            m = d.move
            assert m is not None
            cart = d.carts[m.cart]
            if m.remaining <= 0 or cart.status is not CartStatus.ON_BOARD:
                self._next_cart()
                return
            options = self._ways_on(cart)
            if len(options) > 1:
                d.move = replace(m, pending=Pending.ROUTE)
                return
            if not options:
                self._derail(cart)
                continue
            if self._step(options[0]) is _Step.WAIT:
                return

    def _stop(self) -> _Step:
        d = self.d
        assert d.move is not None
        d.move = replace(d.move, remaining=0)
        return _Step.STOPPED

    def _step(self, x: Direction) -> _Step:
        """The moving cart leaves its square by exit `x`."""
        d, b = self.d, self.board
        assert d.move is not None
        cart = d.carts[d.move.cart]
        n = b.neighbours[cart.square][x]
        if n is None:  # off the board's edge from a surface track: out of the mine
            self._leave_mine(cart, b.side_of_square[cart.square])
            return self._stop()
        other = self._occupied().get(n)
        if other is not None:
            return self._collide(cart, d.carts[other], x)
        if d.chasm[n] is not None:
            self._lose(cart)
            return self._stop()
        if n in b.surface:
            if b.starting_track_exits.get(n, 0) & x.opposite.bit:
                self._leave_mine(cart, b.side_of_square[n])
            else:
                self._derail(cart)  # a surface square without track
            return self._stop()
        tile = d.tiles[n]
        if tile is None or not tile.mask & x.opposite.bit:
            self._derail(cart)  # no connected track to move onto
            return self._stop()
        remaining = d.move.remaining - 1
        d.carts[cart.name] = replace(cart, square=n, heading=x)
        d.move = replace(d.move, remaining=remaining)
        return self._pickup(n, passing=remaining > 0)

    def _pickup(self, sq: int, passing: bool) -> _Step:
        d = self.d
        assert d.move is not None
        deposit = d.jewels[sq]
        cart = d.carts[d.move.cart]
        room = self.components.hold_capacity - sum(cart.hold)
        if not sum(deposit) or room <= 0:
            return _Step.MOVED
        if passing:
            amount = 1
        elif self.options["end_on_deposit"] == "two":
            amount = 2
        else:
            amount = room
        amount = min(amount, room, sum(deposit))
        rocks = min(deposit[Gem.ROCK.order], amount)
        for _ in range(rocks):
            self._take(Gem.ROCK)
        d.move = replace(d.move, take_left=amount - rocks)
        return self._pickup_rest()

    def _pickup_rest(self) -> _Step:
        """Take the jewels still owed here; ask the player when there is a real choice."""
        d = self.d
        m = d.move
        assert m is not None
        sq = d.carts[m.cart].square
        while m.take_left > 0:
            deposit = d.jewels[sq]
            kinds = [g for g in PRECIOUS if deposit[g.order] > 0]
            if not kinds:
                break
            if len(kinds) > 1 and m.take_left < sum(deposit):
                d.move = replace(m, pending=Pending.TAKE_JEWEL)
                return _Step.WAIT
            self._take(kinds[0])
            m = replace(m, take_left=m.take_left - 1)
            d.move = m
        d.move = replace(m, take_left=0)
        return _Step.MOVED

    def _take(self, g: Gem) -> None:
        d = self.d
        assert d.move is not None
        cart = d.carts[d.move.cart]
        one = gems_one(g)
        d.jewels[cart.square] = gems_sub(d.jewels[cart.square], one)
        hold = gems_add(cart.hold, one)
        d.carts[cart.name] = replace(cart, hold=hold)
        if sum(hold) >= self.components.hold_capacity and hold[Gem.ROCK.order] == 0:
            d.record = replace(d.record, filled_with_precious=True)

    def _faces(self, cart: Cart, toward: Direction) -> bool:
        """Whether `cart` is heading at its neighbour in direction `toward` (for head-on)."""
        options = self._leaving_options(cart)
        if len(options) == 1:
            return options[0] is toward
        return cart.heading is toward and toward in options

    def _collide(self, mover: Cart, hit: Cart, x: Direction) -> _Step:
        d = self.d
        assert d.move is not None
        connected = bool(self._track_mask(hit.square) & x.opposite.bit)
        head_on = connected and self._faces(hit, x.opposite)
        if head_on and hit.owner != d.active:  # Head to Head asks for an opponent's cart
            d.record = replace(d.record, head_on=True)
        d.move = replace(
            d.move,
            remaining=0,
            hit=hit.name,
            direction=x,
            head_on=head_on,
            mover_was_empty=sum(mover.hold) == 0,
            hit_was_empty=sum(hit.hold) == 0,
        )
        # Bumper carts: "Collisions no longer cause Minecarts to drop Jewels or derail. Head on
        # collisions resolve as normal."
        bumped = self.options["bumper_carts"] and not (
            head_on and self.options["bumper_head_on"] == "normal"
        )
        if not connected or bumped:  # unconnected: no drop, no derailment, the mover turns
            self._turn_after_collision()
            return _Step.STOPPED
        if sum(hit.hold) == 0:
            self._finish_collision(NO_GEMS)
            return _Step.STOPPED
        n = sum(hit.hold)
        kinds = [i for i in range(5) if hit.hold[i]]
        drop = (n + 1) // 2
        d.move = replace(d.move, drop=drop)
        if len(kinds) == 1:
            only = GEM_BY_INDEX[kinds[0]]
            d.move = replace(d.move, pile=gems_one(only, drop))
            self._after_split()
        else:
            d.move = replace(d.move, pending=Pending.SPLIT)
        return _Step.WAIT if d.move.pending is not Pending.NONE else _Step.STOPPED

    def _after_split(self) -> None:
        d = self.d
        m = d.move
        assert m is not None and m.pile is not None
        rest = gems_sub(d.carts[m.hit].hold, m.pile)
        if sum(m.pile) != sum(rest) or m.pile == rest:
            self._finish_collision(m.pile)  # odd: the larger pile drops, half rounded up
        else:
            d.move = replace(m, pending=Pending.DROP_PILE)

    def _finish_collision(self, dropped: Gems) -> None:
        d = self.d
        m = d.move
        assert m is not None
        hit = d.carts[m.hit]
        opponent = hit.owner != d.active
        if sum(dropped):
            d.jewels[hit.square] = gems_add(d.jewels[hit.square], dropped)
            d.carts[hit.name] = replace(hit, hold=gems_sub(hit.hold, dropped))
            if opponent:
                d.record = replace(d.record, made_opponent_drop=True)
        d.move = replace(m, pending=Pending.NONE, pile=None)
        self._turn_after_collision()
        if m.mover_was_empty:
            self._derail(d.carts[m.cart])
        if m.hit_was_empty:
            self._derail(d.carts[m.hit])
            if opponent:
                d.record = replace(d.record, derailed_opponent=True)

    def _turn_after_collision(self) -> None:
        d = self.d
        m = d.move
        assert m is not None
        mover = d.carts[m.cart]
        d.carts[mover.name] = replace(mover, heading=m.direction.opposite)
        if m.head_on:
            hit = d.carts[m.hit]
            d.carts[hit.name] = replace(hit, heading=m.direction)

    def _off_board(self, cart: Cart, **changes: Any) -> None:
        self.d.carts[cart.name] = replace(cart, square=-1, hold=NO_GEMS, **changes)

    def _leave_mine(self, cart: Cart, side: Side) -> None:
        d = self.d
        haul = cart.hold
        d.stockpiles[cart.owner] = gems_add(d.stockpiles[cart.owner], haul)
        colour = self.board.sides[side].colour
        d.delivered = {**d.delivered, colour: gems_add(d.delivered[colour], haul)}
        owner_of_side = next((s for s, sd in enumerate(d.sides) if sd is side), None)
        record = d.record.with_haul(haul)
        if sum(haul) and owner_of_side is not None and owner_of_side != cart.owner:
            record = replace(record, left_from_opponent_surface=True)
        d.record = record
        self._off_board(cart, status=CartStatus.SUPPLY, derailed=False)

    def _derail(self, cart: Cart) -> None:
        d = self.d
        d.bag = gems_add(d.bag, cart.hold)
        if self.solo:
            self._off_board(cart, status=CartStatus.LOST, derailed=True)
        else:
            self._off_board(cart, status=CartStatus.SUPPLY, derailed=True)

    def _lose(self, cart: Cart) -> None:
        d = self.d
        d.removed = gems_add(d.removed, cart.hold)
        self._off_board(cart, status=CartStatus.LOST, derailed=True)

    def _after_move(self) -> None:
        d = self.d
        d.phase = Phase.CLAIM
        claimable = self._claimable()
        if len(claimable) == 1:
            self._claim(claimable[0])
        elif not claimable:
            self._end_turn_phase()

    def _claim(self, mission: Mission) -> None:
        d = self.d
        d.missions_open = tuple(m for m in d.missions_open if m is not mission)
        d.claimed[d.active] = d.claimed[d.active] + (mission,)
        d.claimed_this_turn = True
        self._end_turn_phase()

    # ---- the chasm
    def _chasm_placement(self) -> None:
        d = self.d
        assert d.chasm_token is not None
        if self.options["chasm_die"] and self._die_numbers(d.chasm_token):
            d.phase = Phase.CHASM_DIE
            return
        targets = self._chasm_targets()
        if len(targets) == 1:
            self._place_chasm_token(targets[0])
        elif not targets:
            # nowhere next to its colour is free: the token is set aside, out of the game
            d.chasm_token = None
            d.tokens_set_aside += 1
            if not self._check_end():
                self._next_turn()
        else:
            d.phase = Phase.CHASM_PLACE

    def _place_chasm_token(self, sq: int) -> None:
        d = self.d
        assert d.chasm_token is not None
        self._collapse(sq, d.chasm_token)
        d.chasm_token = None
        if not self._check_end():
            self._next_turn()

    def _collapse(self, sq: int, colour: Colour) -> None:
        """A chasm token lands: tile, jewels and minecart there leave the game."""
        d = self.d
        d.chasm[sq] = colour
        if d.tiles[sq] is not None:
            d.tiles_removed += 1
        d.tiles[sq] = None
        d.removed = gems_add(d.removed, d.jewels[sq])
        d.jewels[sq] = NO_GEMS
        name = self._occupied().get(sq)
        if name is not None:
            self._lose(d.carts[name])

    def _check_end(self) -> bool:
        d = self.d
        on_board = [c for c in d.carts.values() if c.status is CartStatus.ON_BOARD]
        if self.solo:
            placed = sum(1 for c in d.chasm if c is not None)
            total = len(COLOURS) * self.components.chasm_tokens_per_colour
            if placed >= total:
                return self._end("all chasm tokens are on the board", on_board)
            if all(c.status is CartStatus.LOST for c in d.carts.values()):
                return self._end("every minecart is derailed", on_board)
            if d.deck_left == 0:
                return self._end("the deposit deck is spent", on_board)
            return False
        if sum(d.chasm_supply.values()) == 0:
            return self._end("all chasm tokens have been placed", on_board)
        if not on_board:
            return self._end("all minecarts have left the board", on_board)
        return False

    def _end(self, reason: str, on_board: list[Cart]) -> bool:
        for cart in on_board:
            self._derail(cart)  # still on the board at the end: derailed
        self.d.phase = Phase.OVER
        self.d.end_reason = reason
        self.d.move = None
        return True

    # ------------------------------------------------------------------ scores
    def scores(self) -> list[float]:
        if self.solo:
            return [float(self.solo_result()["high_score"])]
        d = self.d
        rubies = [s[Gem.RUBY.order] for s in d.stockpiles]
        most = max(rubies)
        out = []
        for seat, stock in enumerate(d.stockpiles):
            points = sum(stock[g.order] * g.points for g in Gem)
            if most > 0 and rubies[seat] == most:
                points += 5
            points += 3 * self._bonus_carts(seat)
            points += 4 * len(d.claimed[seat])
            out.append(float(points))
        return out

    def _bonus_carts(self, seat: int) -> int:
        carts = [c for c in self.d.carts.values() if c.owner == seat]
        if self.options["cart_bonus"] == "in_supply":
            return sum(1 for c in carts if c.status is CartStatus.SUPPLY)
        return sum(1 for c in carts if c.status is CartStatus.SUPPLY and not c.derailed)

    def winners(self) -> list[int]:
        """Seats with the most points, then most gems, then fewest rocks; more means shared."""
        if self.solo:
            return [0] if self.solo_result()["outcome"] != "loss" else []
        d = self.d
        scores = self.scores()

        def key(seat: int) -> tuple[float, int, int]:
            stock = d.stockpiles[seat]
            return (scores[seat], sum(stock) - stock[Gem.ROCK.order], -stock[Gem.ROCK.order])

        best = max(key(s) for s in range(d.players))
        return [s for s in range(d.players) if key(s) == best]

    def solo_result(self) -> dict[str, Any]:
        """Solo: jewels delivered to matching and other surfaces, outcome and high score."""
        d = self.d
        correct = {g: d.delivered[SOLO_GEM_COLOUR[g]][g.order] for g in PRECIOUS}
        total = {g: sum(d.delivered[c][g.order] for c in COLOURS) for g in PRECIOUS}
        wrong = {g: total[g] - correct[g] for g in PRECIOUS}
        right_sets = min(correct.values())
        wrong_sets = min(wrong.values())
        if right_sets >= 2:
            outcome = "major_victory"
        elif right_sets >= 1:
            outcome = "victory"
        elif min(total.values()) >= 1:
            outcome = "partial_victory"
        else:
            outcome = "loss"
        jewels = sum(total.values())
        return {
            "outcome": outcome,
            "high_score": jewels + 10 * wrong_sets + 100 * right_sets,
            "delivered_matching": {g.value: correct[g] for g in PRECIOUS},
            "delivered_other": {g.value: wrong[g] for g in PRECIOUS},
        }

    # ------------------------------------------------------------------ snapshots & JSON
    def _snapshot(self) -> object:
        return self.d.copy()

    def _restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, _Data)
        self.d = snapshot.copy()

    def _state_json(self) -> JsonDict:
        d, b = self.d, self.board
        board: dict[str, Any] = {}
        for sq, name in enumerate(b.names):
            entry: dict[str, Any] = {}
            tile = d.tiles[sq]
            if tile is not None:
                entry["tile"] = {
                    "exits": exits_text(tile.mask),
                    "shape": shape_of(tile.mask).value,
                    "kind": tile.kind.value,
                }
            if sum(d.jewels[sq]):
                entry["jewels"] = gems_json(d.jewels[sq])
            if d.chasm[sq] is not None:
                entry["chasm"] = d.chasm[sq]
            if entry:
                board[name] = entry
        m = d.move
        return {
            "phase": d.phase.value,
            "turn": d.turn,
            "active": d.active,
            "current_player": self.current_player,
            "actions_left": d.actions_left,
            "players": [
                {
                    "seat": seat,
                    "side": d.sides[seat].value if d.sides[seat] else None,  # type: ignore[union-attr]
                    "stockpile": gems_json(d.stockpiles[seat]),
                    "missions": [x.value for x in d.claimed[seat]],
                }
                for seat in range(d.players)
            ],
            "carts": {
                c.name: {
                    "owner": c.owner,
                    "colour": c.colour.value,
                    "die": c.die.value if c.die else None,
                    "status": c.status.value,
                    "square": b.names[c.square] if c.square >= 0 else None,
                    "heading": c.heading.name,
                    "speed": c.speed,
                    "hold": gems_json(c.hold),
                    "derailed": c.derailed,
                }
                for c in d.carts.values()
            },
            "board": board,
            "bag": gems_json(d.bag),
            "removed": gems_json(d.removed),
            "tiles_removed": d.tiles_removed,
            "tokens_set_aside": d.tokens_set_aside,
            "delivered": {c.value: gems_json(g) for c, g in d.delivered.items()},
            "tile_supply": {k.value: v for k, v in d.tile_supply.items()},
            "chasm_supply": {k.value: v for k, v in d.chasm_supply.items()},
            "chasm_token": d.chasm_token,
            "missions": {
                "open": [x.value for x in d.missions_open],
                "to_deal": d.missions_to_deal,
                "claimed_this_turn": d.claimed_this_turn,
            },
            "deck": {
                "left": d.deck_left,
                "chasm_card_in_deck": d.chasm_card_in_deck,
                "chasm_card_drawn_by": d.chasm_card_drawn_by,
                "final_turns_left": d.final_turns_left,
                "pile_drawn": sorted(c.value for c in d.pile_drawn),
                "seen": {c.value: sorted(s) for c, s in d.seen.items()},
                "solo_reveals_left": d.solo_reveals_left,
                "solo_chasm_card_out": d.solo_chasm_card_out,
            },
            "chasm_open": d.chasm_open,
            "gem_queue": [b.names[s] for s in d.gem_queue],
            "reveal_queue": [c.value for c in d.reveal_queue],
            "move": None
            if m is None
            else {
                "to_move": list(m.to_move),
                "cart": m.cart,
                "remaining": m.remaining,
                "pending": m.pending.value,
                "take_left": m.take_left,
                "hit": m.hit,
                "direction": m.direction.name,
                "drop": m.drop,
                "pile": gems_json(m.pile) if m.pile is not None else None,
                "mover_was_empty": m.mover_was_empty,
                "hit_was_empty": m.hit_was_empty,
                "head_on": m.head_on,
            },
            "record": {
                "hauls": [gems_json(h) for h in d.record.hauls],
                "left_from_opponent_surface": d.record.left_from_opponent_surface,
                "derailed_opponent": d.record.derailed_opponent,
                "head_on": d.record.head_on,
                "made_opponent_drop": d.record.made_opponent_drop,
                "filled_with_precious": d.record.filled_with_precious,
            },
            "end_reason": d.end_reason,
            "scores": self.scores(),
            "winners": self.winners() if d.phase is Phase.OVER else [],
            "solo": self.solo_result() if self.solo else None,
        }

    @classmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self:
        state = cls(options, seed)
        b = state.board
        n = int(options["players"])
        squares = len(b.names)
        d = _Data(phase=Phase(data["phase"]), players=n)
        d.turn, d.active, d.actions_left = data["turn"], data["active"], data["actions_left"]
        d.sides = [Side(p["side"]) if p["side"] else None for p in data["players"]]
        d.stockpiles = [gems_from_json(p["stockpile"]) for p in data["players"]]
        d.claimed = [tuple(Mission(x) for x in p["missions"]) for p in data["players"]]
        d.tiles, d.jewels, d.chasm = [None] * squares, [NO_GEMS] * squares, [None] * squares
        for name, entry in data["board"].items():
            sq = b.index(name)
            if "tile" in entry:
                t = entry["tile"]
                d.tiles[sq] = Tile(exits_mask(t["exits"]), TileKind(t["kind"]))
            if "jewels" in entry:
                d.jewels[sq] = gems_from_json(entry["jewels"])
            if "chasm" in entry:
                d.chasm[sq] = Colour(entry["chasm"])
        d.carts = {
            name: Cart(
                name,
                c["owner"],
                Colour(c["colour"]),
                Die(c["die"]) if c["die"] else None,
                CartStatus(c["status"]),
                b.index(c["square"]) if c["square"] else -1,
                Direction[c["heading"]],
                c["speed"],
                gems_from_json(c["hold"]),
                c["derailed"],
            )
            for name, c in data["carts"].items()
        }
        d.bag, d.removed = gems_from_json(data["bag"]), gems_from_json(data["removed"])
        d.tiles_removed = data["tiles_removed"]
        d.tokens_set_aside = data["tokens_set_aside"]
        d.delivered = {Colour(c): gems_from_json(g) for c, g in data["delivered"].items()}
        d.tile_supply = {TileKind(k): v for k, v in data["tile_supply"].items()}
        d.chasm_supply = {Colour(k): v for k, v in data["chasm_supply"].items()}
        d.chasm_token = Colour(data["chasm_token"]) if data["chasm_token"] else None
        missions = data["missions"]
        d.missions_open = tuple(Mission(x) for x in missions["open"])
        d.missions_to_deal = missions["to_deal"]
        d.claimed_this_turn = missions["claimed_this_turn"]
        deck = data["deck"]
        d.deck_left, d.chasm_card_in_deck = deck["left"], deck["chasm_card_in_deck"]
        d.chasm_card_drawn_by = deck["chasm_card_drawn_by"]
        d.final_turns_left = deck["final_turns_left"]
        d.pile_drawn = frozenset(Colour(c) for c in deck["pile_drawn"])
        d.seen = {Colour(c): frozenset(s) for c, s in deck["seen"].items()}
        d.solo_reveals_left = deck["solo_reveals_left"]
        d.solo_chasm_card_out = deck["solo_chasm_card_out"]
        d.chasm_open = data["chasm_open"]
        d.gem_queue = tuple(b.index(s) for s in data["gem_queue"])
        d.reveal_queue = tuple(Colour(c) for c in data["reveal_queue"])
        mj = data["move"]
        d.move = (
            None
            if mj is None
            else Move(
                tuple(mj["to_move"]),
                mj["cart"],
                mj["remaining"],
                Pending(mj["pending"]),
                mj["take_left"],
                mj["hit"],
                Direction[mj["direction"]],
                mj["drop"],
                gems_from_json(mj["pile"]) if mj["pile"] is not None else None,
                mj["mover_was_empty"],
                mj["hit_was_empty"],
                mj["head_on"],
            )
        )
        r = data["record"]
        d.record = TurnRecord(
            tuple(gems_from_json(h) for h in r["hauls"]),
            r["left_from_opponent_surface"],
            r["derailed_opponent"],
            r["head_on"],
            r["made_opponent_drop"],
            r["filled_with_precious"],
        )
        d.end_reason = data["end_reason"]
        state.d = d
        return state

    def invariants(self) -> list[str]:
        """Conservation laws: gems, tiles, chasm tokens; carts on legal squares, holds of 5."""
        d, b, comp = self.d, self.board, self.components
        broken = []
        total = NO_GEMS
        for g in [d.bag, d.removed, *d.jewels, *d.stockpiles]:
            total = gems_add(total, g)
        for c in d.carts.values():
            total = gems_add(total, c.hold)
        m = d.move
        expected = comp.solo_gems if self.solo else comp.gems
        if total != expected:
            broken.append(f"gems: {gems_json(total)} in play, the box holds {gems_json(expected)}")
        on_board = sum(1 for t in d.tiles if t is not None)
        tiles = sum(d.tile_supply.values()) + on_board + d.tiles_removed
        # a T laid over a straight or corner tile turns it over: one tile per square either way
        if tiles != sum(comp.tiles.values()):
            broken.append(f"tiles: {tiles} counted, the box holds {sum(comp.tiles.values())}")
        tokens = sum(d.chasm_supply.values()) + sum(1 for c in d.chasm if c is not None)
        tokens += d.tokens_set_aside + (1 if d.chasm_token is not None else 0)
        if not self.solo and not d.chasm_open:
            tokens += len(COLOURS) - sum(1 for c in d.chasm if c is not None)
        if tokens != len(COLOURS) * comp.chasm_tokens_per_colour:
            broken.append(f"chasm tokens: {tokens} counted")
        squares: dict[int, str] = {}
        for cart in d.carts.values():
            held = sum(cart.hold)
            if held > comp.hold_capacity:
                broken.append(f"minecart {cart.name} holds {held} jewels")
            if cart.status is not CartStatus.ON_BOARD:
                if cart.square != -1 or held:
                    broken.append(f"minecart {cart.name} off the board keeps a square or jewels")
                continue
            if cart.square in squares:
                broken.append(f"minecarts {squares[cart.square]} and {cart.name} share a square")
            squares[cart.square] = cart.name
            if self._track_mask(cart.square) == 0 or d.chasm[cart.square] is not None:
                broken.append(f"minecart {cart.name} stands on {b.names[cart.square]}, no track")
        for seat in range(d.players):
            out = sum(
                1 for c in d.carts.values() if c.owner == seat and c.status is CartStatus.ON_BOARD
            )
            if out > self._cart_limit():
                broken.append(f"seat {seat} has {out} minecarts on the board")
        if m is not None and d.phase is not Phase.MOVE:
            broken.append("a move is pending outside the move phase")
        return broken

    def view(self, seat: int | None) -> JsonDict:
        """Everything is open but a hit cart's hidden split, seen only by its owner."""
        out = self.to_json()
        m = self.d.move
        if m is not None and m.pile is not None and seat != self.d.carts[m.hit].owner:
            pile1 = sum(m.pile)
            held = sum(self.d.carts[m.hit].hold)
            out["move"]["pile"] = {"size_1": pile1, "size_2": held - pile1}
        return out
