"""The Off the Rails state as JSON: the whole state (`state_json`, for the log and scenarios), and
what one seat may see (`view_json`), built part by part from what is public.

The only secret in Off the Rails is a hit minecart's split while the mover picks a pile: its
owner sees pile 1, everyone else only the piles' sizes. The random seed is never in a view.
"""

from __future__ import annotations

from typing import Any

from rules.core import JsonDict
from rules.offtherails.components import (
    NO_GEMS,
    Colour,
    Die,
    Direction,
    Gems,
    Side,
    TileKind,
    exits_mask,
    exits_text,
    gems_from_json,
    gems_json,
    shape_of,
)
from rules.offtherails.missions import Mission, TurnRecord
from rules.offtherails.scoring import scores, solo_result, winners
from rules.offtherails.settings import Settings
from rules.offtherails.tabletop import (
    Cart,
    CartStatus,
    Move,
    Pending,
    Phase,
    Tabletop,
    Tile,
    current_player,
)


def state_json(tabletop: Tabletop) -> JsonDict:
    """Everything that defines the state (besides game, options and seed)."""
    return _json(tabletop, _move_json(tabletop.move, show_pile=True))


def view_json(tabletop: Tabletop, seat: int | None) -> JsonDict:
    """What `seat` may see (None: a spectator): the public parts, and its own secret."""
    move = tabletop.move
    show_pile = move is None or move.pile is None or tabletop.carts[move.hit].owner == seat
    if show_pile or move is None:
        return _json(tabletop, _move_json(move, show_pile=True))
    hidden = _move_json(move, show_pile=False)
    assert move.pile is not None and hidden is not None
    pile_1 = sum(move.pile)
    hidden["pile"] = {"size_1": pile_1, "size_2": sum(tabletop.carts[move.hit].hold) - pile_1}
    return _json(tabletop, hidden)


def _json(tabletop: Tabletop, move: JsonDict | None) -> JsonDict:
    return {
        "phase": tabletop.phase.value,
        "turn": tabletop.turn,
        "active": tabletop.active,
        "current_player": current_player(tabletop),
        "actions_left": tabletop.actions_left,
        "players": [_player_json(tabletop, seat) for seat in range(tabletop.players)],
        "carts": {cart.name: _cart_json(tabletop, cart) for cart in tabletop.carts.values()},
        "board": _board_json(tabletop),
        "bag": gems_json(tabletop.bag),
        "removed": gems_json(tabletop.removed),
        "tiles_removed": tabletop.tiles_removed,
        "tokens_set_aside": tabletop.tokens_set_aside,
        "delivered": {c.value: gems_json(g) for c, g in tabletop.delivered.items()},
        "tile_supply": {kind.value: n for kind, n in tabletop.tile_supply.items()},
        "chasm_supply": {colour.value: n for colour, n in tabletop.chasm_supply.items()},
        "chasm_token": tabletop.chasm_token,
        "missions": {
            "open": [mission.value for mission in tabletop.missions_open],
            "to_deal": tabletop.missions_to_deal,
            "claimed_this_turn": tabletop.claimed_this_turn,
        },
        "deck": _deck_json(tabletop),
        "chasm_open": tabletop.chasm_open,
        "gem_queue": [tabletop.board.names[square] for square in tabletop.gem_queue],
        "reveal_queue": [colour.value for colour in tabletop.reveal_queue],
        "move": move,
        "record": _record_json(tabletop.record),
        "end_reason": tabletop.end_reason,
        "scores": scores(tabletop),
        "winners": winners(tabletop) if tabletop.phase is Phase.OVER else [],
        "solo": _solo_json(tabletop) if tabletop.solo else None,
    }


def _player_json(tabletop: Tabletop, seat: int) -> JsonDict:
    side = tabletop.sides[seat]
    return {
        "seat": seat,
        "side": side.value if side is not None else None,
        "stockpile": gems_json(tabletop.stockpiles[seat]),
        "missions": [mission.value for mission in tabletop.claimed[seat]],
    }


def _cart_json(tabletop: Tabletop, cart: Cart) -> JsonDict:
    return {
        "owner": cart.owner,
        "colour": cart.colour.value,
        "die": cart.die.value if cart.die else None,
        "status": cart.status.value,
        "square": tabletop.board.names[cart.square] if cart.square >= 0 else None,
        "heading": cart.heading.name,
        "speed": cart.speed,
        "hold": gems_json(cart.hold),
        "derailed": cart.derailed,
    }


def _board_json(tabletop: Tabletop) -> JsonDict:
    board: JsonDict = {}
    for square, name in enumerate(tabletop.board.names):
        entry: JsonDict = {}
        tile = tabletop.tiles[square]
        if tile is not None:
            entry["tile"] = {
                "exits": exits_text(tile.mask),
                "shape": shape_of(tile.mask).value,
                "kind": tile.kind.value,
            }
        if sum(tabletop.jewels[square]):
            entry["jewels"] = gems_json(tabletop.jewels[square])
        if tabletop.chasm[square] is not None:
            entry["chasm"] = tabletop.chasm[square]
        if entry:
            board[name] = entry
    return board


def _deck_json(tabletop: Tabletop) -> JsonDict:
    return {
        "left": tabletop.deck_left,
        "chasm_card_in_deck": tabletop.chasm_card_in_deck,
        "chasm_card_drawn_by": tabletop.chasm_card_drawn_by,
        "final_turns_left": tabletop.final_turns_left,
        "pile_drawn": sorted(colour.value for colour in tabletop.pile_drawn),
        "seen": {colour.value: sorted(numbers) for colour, numbers in tabletop.seen.items()},
        "revealed": tabletop.revealed,
        "solo_reveals_left": tabletop.solo_reveals_left,
        "solo_chasm_card_out": tabletop.solo_chasm_card_out,
        "solo_waiting": [
            {"square": tabletop.board.names[square], "colour": colour.value}
            for square, colour in tabletop.solo_waiting
        ],
    }


def _move_json(move: Move | None, show_pile: bool) -> JsonDict | None:
    if move is None:
        return None
    pile: Any = gems_json(move.pile) if show_pile and move.pile is not None else None
    return {
        "to_move": list(move.to_move),
        "cart": move.cart,
        "remaining": move.remaining,
        "pending": move.pending.value,
        "take_left": move.take_left,
        "hit": move.hit,
        "direction": move.direction.name,
        "drop": move.drop,
        "pile": pile,
        "mover_was_empty": move.mover_was_empty,
        "hit_was_empty": move.hit_was_empty,
        "head_on": move.head_on,
        "end_pickup": move.end_pickup,
    }


def _record_json(record: TurnRecord) -> JsonDict:
    return {
        "hauls": [gems_json(haul) for haul in record.hauls],
        "left_from_opponent_surface": record.left_from_opponent_surface,
        "derailed_opponent": record.derailed_opponent,
        "head_on": record.head_on,
        "made_opponent_drop": record.made_opponent_drop,
        "filled_with_precious": record.filled_with_precious,
    }


def _solo_json(tabletop: Tabletop) -> JsonDict:
    result = solo_result(tabletop)
    return {
        "outcome": result.outcome.value,
        "high_score": result.high_score,
        "delivered_matching": {gem.value: n for gem, n in result.delivered_matching.items()},
        "delivered_other": {gem.value: n for gem, n in result.delivered_other.items()},
    }


# ------------------------------------------------------------------------------ reading it back


def tabletop_from_json(settings: Settings, data: JsonDict) -> Tabletop:
    """The tabletop `state_json` wrote."""
    board = settings.board
    squares = len(board.names)
    tabletop = Tabletop(settings=settings, phase=Phase(data["phase"]))
    tabletop.turn, tabletop.active = data["turn"], data["active"]
    tabletop.actions_left = data["actions_left"]
    players = data["players"]
    tabletop.sides = [Side(p["side"]) if p["side"] else None for p in players]
    tabletop.stockpiles = [gems_from_json(p["stockpile"]) for p in players]
    tabletop.claimed = [tuple(Mission(m) for m in p["missions"]) for p in players]
    tabletop.tiles = [None] * squares
    tabletop.jewels = [NO_GEMS] * squares
    tabletop.chasm = [None] * squares
    for name, entry in data["board"].items():
        square = board.index(name)
        if "tile" in entry:
            tile = entry["tile"]
            tabletop.tiles[square] = Tile(exits_mask(tile["exits"]), TileKind(tile["kind"]))
        if "jewels" in entry:
            tabletop.jewels[square] = gems_from_json(entry["jewels"])
        if "chasm" in entry:
            tabletop.chasm[square] = Colour(entry["chasm"])
    tabletop.carts = {
        name: Cart(
            name,
            cart["owner"],
            Colour(cart["colour"]),
            Die(cart["die"]) if cart["die"] else None,
            CartStatus(cart["status"]),
            board.index(cart["square"]) if cart["square"] else -1,
            Direction[cart["heading"]],
            cart["speed"],
            gems_from_json(cart["hold"]),
            cart["derailed"],
        )
        for name, cart in data["carts"].items()
    }
    tabletop.bag = gems_from_json(data["bag"])
    tabletop.removed = gems_from_json(data["removed"])
    tabletop.tiles_removed = data["tiles_removed"]
    tabletop.tokens_set_aside = data["tokens_set_aside"]
    tabletop.delivered = {Colour(c): gems_from_json(g) for c, g in data["delivered"].items()}
    tabletop.tile_supply = {TileKind(k): n for k, n in data["tile_supply"].items()}
    tabletop.chasm_supply = {Colour(k): n for k, n in data["chasm_supply"].items()}
    tabletop.chasm_token = Colour(data["chasm_token"]) if data["chasm_token"] else None
    missions = data["missions"]
    tabletop.missions_open = tuple(Mission(m) for m in missions["open"])
    tabletop.missions_to_deal = missions["to_deal"]
    tabletop.claimed_this_turn = missions["claimed_this_turn"]
    deck = data["deck"]
    tabletop.deck_left = deck["left"]
    tabletop.chasm_card_in_deck = deck["chasm_card_in_deck"]
    tabletop.chasm_card_drawn_by = deck["chasm_card_drawn_by"]
    tabletop.final_turns_left = deck["final_turns_left"]
    tabletop.pile_drawn = frozenset(Colour(c) for c in deck["pile_drawn"])
    tabletop.seen = {Colour(c): frozenset(numbers) for c, numbers in deck["seen"].items()}
    tabletop.revealed = str(deck.get("revealed", ""))
    tabletop.solo_reveals_left = deck["solo_reveals_left"]
    tabletop.solo_chasm_card_out = deck["solo_chasm_card_out"]
    tabletop.solo_waiting = tuple(
        (board.index(waiting["square"]), Colour(waiting["colour"]))
        for waiting in deck.get("solo_waiting", [])
    )
    tabletop.chasm_open = data["chasm_open"]
    tabletop.gem_queue = tuple(board.index(s) for s in data["gem_queue"])
    tabletop.reveal_queue = tuple(Colour(c) for c in data["reveal_queue"])
    tabletop.move = _move_from_json(data["move"])
    tabletop.record = _record_from_json(data["record"])
    tabletop.end_reason = data["end_reason"]
    return tabletop


def _move_from_json(move: JsonDict | None) -> Move | None:
    if move is None:
        return None
    pile: Gems | None = gems_from_json(move["pile"]) if move["pile"] is not None else None
    return Move(
        tuple(move["to_move"]),
        move["cart"],
        move["remaining"],
        Pending(move["pending"]),
        move["take_left"],
        move["hit"],
        Direction[move["direction"]],
        move["drop"],
        pile,
        move["mover_was_empty"],
        move["hit_was_empty"],
        move["head_on"],
        bool(move.get("end_pickup", False)),
    )


def _record_from_json(record: JsonDict) -> TurnRecord:
    return TurnRecord(
        tuple(gems_from_json(haul) for haul in record["hauls"]),
        record["left_from_opponent_surface"],
        record["derailed_opponent"],
        record["head_on"],
        record["made_opponent_drop"],
        record["filled_with_precious"],
    )
