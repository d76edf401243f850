"""Trick of the Rails' cards: companies, railway and station cards, cities, locomotives, lane cards.

Every card has a short stable id used in the JSON (`prr-5`, `prr-station`, `prr-exchange`,
`city-pittsburgh`, `loco-3`, `loco-inf`, `reservation`); the three reservation cards are
identical and share one id.
Values are from research/trickoftherails.md section 2 (the BGA implementation's material file).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.said import Say, same


class Company(StrEnum):
    """The five railway companies (the suits), in the order the cards list them."""

    BO = "bo"  # B&O, blue
    CO = "co"  # C&O, green
    ERIE = "erie"  # Erie, yellow
    NYC = "nyc"  # NYC, grey
    PRR = "prr"  # PRR, red


COMPANIES: tuple[Company, ...] = tuple(Company)
COMPANY_NAMES = {
    Company.BO: "B&O",
    Company.CO: "C&O",
    Company.ERIE: "Erie",
    Company.NYC: "NYC",
    Company.PRR: "PRR",
}


class Kind(StrEnum):
    """What a card is."""

    RAILWAY = "railway"  # numbered 1-10: played in tricks, laid in railways, kept as shares
    STATION = "station"  # begins each company's railway
    CITY = "city"
    LOCOMOTIVE = "locomotive"
    EXCHANGE = "exchange"  # a share of its company, won from the trick lane
    RESERVATION = "reservation"  # a trick-lane placeholder, swapped for a share winner's card


STATION_VALUES: dict[Company, tuple[int, ...]] = {
    Company.BO: (10, 10, 10, 20, 20, 20, 20, 30, 30, 40),
    Company.CO: (40, 30, 30, 20, 20, 20, 20, 10, 10, 10),
    Company.ERIE: (30, 20, 20, 10, 30, 10, 20, 20, 40, 10),
    Company.NYC: (20, 20, 30, 10, 20, 40, 10, 20, 30, 10),
    Company.PRR: (10, 20, 20, 30, 40, 30, 20, 20, 10, 10),
}
STATION_CARD_VALUE = 10
CITY_VALUES = {"pittsburgh": 20, "baltimore": 30, "new_york": 40}
INFINITE = 0  # the travel distance of the infinite locomotive: the whole railway
LOCOMOTIVE_COSTS = {3: 40, 4: 50, 5: 60, 6: 70, INFINITE: 80}
RESERVATION_COPIES = 3


@dataclass(frozen=True)
class Card:
    """One card: id, kind, company (if any), trick number (railway cards), station value.

    Locomotives carry `distance` (INFINITE for the infinite one) and `cost`.
    """

    id: str
    kind: Kind
    company: Company | None = None
    number: int = 0
    value: int = 0
    distance: int = 0
    cost: int = 0


def railway_id(company: Company, number: int) -> str:
    return f"{company.value}-{number}"


def station_id(company: Company) -> str:
    return f"{company.value}-station"


def exchange_id(company: Company) -> str:
    return f"{company.value}-exchange"


def city_id(name: str) -> str:
    return f"city-{name}"


def locomotive_id(distance: int) -> str:
    return "loco-inf" if distance == INFINITE else f"loco-{distance}"


RESERVATION = "reservation"
LOCO_6 = locomotive_id(6)
LOCO_INF = locomotive_id(INFINITE)


def _all_cards() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for c in COMPANIES:
        for n, v in enumerate(STATION_VALUES[c], start=1):
            cards[railway_id(c, n)] = Card(railway_id(c, n), Kind.RAILWAY, c, n, v)
    for c in COMPANIES:
        cards[station_id(c)] = Card(station_id(c), Kind.STATION, c, 0, STATION_CARD_VALUE)
    for name, v in CITY_VALUES.items():
        cards[city_id(name)] = Card(city_id(name), Kind.CITY, None, 0, v)
    for d, cost in LOCOMOTIVE_COSTS.items():
        cards[locomotive_id(d)] = Card(locomotive_id(d), Kind.LOCOMOTIVE, None, 0, 0, d, cost)
    for c in COMPANIES:
        cards[exchange_id(c)] = Card(exchange_id(c), Kind.EXCHANGE, c)
    cards[RESERVATION] = Card(RESERVATION, Kind.RESERVATION)
    return cards


CARDS: dict[str, Card] = _all_cards()
RAILWAY_CARDS: tuple[str, ...] = tuple(k for k, c in CARDS.items() if c.kind is Kind.RAILWAY)
EXCHANGES: tuple[str, ...] = tuple(exchange_id(c) for c in COMPANIES)
CITIES: tuple[str, ...] = tuple(city_id(n) for n in CITY_VALUES)
LOCOMOTIVES: tuple[str, ...] = tuple(locomotive_id(d) for d in LOCOMOTIVE_COSTS)
NUMBERED_LOCOMOTIVES: tuple[str, ...] = tuple(locomotive_id(d) for d in (3, 4, 5, 6))
# Every card of the game once, the reservation card as many times as there are copies.
FULL_SET: tuple[str, ...] = (
    *CARDS.keys(),
    *(RESERVATION for _ in range(RESERVATION_COPIES - 1)),
)
COMPANY_OF: dict[str, Company] = {k: c.company for k, c in CARDS.items() if c.company is not None}
NUMBER_OF: dict[str, int] = {k: c.number for k, c in CARDS.items()}
VALUE_OF: dict[str, int] = {k: c.value for k, c in CARDS.items()}

HAND_SIZE = {3: 15, 4: 11, 5: 9}


def card(card_id: str) -> Card:
    """The card with this id; a clear error for an id that names no card."""
    try:
        return CARDS[card_id]
    except KeyError:
        raise ValueError(f"no card {card_id!r} in Trick of the Rails") from None


def kind_of(card_id: str) -> Kind | None:
    c = CARDS.get(card_id)
    return None if c is None else c.kind


def railway_sort_key(card_id: str) -> tuple[int, int]:
    """Company order, then number: how a hand is shown and undealt cards are laid."""
    return COMPANIES.index(COMPANY_OF[card_id]), NUMBER_OF[card_id]


def card_label(card: Card, say: Say = same) -> str:
    """A card as the table names it: "B&O 3 (station value 10)", "locomotive 4 (cost 50)"."""
    company = COMPANY_NAMES[card.company] if card.company is not None else ""
    if card.kind is Kind.RAILWAY:
        return say("{company} {number} (station value {value})").format(
            company=company, number=card.number, value=card.value
        )
    if card.kind is Kind.STATION:
        return say("{company} station").format(company=company)
    if card.kind is Kind.EXCHANGE:
        return say("{company} exchange").format(company=company)
    if card.kind is Kind.CITY:
        city = card.id.removeprefix("city-").replace("_", " ").title()
        return f"{city} ({card.value})"
    if card.kind is Kind.LOCOMOTIVE and card.distance == INFINITE:
        return say("locomotive infinite (cost {cost})").format(cost=card.cost)
    if card.kind is Kind.LOCOMOTIVE:
        return say("locomotive {distance} (cost {cost})").format(
            distance=card.distance, cost=card.cost
        )
    return say("reservation card")
