"""Off the Rails in players' words: the options as a player chooses them, each seat's colour."""

from __future__ import annotations

from typing import Any

from rules.core import GameWords, OptionWords

OPTIONS = {
    "players": OptionWords("Players", "1 plays the solo game."),
    "board": OptionWords("Board", "The printed board: standard unless you made your own."),
    "end_on_deposit": OptionWords(
        "A minecart stopping on a deposit",
        "What a minecart picks up when its move ends on a deposit.",
        {'"two"': "picks up two gems", '"fill"': "fills its hold"},
    ),
    "cart_bonus": OptionWords(
        "End bonus",
        "3 points at the end for each minecart that…",
        {'"underailed"': "never derailed", '"in_supply"': "is still in your supply"},
    ),
    "bumper_carts": OptionWords("Bumper carts", "A collision only turns the minecarts round."),
    "bumper_head_on": OptionWords(
        "Bumper carts, head on",
        "With bumper carts, what a head-on collision does.",
        {'"normal"': "drops and derails as usual", '"bump"': "only turns them"},
    ),
    "chasm_die": OptionWords(
        "Chasm die", "An eight-sided die picks the mine square that falls in."
    ),
    "deposit_cards": OptionWords(
        "Game length",
        "How many deposit cards, the Chasm card among them.",
        {
            "0": "usual (21 with 4 players, else 17)",
            "13": "13: short",
            "17": "17",
            "21": "21",
            "25": "25: long",
        },
    ),
    "solo_carts_on_board": OptionWords("Solo: minecarts on the board", "At most this many."),
    "cart_placement": OptionWords(
        "A new minecart goes",
        "Where a minecart may be placed.",
        {
            '"surface"': "on any free square of its surface",
            '"starting_track"': "on a free starting track only",
        },
    ),
    "collision_on_deposit": OptionWords(
        "Stopped on a deposit by a collision",
        "Whether the minecart still picks up.",
        {'"ends_move"': "picks up as at the end of a move", '"passed"': "only passes through"},
    ),
    "deposit_deck": OptionWords(
        "Deposit cards",
        "Who turns up the deposit cards.",
        {
            '"digital"': "the table draws them (phones say what came up)",
            '"physical"': "real cards, turned up in the reveal slot",
        },
    ),
    "solo_chasm_card": OptionWords(
        "Solo: the Chasm card",
        "What the Chasm card means in a deposits phase.",
        {
            '"no_token_this_turn"': "no chasm token that turn",
            '"places_nothing"': "the card places none",
        },
    ),
}


def seat_colour(state: Any, seat: int) -> str | None:
    """The colour of the seat's minecarts, once it has chosen its side."""
    for cart in state._tabletop.carts.values():
        if cart.owner == seat and cart.die is not None:
            return str(cart.colour.value)
    return None


WORDS = GameWords(options=OPTIONS, seat_colour=seat_colour)  # its places are named as printed
