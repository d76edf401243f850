"""A game's actions said in each language by its Book: the template translated whole, and the
values a player names (a jewel, a side, a track's directions) in that language too."""

from __future__ import annotations

import re

import pytest

import rules
from controller.api.looks import look
from controller.words.book import Book
from controller.words.language import MISSING, Language
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


# A name may stay as the English one only where it holds no English word: a company's letters
# and a card's number ("B&O 3", "Erie"), a city ("Pittsburgh (20)").
ENGLISH_WORD = re.compile(r"\b[a-z]{3,}\b")


def _names(book: Book) -> dict[str, str]:
    """Every name the book gives a game's things: places, cards, pieces with each of their
    turns, and what a draw kept from a phone is called."""
    names = {f"name {k}": v for k, v in book.names.items()}
    for piece, entry in book.pieces.items():
        names[f"piece {piece}"] = entry.label
        names.update((f"turn {piece} {i}", t) for i, t in enumerate(entry.turns))
    names.update((f"hidden {k}", v) for k, v in book.hidden.items())
    return names


@pytest.mark.parametrize("game", sorted(rules.GAMES))
@pytest.mark.parametrize("language", [lang for lang in Language if lang is not Language.EN])
def test_every_name_a_game_gives_its_things_is_said_in_each_language(
    game: str, language: Language
) -> None:
    english = Book.of(game_named(game), ["Ann", "Bob"])
    missing_before = sum(n for (lang, _), n in MISSING.items() if lang is language)
    said = english.speaking(language)
    assert sum(n for (lang, _), n in MISSING.items() if lang is language) == missing_before
    theirs, ours = _names(said), _names(english)
    assert theirs.keys() == ours.keys()
    left = {k: v for k, v in theirs.items() if v == ours[k] and ENGLISH_WORD.search(v)}
    assert not left, left
    assert all("{" not in v or "{seat" in v for v in theirs.values())  # nothing left unfilled
    # said in that language, and the English book stays English
    assert english.speaking(Language.EN) is english or _names(english.speaking(Language.EN)) == ours


@pytest.mark.parametrize("game", sorted(rules.GAMES))
@pytest.mark.parametrize("language", [lang for lang in Language if lang is not Language.EN])
def test_the_words_drawn_on_cards_are_in_each_language(game: str, language: Language) -> None:
    """What the page writes on a drawn card (`/api/games/{name}/look`): "Loco 3, cost 40" in
    English is "Lok 3, kostet 40" in German."""
    english, said = look(game)["pieces"], look(game, language)["pieces"]
    assert said.keys() == english.keys()
    left = {
        piece: words
        for piece, shown in said.items()
        for words in shown.get("words", [])
        if words in english[piece].get("words", []) and ENGLISH_WORD.search(words)
    }
    assert not left, left
