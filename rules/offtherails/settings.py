"""Off the Rails options, and what stays fixed in one game: board, components, readings chosen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.core import BadOptions, Option, resolve_options
from rules.offtherails.components import Board, Components, load_board, load_components

GAME = "offtherails"


class EndOnDeposit(StrEnum):
    """What a minecart ending its move on a deposit picks up (the texts disagree)."""

    TWO = "two"  # seed 000: "they must pick up two gems from that space"
    FILL = "fill"  # seed 001: "he/she must pick up all the gems to fill their minecart"


class CartBonus(StrEnum):
    """Which minecarts score the 3-point bonus at the end (the texts disagree)."""

    UNDERAILED = "underailed"  # seed 001: "Each underailed minecart is worth 3 points"
    IN_SUPPLY = "in_supply"  # seed 000: "Each minecart in a player's supply is worth 3 points"


class BumperHeadOn(StrEnum):
    """Bumper carts variant: what "Head on collisions resolve as normal" keeps."""

    NORMAL = "normal"  # a head-on collision still drops jewels and derails empty carts
    BUMP = "bump"  # head-on collisions too only turn the carts round


class CartPlacement(StrEnum):
    """Where a new minecart may be placed (seed 000 against the BGA help)."""

    SURFACE = "surface"  # seed 000: "on any unoccupied square of your Surface Layer"
    STARTING_TRACK = "starting_track"  # BGA help: on one of the owner's starting tracks


class CollisionOnDeposit(StrEnum):
    """What a minecart stopped by a collision on a deposit picks up there."""

    ENDS_MOVE = "ends_move"  # seed 000: the collision "ends its movement": as at any move's end
    PASSED = "passed"  # it only passed through its last square (one gem)


class SoloChasmCard(StrEnum):
    """Solo: what the Chasm card does when it comes up in a deposits phase."""

    NO_TOKEN_THIS_TURN = "no_token_this_turn"  # seed 000: "do not place a Chasm Token this turn"
    PLACES_NOTHING = "places_nothing"  # only the card itself places nothing; the others do


def _values(kind: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in kind)


OPTIONS: tuple[Option, ...] = (
    Option("players", 4, (1, 2, 3, 4), "1 plays the solo game", main=True),
    Option(
        "board",
        "standard",
        None,
        "board data file name (rules/offtherails/data) or path",
        offered=("standard",),
    ),
    Option(
        "end_on_deposit",
        EndOnDeposit.TWO.value,
        _values(EndOnDeposit),
        "ending a move on a deposit: pick up two gems (seed 000) or fill the hold (seed 001)",
    ),
    Option(
        "cart_bonus",
        CartBonus.UNDERAILED.value,
        _values(CartBonus),
        "3 points per underailed minecart (seed 001) or per minecart in supply (seed 000)",
    ),
    Option("bumper_carts", False, (False, True), "variant: collisions only turn carts"),
    Option(
        "bumper_head_on",
        BumperHeadOn.NORMAL.value,
        _values(BumperHeadOn),
        "bumper carts: a head-on collision still drops and derails (normal) or only turns (bump)",
        needs=("bumper_carts", True),
    ),
    Option("chasm_die", False, (False, True), "variant: a d8 picks the collapsing mine square"),
    Option(
        "deposit_cards",
        0,
        (0, 13, 17, 21, 25),
        "game length in deposit cards incl. the Chasm card; 0: 21 for 4 players, else 17",
    ),
    Option(
        "solo_carts_on_board",
        2,
        (2, 4),
        "solo: how many minecarts may be on the board",
        players=(1,),
    ),
    Option(
        "cart_placement",
        CartPlacement.SURFACE.value,
        _values(CartPlacement),
        "a new minecart goes on any free square of its Surface Layer (seed 000) or only on a "
        "free starting track (BGA help)",
    ),
    Option(
        "collision_on_deposit",
        CollisionOnDeposit.ENDS_MOVE.value,
        _values(CollisionOnDeposit),
        "a cart stopped by a collision on a deposit picks up as at the end of a move (seed 000) "
        "or only as passing through",
    ),
    Option(
        "deposit_deck",
        "digital",
        ("digital", "physical"),
        "the deposit deck: drawn by the service (digital: phones say what came up) or real cards "
        "turned up in the reveal slot, read by the camera; gems and chasm tokens then come from "
        "real bags and are entered on a phone",
        main=True,
    ),
    Option(
        "solo_chasm_card",
        SoloChasmCard.NO_TOKEN_THIS_TURN.value,
        _values(SoloChasmCard),
        "solo: the Chasm card in a deposits phase means no chasm token that turn (seed 000), or "
        "only that the card places none",
        players=(1,),
    ),
)


@dataclass(frozen=True)
class Settings:
    """What stays fixed for a whole game: the board, the box's components and every option."""

    players: int
    board: Board
    components: Components
    end_on_deposit: EndOnDeposit
    cart_bonus: CartBonus
    bumper_carts: bool
    bumper_head_on: BumperHeadOn
    chasm_die: bool
    deposit_cards: int
    solo_carts_on_board: int
    cart_placement: CartPlacement
    collision_on_deposit: CollisionOnDeposit
    solo_chasm_card: SoloChasmCard
    physical_deck: bool = False

    @property
    def solo(self) -> bool:
        return self.players == 1

    @property
    def cart_limit(self) -> int:
        """How many minecarts a player may have on the board at once."""
        return self.solo_carts_on_board if self.solo else 2

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Settings:
        """Settings from options (missing ones take their defaults); bad ones raise `BadOptions`."""
        options = resolve_options(OPTIONS, options)
        try:
            board = load_board(str(options["board"]))
        except ValueError as e:  # a board file is an option like any other
            raise BadOptions(f"option 'board' is {options['board']!r}: {e}") from None
        return cls(
            players=int(options["players"]),
            board=board,
            components=load_components(),
            end_on_deposit=EndOnDeposit(options["end_on_deposit"]),
            cart_bonus=CartBonus(options["cart_bonus"]),
            bumper_carts=bool(options["bumper_carts"]),
            bumper_head_on=BumperHeadOn(options["bumper_head_on"]),
            chasm_die=bool(options["chasm_die"]),
            deposit_cards=int(options["deposit_cards"]),
            solo_carts_on_board=int(options["solo_carts_on_board"]),
            cart_placement=CartPlacement(options["cart_placement"]),
            collision_on_deposit=CollisionOnDeposit(options["collision_on_deposit"]),
            solo_chasm_card=SoloChasmCard(options["solo_chasm_card"]),
            physical_deck=options["deposit_deck"] == "physical",
        )
