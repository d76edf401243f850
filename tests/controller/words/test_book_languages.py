"""A game's actions said in each language by its Book: the template translated whole, and the
values a player names (a jewel, a side, a track's directions) in that language too."""

from __future__ import annotations

import pytest

from controller.words.book import Book
from controller.words.language import Language
from rules.registry import game_named


@pytest.mark.parametrize(
    ("language", "jewel", "side", "track"),
    [(Language.EN, "take a ruby", "choose the north side",
      "lay a straight track on F6, running north to south"),
     (Language.DE, "Rubin nehmen", "die Seite Norden wählen",
      "ein gerades Gleis auf F6 legen, von Norden nach Süden"),
     (Language.FR, "prendre rubis", "choisir le côté nord",
      "poser une voie droite en F6, sens nord-sud"),
     (Language.ES, "tomar rubí", "elegir el lado norte",
      "poner una vía recta en F6, de norte a sur")],
)  # fmt: skip
def test_an_action_is_said_whole_in_the_books_language(
    language: Language, jewel: str, side: str, track: str
) -> None:
    book = Book.of(game_named("offtherails")).speaking(language)
    assert book.action({"type": "take_jewel", "jewel": "ruby"}) == jewel
    assert book.action({"type": "choose_side", "side": "north"}) == side
    assert book.action({"type": "place_tile", "square": "F6", "exits": "NS"}) == track
