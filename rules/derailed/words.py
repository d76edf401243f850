"""Derailed! in players' words: the mat's places and the options."""

from __future__ import annotations

from rules.core import GameWords, OptionWords
from rules.derailed.physical import DECK, DISCARD, MAX_LANES, destination_slot, start_slot

OPTIONS = {
    "players": OptionWords("Players"),
    "hands": OptionWords(
        "Cards",
        "Who deals and draws the cards.",
        {
            '"digital"': "the table deals (phones show hands)",
            '"table"': "real cards, seen as they are played",
        },
    ),
    "stub_connects": OptionWords(
        "Dead ends connect", "A dead-end stub may be the track that connects a played card."
    ),
    "arrival": OptionWords(
        "A company arrives",
        "When a card completes a company's route.",
        {'"any_card"': "whoever's card completes it", '"own_card"': "only with its own card"},
    ),
    "round_end": OptionWords(
        "A round ends",
        "When a company arrives.",
        {'"at_once"': "at once", '"equal_turns"': "after everyone has had as many turns"},
    ),
    "exchange": OptionWords(
        "Exchange cards", "Between rounds each player may discard up to 2 cards and draw again."
    ),
    "next_starter": OptionWords(
        "Who begins rounds 2 and 3",
        "",
        {
            '"fewest_last_round"': "fewest points last round",
            '"fewest_last_round_then_total"': "fewest last round, then fewest in all",
        },
    ),
    "dry_deck": OptionWords(
        "The deck runs out",
        "And no discard pile can replace it.",
        {'"end_round"': "the round ends", '"play_on"': "play on"},
    ),
    "card_file": OptionWords(
        "Your own cards", "A card file in the table's cards folder; empty: the 90 printed cards."
    ),
}

PLACES = {DECK: "the deck", DISCARD: "the discard pile"}
for _lane in range(1, MAX_LANES + 1):
    PLACES[start_slot(_lane)] = f"the start of lane {_lane}"
    PLACES[destination_slot(_lane)] = f"the end of lane {_lane}"

WORDS = GameWords(places=PLACES, options=OPTIONS, ended="all three rounds are played")
