"""Off the Rails in players' words: the options as a player chooses them, each seat's colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.offtherails.components import Colour, Die, Shape
from rules.offtherails.goods import goods_said, private_said
from rules.offtherails.missions import MISSION_TITLE, Mission
from rules.offtherails.physical import (
    REVEAL_SLOT,
    catalogue,
    deposit_label,
    facing,
    mission_label,
    track_turns,
)
from rules.said import Say, same
from rules.words import GameWords, OptionWords

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


def _faces(say: Say) -> dict[Shape, str]:
    """A tile by the track on its face up, not by which double-sided tile it is ("straight/t
    tile")."""
    return {
        Shape.STRAIGHT: say("straight track"),
        Shape.CORNER: say("bend"),
        Shape.T: say("T-junction"),
        Shape.CROSS: say("crossing"),
    }


def _carts(say: Say) -> dict[tuple[Colour, Die], tuple[str, str]]:
    """Each minecart by its colour and die: its label and its name as a thing ("red-white" in the
    rules), a whole line each (a colour's word agrees with its noun)."""
    r, y, g, b, w, k = Colour.RED, Colour.YELLOW, Colour.GREEN, Colour.BLUE, Die.WHITE, Die.BLACK
    return {
        (r, w): (say("red minecart, white die"), say("the red minecart with the white die")),
        (r, k): (say("red minecart, black die"), say("the red minecart with the black die")),
        (y, w): (say("yellow minecart, white die"), say("the yellow minecart with the white die")),
        (y, k): (say("yellow minecart, black die"), say("the yellow minecart with the black die")),
        (g, w): (say("green minecart, white die"), say("the green minecart with the white die")),
        (g, k): (say("green minecart, black die"), say("the green minecart with the black die")),
        (b, w): (say("blue minecart, white die"), say("the blue minecart with the white die")),
        (b, k): (say("blue minecart, black die"), say("the blue minecart with the black die")),
    }


def _tokens(say: Say) -> dict[Colour, str]:
    return {
        Colour.RED: say("red chasm token"),
        Colour.YELLOW: say("yellow chasm token"),
        Colour.GREEN: say("green chasm token"),
        Colour.BLUE: say("blue chasm token"),
    }


def _ended(say: Say) -> Callable[[Any, Callable[[int], str]], str | None]:
    """Why the game ended, said from the state's own reason (marked `spoken` where it is set)."""

    def end(state: Any, _: Callable[[int], str]) -> str | None:
        reason = str(state.to_json().get("end_reason") or "")
        return say(reason) if reason else None

    return end


def words(say: Say = same) -> GameWords:
    """Off the Rails' words, said by `say` (English as written)."""
    faces, carts, tokens, heading = _faces(say), _carts(say), _tokens(say), facing(say)
    pieces: dict[str, tuple[str, tuple[str, ...]]] = {}
    for entry in catalogue().entries:
        piece = entry.piece
        if piece.kind == "tile":
            face = Shape(piece.face)
            pieces[str(piece)] = (faces[face], track_turns(face, say))
        elif piece.kind == "minecart":
            colour, die = piece.identity.split("-")
            pieces[str(piece)] = (carts[(Colour(colour), Die(die))][0], heading)
        elif piece.kind == "chasm_token":
            pieces[str(piece)] = (tokens[Colour(piece.identity)], ())
        elif piece.kind == "deposit_card" and piece.identity == "chasm":
            pieces[str(piece)] = (say("the Chasm card"), ())
        elif piece.kind == "deposit_card":
            colour, number = piece.identity.split("-")
            pieces[str(piece)] = (deposit_label(colour, int(number), say), ())
        elif piece.kind == "mission_card":
            pieces[str(piece)] = (mission_label(Mission(piece.identity), say), ())
    return GameWords(  # its squares are named as printed
        places={REVEAL_SLOT: say("the reveal slot")},
        options=OPTIONS,
        cards={
            **{f"{c.value}-{d.value}": names[1] for (c, d), names in carts.items()},
            **{mission.value: say(title) for mission, title in MISSION_TITLE.items()},
        },
        seat_colour=seat_colour,
        pieces=pieces,
        hidden={"split": say("the jewels split into two piles")},
        goods=goods_said,
        phases={
            "choose_side": say("choosing sides"),
            "assign_side": say("choosing sides"),
            "deal_missions": say("dealing missions"),
            "solo_gems": say("laying the gems"),
            "starting_deposits": say("starting deposits"),
            "actions": say("actions phase"),
            "move": say("moving a minecart"),
            "claim": say("claiming a mission"),
            "deposit": say("deposits phase"),
            "chasm_reveal": say("the chasm"),
            "chasm_draw": say("the chasm"),
            "chasm_die": say("the chasm"),
            "chasm_place": say("the chasm"),
            "over": say("game over"),
        },
        end=_ended(say),
        said=words,
        private=private_said,
    )


WORDS = words()
