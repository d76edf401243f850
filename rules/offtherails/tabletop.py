"""What changes during an Off the Rails game (the `Tabletop`), its values, and read-only queries.

The rule modules (`legality`, `movement`, `deposits`, `turns`, `scoring`, `codec`) are plain
functions over a `Tabletop`; the queries here are the ones several of them share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rules.core import CHANCE
from rules.offtherails.components import (
    COLOURS,
    NO_GEMS,
    Board,
    Colour,
    Components,
    Die,
    Direction,
    Gems,
    Side,
    TileKind,
    gems_add,
    gems_json,
    mask_directions,
)
from rules.offtherails.missions import Mission, TurnRecord, completed
from rules.offtherails.settings import CartPlacement, Settings


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

    @property
    def on_board(self) -> bool:
        return self.status is CartStatus.ON_BOARD


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
    end_pickup: bool = False  # stopped by a collision on a square it entered: picks up there


@dataclass(slots=True)
class Tabletop:
    """Everything that changes during a game: containers of frozen values, cheap to copy.

    `settings` is the one fixed part (board, components, options), shared by every copy.
    """

    settings: Settings
    phase: Phase
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
    revealed: str = ""  # the deposit card turned up last ("red-3", "chasm"), in the reveal slot
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
    solo_waiting: tuple[tuple[int, Colour], ...] = ()  # squares revealed, tokens not yet placed
    move: Move | None = None
    record: TurnRecord = field(default_factory=TurnRecord)
    claimed_this_turn: bool = False
    end_reason: str = ""

    def copy(self) -> Tabletop:
        """An independent copy: new containers holding the same frozen values."""
        # Field by field, written out: the search copies a tabletop at every step, and a loop of
        # getattr/setattr costs three times as much. A test checks no field is left out.
        twin: Tabletop = _new_tabletop(Tabletop)
        twin.settings = self.settings
        twin.phase = self.phase
        twin.active = self.active
        twin.turn = self.turn
        twin.actions_left = self.actions_left
        twin.sides = self.sides[:]
        twin.tiles = self.tiles[:]
        twin.jewels = self.jewels[:]
        twin.chasm = self.chasm[:]
        twin.carts = self.carts.copy()
        twin.stockpiles = self.stockpiles[:]
        twin.delivered = self.delivered.copy()
        twin.claimed = self.claimed[:]
        twin.missions_open = self.missions_open
        twin.missions_to_deal = self.missions_to_deal
        twin.bag = self.bag
        twin.removed = self.removed
        twin.tiles_removed = self.tiles_removed
        twin.tokens_set_aside = self.tokens_set_aside
        twin.tile_supply = self.tile_supply.copy()
        twin.chasm_supply = self.chasm_supply.copy()
        twin.seen = self.seen.copy()
        twin.revealed = self.revealed
        twin.deck_left = self.deck_left
        twin.pile_drawn = self.pile_drawn
        twin.chasm_card_in_deck = self.chasm_card_in_deck
        twin.chasm_card_drawn_by = self.chasm_card_drawn_by
        twin.final_turns_left = self.final_turns_left
        twin.chasm_open = self.chasm_open
        twin.chasm_token = self.chasm_token
        twin.gem_queue = self.gem_queue
        twin.reveal_queue = self.reveal_queue
        twin.solo_reveals_left = self.solo_reveals_left
        twin.solo_chasm_card_out = self.solo_chasm_card_out
        twin.solo_waiting = self.solo_waiting
        twin.move = self.move
        twin.record = self.record
        twin.claimed_this_turn = self.claimed_this_turn
        twin.end_reason = self.end_reason
        return twin

    # ---- the fixed facts, for short
    @property
    def board(self) -> Board:
        return self.settings.board

    @property
    def components(self) -> Components:
        return self.settings.components

    @property
    def solo(self) -> bool:
        return self.settings.solo

    @property
    def players(self) -> int:
        return self.settings.players

    @property
    def moving(self) -> Move:
        """The move in progress (only asked for in the move phase)."""
        assert self.move is not None, "no move in progress"
        return self.move


_new_tabletop = object.__new__


# ------------------------------------------------------------------------------ shared queries


def current_player(tabletop: Tabletop) -> int | None:
    """A seat, `CHANCE`, or None once the game is over."""
    if tabletop.phase is Phase.OVER:
        return None
    if tabletop.gem_queue or tabletop.phase in CHANCE_PHASES:
        return CHANCE
    if tabletop.phase is Phase.CHOOSE_SIDE:
        return 0
    move = tabletop.move
    if tabletop.phase is Phase.MOVE and move is not None and move.pending is Pending.SPLIT:
        return tabletop.carts[move.hit].owner
    return tabletop.active


def carts_of(tabletop: Tabletop, seat: int) -> list[Cart]:
    return [cart for cart in tabletop.carts.values() if cart.owner == seat]


def own_carts(tabletop: Tabletop) -> list[Cart]:
    """The active player's minecarts."""
    return carts_of(tabletop, tabletop.active)


def own_cart(tabletop: Tabletop, name: str) -> Cart:
    """The active player's minecart `name`; a ValueError says why there is none."""
    cart = tabletop.carts.get(name)
    if cart is None:
        raise ValueError(f"there is no minecart {name!r}")
    if cart.owner != tabletop.active:
        raise ValueError(
            f"minecart {name} belongs to seat {cart.owner}, not to seat {tabletop.active}"
        )
    return cart


def occupied(tabletop: Tabletop) -> dict[int, str]:
    """Square -> the minecart on it."""
    on_board = CartStatus.ON_BOARD
    return {cart.square: cart.name for cart in tabletop.carts.values() if cart.status is on_board}


def track_mask(tabletop: Tabletop, square: int) -> int:
    """The exits of the way on from a square: its tile, a printed starting track, or (where
    new minecarts may stand on any surface square) the line into and out of the mine; 0: none.

    Entering a surface square is another matter (see `movement`): only a starting track leads out.
    """
    tile = tabletop.tiles[square]
    if tile is not None:
        return tile.mask
    board = tabletop.board
    printed = board.starting_track_exits.get(square, 0)
    if printed or tabletop.settings.cart_placement is not CartPlacement.SURFACE:
        return printed
    side = board.side_of_square.get(square)
    return 0 if side is None else side.outward.bit | side.outward.opposite.bit


def exits_ahead(tabletop: Tabletop, cart: Cart) -> tuple[Direction, ...]:
    """The exits of the cart's track other than the one it came in by."""
    behind = cart.heading.opposite
    mask = track_mask(tabletop, cart.square)
    return tuple(exit for exit in mask_directions(mask) if exit != behind)


def chasm_beyond(tabletop: Tabletop, square: int, exit: Direction) -> bool:
    beyond = tabletop.board.neighbours[square][exit]
    return beyond is not None and tabletop.chasm[beyond] is not None


def ways_on(tabletop: Tabletop, cart: Cart) -> tuple[Direction, ...]:
    """The exits the cart may take: never onto a chasm while another is open (seed 000: "No
    player can move onto ... the chasm spaces, if a minecart is forced to move onto a Chasm
    Token it is removed"); with a chasm beyond every exit it is forced into the first."""
    ahead = exits_ahead(tabletop, cart)
    safe = tuple(exit for exit in ahead if not chasm_beyond(tabletop, cart.square, exit))
    return safe or ahead[:1]


def may_place_cart(tabletop: Tabletop) -> bool:
    on_board = sum(1 for cart in own_carts(tabletop) if cart.on_board)
    return on_board < tabletop.settings.cart_limit


def cart_squares(tabletop: Tabletop, cart: Cart) -> tuple[int, ...]:
    """Where a minecart may ever be placed: its colour's Surface Layer, or its starting tracks."""
    board = tabletop.board
    side = board.sides[board.side_for_colour(cart.colour)]
    if tabletop.settings.cart_placement is CartPlacement.SURFACE:
        return side.squares
    return side.starting_tracks


def free_cart_squares(tabletop: Tabletop, cart: Cart) -> list[int]:
    """The squares a minecart from the supply may be placed on now."""
    taken = occupied(tabletop)
    return [square for square in cart_squares(tabletop, cart) if square not in taken]


def claimable(tabletop: Tabletop) -> list[Mission]:
    """The open missions the active player has completed and may claim now."""
    if tabletop.claimed_this_turn or tabletop.solo:
        return []
    seat = tabletop.active
    holds = [cart.hold for cart in carts_of(tabletop, seat) if cart.on_board]
    return [
        mission
        for mission in tabletop.missions_open
        if completed(mission, seat, tabletop.record, tabletop.stockpiles, holds)
    ]


def chasm_targets(tabletop: Tabletop) -> list[int]:
    """Where the drawn chasm token may go: mine-area squares next to one of its colour."""
    colour = tabletop.chasm_token
    if colour is None:
        return []
    board = tabletop.board
    allowed = set(board.chasm_squares)
    targets = set()
    for square, there in enumerate(tabletop.chasm):
        if there is colour:
            for beside in board.neighbours[square]:
                if beside is not None and beside in allowed and tabletop.chasm[beside] is None:
                    targets.add(beside)
    return sorted(targets)


def unseen(tabletop: Tabletop, colour: Colour) -> list[int]:
    """The deposit card numbers of a colour not yet turned face up."""
    seen = tabletop.seen[colour]
    numbers = range(1, tabletop.components.deposit_numbers + 1)
    return [number for number in numbers if number not in seen]


def die_numbers(tabletop: Tabletop, colour: Colour) -> list[int]:
    """Chasm die variant: the numbers whose mine square of `colour` has not collapsed."""
    mine = tabletop.board.mines[colour]
    return [i + 1 for i, square in enumerate(mine.squares) if tabletop.chasm[square] is None]


def tokens_in_play(tabletop: Tabletop) -> int:
    """Chasm tokens on the board."""
    return sum(1 for colour in tabletop.chasm if colour is not None)


def invariants(tabletop: Tabletop) -> list[str]:
    """The conservation laws that do not hold now: gems, tiles, chasm tokens; carts on track
    squares of their own, holds of at most 5, no more carts on the board than allowed."""
    board, components = tabletop.board, tabletop.components
    broken = []
    total = NO_GEMS
    for gems in [tabletop.bag, tabletop.removed, *tabletop.jewels, *tabletop.stockpiles]:
        total = gems_add(total, gems)
    for cart in tabletop.carts.values():
        total = gems_add(total, cart.hold)
    expected = components.solo_gems if tabletop.solo else components.gems
    if total != expected:
        broken.append(f"gems: {gems_json(total)} in play, the box holds {gems_json(expected)}")
    on_board = sum(1 for tile in tabletop.tiles if tile is not None)
    tiles = sum(tabletop.tile_supply.values()) + on_board + tabletop.tiles_removed
    # a T laid over a straight or corner tile turns it over: one tile per square either way
    if tiles != sum(components.tiles.values()):
        broken.append(f"tiles: {tiles} counted, the box holds {sum(components.tiles.values())}")
    placed = tokens_in_play(tabletop)
    tokens = sum(tabletop.chasm_supply.values()) + placed + tabletop.tokens_set_aside
    tokens += 1 if tabletop.chasm_token is not None else 0
    if not tabletop.solo and not tabletop.chasm_open:
        tokens += len(COLOURS) - placed  # the chasm deck's tokens, still waiting
    if tokens != len(COLOURS) * components.chasm_tokens_per_colour:
        broken.append(f"chasm tokens: {tokens} counted")
    squares: dict[int, str] = {}
    for cart in tabletop.carts.values():
        held = sum(cart.hold)
        if held > components.hold_capacity:
            broken.append(f"minecart {cart.name} holds {held} jewels")
        if not cart.on_board:
            if cart.square != -1 or held:
                broken.append(f"minecart {cart.name} off the board keeps a square or jewels")
            continue
        if cart.square in squares:
            broken.append(f"minecarts {squares[cart.square]} and {cart.name} share a square")
        squares[cart.square] = cart.name
        if track_mask(tabletop, cart.square) == 0 or tabletop.chasm[cart.square] is not None:
            broken.append(f"minecart {cart.name} stands on {board.names[cart.square]}, no track")
    for seat in range(tabletop.players):
        out = sum(1 for cart in carts_of(tabletop, seat) if cart.on_board)
        if out > tabletop.settings.cart_limit:
            broken.append(f"seat {seat} has {out} minecarts on the board")
    if tabletop.move is not None and tabletop.phase is not Phase.MOVE:
        broken.append("a move is pending outside the move phase")
    return broken
