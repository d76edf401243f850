"""Trick of the Rails in players' words: the mat's places (as printed) and the options."""

from __future__ import annotations

from rules.core import GameWords, OptionWords
from rules.said import seat_place
from rules.trickoftherails.cards import CARDS, COMPANY_NAMES, Company, Kind
from rules.trickoftherails.physical import (
    LANE_SLOTS,
    MAX_SEATS,
    RAIL_REACH,
    lane_slot,
    locomotive_slot,
    rail_slot,
    share_area,
    trick_slot,
)

OPTIONS = {
    "players": OptionWords("Players"),
    "hands": OptionWords(
        "Cards",
        "Who deals the hands.",
        {'"dealt"': "the table deals (phones show hands)", '"table"': "real cards, dealt by hand"},
    ),
    "lane": OptionWords("Trick lane", "", {'"basic"': "basic (first games)", '"expert"': "expert"}),
    "teams": OptionWords("Teams", "With 4 players, partners across the table add their scores."),
    "first_lead": OptionWords(
        "First lead",
        "Who leads the first trick.",
        {'"seat_0"': "the first player", '"random"': "drawn at random"},
    ),
    "front_of_station": OptionWords(
        "In front of the station", "A card may be laid in front of a company's station."
    ),
    "no_locomotive": OptionWords(
        "A company with no locomotive",
        "Its shares at the end (expert lane).",
        {'"worthless"': "are worth nothing", '"whole_railway"': "count its whole railway"},
    ),
    "revoke_penalty": OptionWords(
        "Revoke penalty", "Points lost for not following suit, when the host rules it."
    ),
}


def _rail_place(name: str, position: int) -> str:
    if position == 0:
        return f"the {name} station space"
    side = "right" if position > 0 else "left"
    return f"the {name} railway, {side} {abs(position)}"


PLACES: dict[str, str] = {}
for _pos in range(LANE_SLOTS):
    PLACES[lane_slot(_pos)] = f"trick lane space {_pos + 1}"
for _company in Company:
    _name = COMPANY_NAMES[_company]
    PLACES[locomotive_slot(_company)] = f"the {_name} locomotive space"
    for _pos in range(-RAIL_REACH, RAIL_REACH + 1):
        PLACES[rail_slot(_company, _pos)] = _rail_place(_name, _pos)
for _seat in range(MAX_SEATS):
    PLACES[trick_slot(_seat)] = seat_place(_seat, "'s trick space")
    PLACES[share_area(_seat)] = seat_place(_seat, "'s shares")

# A numbered card by its company and number, as printed large on it ("B&O 3").
CARD_NAMES = {
    card_id: f"{COMPANY_NAMES[card.company]} {card.number}"
    for card_id, card in CARDS.items()
    if card.kind is Kind.RAILWAY and card.company is not None
}

# The companies as printed on their cards ("the B&O railway", not "the bo railway").
COMPANIES_SAID = {company.value: name for company, name in COMPANY_NAMES.items()}

WORDS = GameWords(
    places=PLACES,
    cards={**CARD_NAMES, **COMPANIES_SAID},
    options=OPTIONS,
    ended="the last trick is played",
    hidden={"deal": "a card for {seat}"},
)
