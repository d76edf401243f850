"""An alert says to a player what to do first, then why, naming the squares; the referee's own
account keeps what lies where first (the scenarios quote it)."""

from __future__ import annotations

import rules
from controller.referee.observe import LocationView, Seen
from controller.referee.verdict import (
    Instruction,
    Reason,
    Verdict,
    VerdictKind,
    Wrong,
    WrongLocation,
)
from controller.words.book import Book
from controller.words.verdicts import verdict_line
from rules.offtherails.physical import cart_piece
from rules.physical import PlacedPiece

INFO = rules.game_named("offtherails")
CART = PlacedPiece(cart_piece("yellow", "black"), 0)


def _alert(wrong: WrongLocation) -> Verdict:
    return Verdict(VerdictKind.ALERT, Reason.NOT_LEGAL, wrong=(wrong,), locations=("G2",))


def test_a_piece_where_no_move_puts_it_says_the_fix_first() -> None:
    fix = Instruction("G2", take_off=(CART,))
    wrong = WrongLocation("G2", LocationView(Seen.EXACT, (CART,)), (), Wrong.NO_LEGAL_MOVE, fix=fix)
    said = verdict_line(_alert(wrong), Book.of(INFO, ["Ann", "Bob"]))
    assert said.startswith(
        "not a legal move: take the yellow minecart, black die off G2: the yellow minecart, "
        "black die, facing north lies on G2, but the rules expect nothing"
    ), said
    plain = verdict_line(_alert(wrong), Book.of(INFO, plain=True))
    assert plain.startswith("not a legal move: G2: yellow minecart, black die, facing north lies")
    assert "; to put it right: take the yellow minecart, black die off G2" in plain


def test_a_piece_on_two_squares_says_which_to_take_it_off() -> None:
    seen = LocationView(Seen.EXACT, (CART,))
    wrongs = tuple(
        WrongLocation(n, seen, (), Wrong.TOO_MANY, places=("F7", "G2"), copies=1, belongs=("F7",))
        for n in ("F7", "G2")
    )
    verdict = Verdict(VerdictKind.ALERT, Reason.TOO_MANY, wrong=wrongs, locations=("F7", "G2"))
    said = verdict_line(verdict, Book.of(INFO, ["Ann", "Bob"]))
    assert said == (
        "not a legal move: put the yellow minecart, black die back on F7 (take it off G2): "
        "the game has one, and it lies on F7 and G2"
    )
    assert "lies on 2 squares; the game has 1" in verdict_line(verdict, Book.of(INFO, plain=True))
