"""Off the Rails in players' words: the options as a player chooses them, each seat's colour."""

from __future__ import annotations

from typing import Any

from rules.core import GameWords, OptionWords
from rules.offtherails.components import COLOURS, Die, Shape
from rules.offtherails.physical import catalogue

OPTIONS = {
    "players": OptionWords("Players", "1 plays the solo game."),
    "board": OptionWords(
        "Board",
        "The printed board: standard unless you made your own.",
        {'"standard"': "standard"},
    ),
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
        "Who turns up the deposit cards: the table (the phones say what came up), or you, "
        "turning real cards up in the reveal slot.",
        {'"digital"': "the table draws them", '"physical"': "real cards"},
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


# A tile by the track on its face up, not by which double-sided tile it is ("straight/t tile").
_FACE_SAID = {
    Shape.STRAIGHT: "straight track",
    Shape.CORNER: "bend",
    Shape.T: "T-junction",
    Shape.CROSS: "crossing",
}
PIECES = {
    str(e.piece): (_FACE_SAID[Shape(e.piece.face)], e.turns)
    for e in catalogue().entries
    if e.piece.kind == "tile"
}

# A minecart by its colour and die, as a player says it ("red-white" in the rules).
CARTS = {
    f"{c.value}-{d.value}": f"the {c.value} minecart with the {d.value} die"
    for c in COLOURS
    for d in Die
}

WORDS = GameWords(  # its places are named as printed
    options=OPTIONS,
    cards=CARTS,
    seat_colour=seat_colour,
    pieces=PIECES,
    hidden={"split": "the jewels split into two piles"},
)
