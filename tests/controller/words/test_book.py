"""A game's book says its things as players name them: places, cards, companies, seats."""

from __future__ import annotations

import rules
from controller.words.book import Book


def test_trick_of_the_rails_names_companies_cards_and_seats_as_printed() -> None:
    book = Book.of(rules.game_named("trickoftherails"), ["Ann", "Bob", "Cy"])
    city = {"type": "place_city", "end": "right", "company": "bo"}
    assert book.action(city) == "place the city at the right end of the B&O railway"
    assert book.place("seat.1.shares") == "Bob's shares"
    assert book.action({"type": "first_lead", "seat": 2}) == "Cy leads first"


def test_the_plain_book_keeps_the_rules_ids() -> None:
    plain = Book.of(rules.game_named("trickoftherails"), plain=True)
    assert plain.place("seat.1.shares") == "seat.1.shares"
    assert plain.action({"type": "first_lead", "seat": 2}) == "seat 2 leads first"


def test_an_emerald_and_a_ruby() -> None:
    book = Book.of(rules.game_named("offtherails"), ["Ann", "Bob"])
    assert book.action({"type": "take_jewel", "jewel": "emerald"}) == "take an emerald"
    assert book.action({"type": "take_jewel", "jewel": "ruby"}) == "take a ruby"
