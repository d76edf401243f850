"""The trick lane: its plan for each player count (basic and expert), laid one card at a time.

Slot rules (research/trickoftherails.md 4.1, 4.3): slots 0 .. hand size - 1; even slots hold
exchange cards in random company order, except slots 10, 12, 14 which hold reservation cards; odd
slots hold cities (shuffled) before the first locomotive slot and then locomotives 3, 4, 5, 6
(basic), or the next card of a shuffled pool of locomotives 3-6 and the three cities (expert). The
infinite locomotive always goes straight after the 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from rules.trickoftherails.cards import (
    CITIES,
    EXCHANGES,
    HAND_SIZE,
    LOCO_6,
    LOCO_INF,
    NUMBERED_LOCOMOTIVES,
    RESERVATION,
)


class LaneStyle(StrEnum):
    """The `lane` option: the fixed basic lanes or the expert variant's random one."""

    BASIC = "basic"
    EXPERT = "expert"


class Draw(StrEnum):
    """A lane slot whose card is drawn at random when the lane is laid."""

    EXCHANGE = "draw:exchange"
    CITY = "draw:city"
    POOL = "draw:pool"  # expert: locomotives 3-6 and the cities


RESERVATION_SLOTS = (10, 12, 14)
FIRST_LOCOMOTIVE_SLOT = {3: 7, 4: 3, 5: 1}


def lane_plan(players: int, style: LaneStyle) -> tuple[str, ...]:
    """The lane's slots left to right: a fixed card id, or a `Draw` value for a random card.

    The infinite locomotive is not in the plan: it is laid by itself straight after the 6.
    """
    plan: list[str] = []
    locos = iter(NUMBERED_LOCOMOTIVES)
    for slot in range(HAND_SIZE[players]):
        if slot % 2 == 0:
            plan.append(RESERVATION if slot in RESERVATION_SLOTS else Draw.EXCHANGE)
        elif style is LaneStyle.EXPERT:
            plan.append(Draw.POOL)
        elif slot < FIRST_LOCOMOTIVE_SLOT[players]:
            plan.append(Draw.CITY)
        else:
            plan.append(next(locos))
    return tuple(plan)


def draw_pool(draw: Draw) -> tuple[str, ...]:
    """Every card a random slot of this kind can hold."""
    if draw is Draw.EXCHANGE:
        return EXCHANGES
    if draw is Draw.CITY:
        return CITIES
    return (*NUMBERED_LOCOMOTIVES, *CITIES)


def draw_choices(draw: Draw, laid: Sequence[str]) -> tuple[str, ...]:
    """The cards the next slot of this kind may still get (those not already in the lane)."""
    return tuple(c for c in draw_pool(draw) if c not in laid)


def lay(
    lane: tuple[str, ...], plan: tuple[str, ...], drawn: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Lay the next slot (with `drawn` for a random one) and every fixed slot after it.

    Returns the lane so far and the plan left. The infinite locomotive follows the 6 at once.
    """
    out = list(lane)
    rest = list(plan)
    if drawn is not None:
        rest.pop(0)
        out.append(drawn)
        if drawn == LOCO_6:
            out.append(LOCO_INF)
    while rest and not rest[0].startswith("draw:"):
        fixed = rest.pop(0)
        out.append(fixed)
        if fixed == LOCO_6:
            out.append(LOCO_INF)
    return tuple(out), tuple(rest)


def lane_kinds_text(lane: Sequence[str]) -> str:
    """The lane in the research notes' letters (E C R 3 4 5 6 inf): for docs and messages."""
    letters = []
    for c in lane:
        if c == RESERVATION:
            letters.append("R")
        elif c.endswith("-exchange"):
            letters.append("E")
        elif c.startswith("city-"):
            letters.append("C")
        elif c.startswith("loco-"):
            letters.append(c.removeprefix("loco-"))
        else:
            letters.append("S")  # a railway card swapped in for a reservation
    return " ".join(letters)
