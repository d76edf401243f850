"""Trick of the Rails in players' words: the mat's places (as printed) and the options."""

from __future__ import annotations

from rules.said import Say, same
from rules.trickoftherails.cards import CARDS, COMPANY_NAMES, Company, Kind, card_label
from rules.trickoftherails.physical import (
    LANE_SLOTS,
    MAX_SEATS,
    RAIL_REACH,
    card_piece,
    lane_slot,
    locomotive_slot,
    rail_slot,
    share_area,
    trick_slot,
)
from rules.words import GameWords, OptionWords

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


def _rail_place(name: str, position: int, say: Say) -> str:
    if position == 0:
        return say("the {company} station space").format(company=name)
    if position > 0:
        return say("the {company} railway, right {number}").format(company=name, number=position)
    return say("the {company} railway, left {number}").format(company=name, number=-position)


def _places(say: Say) -> dict[str, str]:
    places: dict[str, str] = {}
    for pos in range(LANE_SLOTS):
        places[lane_slot(pos)] = say("trick lane space {number}").format(number=pos + 1)
    for company in Company:
        name = COMPANY_NAMES[company]
        places[locomotive_slot(company)] = say("the {company} locomotive space").format(
            company=name
        )
        for pos in range(-RAIL_REACH, RAIL_REACH + 1):
            places[rail_slot(company, pos)] = _rail_place(name, pos, say)
    for seat in range(MAX_SEATS):
        player = f"{{seat{seat}}}"  # the seat's player, named when the place is said
        places[trick_slot(seat)] = say("{player}'s trick space").format(player=player)
        places[share_area(seat)] = say("{player}'s shares").format(player=player)
    return places


# A numbered card by its company and number, as printed large on it ("B&O 3").
CARD_NAMES = {
    card_id: f"{COMPANY_NAMES[card.company]} {card.number}"
    for card_id, card in CARDS.items()
    if card.kind is Kind.RAILWAY and card.company is not None
}

# The companies as printed on their cards ("the B&O railway", not "the bo railway").
COMPANIES_SAID = {company.value: name for company, name in COMPANY_NAMES.items()}


def words(say: Say = same) -> GameWords:
    """Trick of the Rails' words, said by `say` (English as written)."""
    others = {
        card_id: card_label(card, say)
        for card_id, card in CARDS.items()
        if card.kind is not Kind.RAILWAY
    }
    return GameWords(
        places=_places(say),
        cards={**others, **CARD_NAMES, **COMPANIES_SAID},
        options=OPTIONS,
        ended=say("the last trick is played"),
        pieces={
            str(card_piece(card_id)): (card_label(card, say), ()) for card_id, card in CARDS.items()
        },
        hidden={"deal": say("a card for {seat}")},
        phases={
            "lane": say("laying the trick lane"),
            "deal": say("dealing"),
            "railways": say("starting railways"),
            "first_lead": say("choosing who leads"),
            "play": say("playing a trick"),
            "place_city": say("placing a city"),
            "place_locomotive": say("placing a locomotive"),
            "place_infinite": say("placing a locomotive"),
            "lay_track": say("laying track"),
            "revoke": say("a revoke"),
            "over": say("game over"),
        },
        said=words,
    )


WORDS = words()
