"""Carrying out a legal action: each action type handed to the rule module it belongs to."""

from __future__ import annotations

from dataclasses import replace

from rules.core import Action
from rules.offtherails import actions, deposits, movement, turns
from rules.offtherails.components import CROSS_MASK, STRAIGHT_MASKS, TileKind, exits_mask
from rules.offtherails.legality import pile_gems
from rules.offtherails.tabletop import CartStatus, Tabletop, Tile


def carry_out(tabletop: Tabletop, action: Action) -> None:
    """Apply an action already known to be legal."""
    board = tabletop.board
    match action:
        # ---- chance
        case actions.DrawGem(gem=gem):
            deposits.draw_gem(tabletop, gem)
        case actions.AssignSide(side=side):
            turns.assign_side(tabletop, side)
        case actions.DealMission(mission=mission):
            turns.deal_mission(tabletop, mission)
        case actions.RevealDeposit(colour=colour, number=number):
            deposits.reveal_deposit(tabletop, colour, number)
        case actions.RevealChasmCard():
            deposits.reveal_chasm_card(tabletop)
        case actions.DrawChasmToken(colour=colour):
            deposits.draw_chasm_token(tabletop, colour)
        case actions.RollChasmDie(number=number):
            deposits.roll_chasm_die(tabletop, number)
        # ---- players
        case actions.ChooseSide(side=side):
            turns.choose_side(tabletop, side)
        case actions.PlaceTile(square=square, exits=exits):
            _place_tile(tabletop, board.index(square), exits_mask(exits))
            turns.action_used(tabletop)
        case actions.Upgrade(square=square, exits=exits):
            _upgrade(tabletop, board.index(square), exits_mask(exits))
            turns.action_used(tabletop)
        case actions.PlaceCart(cart=name, square=square):
            _place_cart(tabletop, name, board.index(square))
            turns.action_used(tabletop)
        case actions.SetSpeed(cart=name, speed=speed):
            tabletop.carts[name] = replace(tabletop.carts[name], speed=speed)
            turns.action_used(tabletop)
        case actions.EndActions():
            turns.end_actions(tabletop)
        case actions.MoveFirst(cart=name):
            _moved(tabletop, movement.move_first(tabletop, name))
        case actions.Route(exit=exit):
            _moved(tabletop, movement.route(tabletop, exit))
        case actions.TakeJewel(jewel=gem):
            _moved(tabletop, movement.take_jewel(tabletop, gem))
        case actions.Split(pile=pile):
            _moved(tabletop, movement.split(tabletop, pile_gems(pile)))
        case actions.DropPile(pile=number):
            _moved(tabletop, movement.drop_pile(tabletop, number))
        case actions.ClaimMission(mission=mission):
            turns.claim(tabletop, mission)
        case actions.PlaceChasm(square=square):
            deposits.place_chasm_token(tabletop, board.index(square))
        case _:
            raise AssertionError(action)


def _moved(tabletop: Tabletop, all_moved: bool) -> None:
    if all_moved:
        turns.after_move(tabletop)


def _place_tile(tabletop: Tabletop, square: int, mask: int) -> None:
    kind = TileKind.STRAIGHT_T if mask in STRAIGHT_MASKS else TileKind.CORNER_T
    tabletop.tile_supply = {**tabletop.tile_supply, kind: tabletop.tile_supply[kind] - 1}
    tabletop.tiles[square] = Tile(mask, kind)


def _upgrade(tabletop: Tabletop, square: int, mask: int) -> None:
    old = tabletop.tiles[square]
    assert old is not None
    if mask == CROSS_MASK:
        # the T goes back to the supply; a T/cross tile goes down cross face up
        supply = tabletop.tile_supply
        tabletop.tile_supply = {
            **supply,
            old.kind: supply[old.kind] + 1,
            TileKind.T_CROSS: supply[TileKind.T_CROSS] - 1,
        }
        tabletop.tiles[square] = Tile(mask, TileKind.T_CROSS)
    else:
        tabletop.tiles[square] = Tile(mask, old.kind)  # the same tile, turned over


def _place_cart(tabletop: Tabletop, name: str, square: int) -> None:
    side = tabletop.board.side_of_square[square]
    tabletop.carts[name] = replace(
        tabletop.carts[name],
        status=CartStatus.ON_BOARD,
        square=square,
        heading=side.outward.opposite,
        speed=tabletop.components.start_speed,
        derailed=False,
    )
