"""Derailed! in players' words: the mat's places and the options."""

from __future__ import annotations

from rules.core import GameWords, OptionWords
from rules.derailed.cards import RailCard, Side, default_cards
from rules.derailed.physical import (
    DECK,
    DISCARD,
    MAX_LANES,
    destination_slot,
    rail_piece,
    start_slot,
)
from rules.said import listed

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
        "When a company arrives: at once, or once everyone has had as many turns.",
        {'"at_once"': "at once", '"equal_turns"': "after equal turns"},
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

_SIDE = {Side.L: "left", Side.T: "top", Side.R: "right", Side.B: "bottom"}
_ORDER = (Side.L, Side.T, Side.R, Side.B)
_ACROSS = {frozenset((Side.L, Side.R)), frozenset((Side.T, Side.B))}
# How a laid card lies: a quarter turn of its marker (1: top towards the destination).
_TURNS = (
    "its top across the lane",
    "its top towards the destination",
    "its top across the lane, the other way",
    "its top towards the start",
)


def _ends(a: Side, b: Side) -> str:
    first, second = sorted((a, b), key=_ORDER.index)
    return f"{_SIDE[first]} to {_SIDE[second]}"


def _track(a: Side, b: Side) -> str:
    shape = "straight track" if frozenset((a, b)) in _ACROSS else "bend"
    return f"{shape} from {_ends(a, b)}"


def _group(tracks: list[tuple[Side, Side]]) -> str:
    """Tracks that meet, as one shape: "T-junction open left, top and right"."""
    sides = sorted({s for t in tracks for s in t}, key=_ORDER.index)
    if len(tracks) == 1:
        return _track(*tracks[0])
    if len(sides) == 4 and len(tracks) == 6:
        return "crossroads open on all four sides"
    if len(sides) == 3 and len(tracks) == 3:
        return "T-junction open " + listed([_SIDE[s] for s in sides])
    return " and a ".join(_track(a, b) for a, b in tracks)


def card_said(card: RailCard) -> str:
    """A rail card as a player names it, by the sides of the card held upright: "T-junction
    open left, top and right", "bend from left to top (dead ends at right and bottom)"."""
    groups: list[list[tuple[Side, Side]]] = []
    for track in card.tracks:
        meets = [g for g in groups if set(track) & {s for t in g for s in t}]
        merged = [t for g in meets for t in g] + [track]
        groups = [g for g in groups if g not in meets] + [merged]
    if len(groups) == 2 and all(len(g) == 1 for g in groups):
        (a,), (b,) = groups
        if frozenset(a) in _ACROSS and frozenset(b) in _ACROSS:
            return f"bridge, {_ends(*a)} over {_ends(*b)}"
        return f"pair of bends not meeting, {_ends(*a)} and {_ends(*b)}"
    said = " and a ".join(_group(g) for g in groups)
    stubs = [_SIDE[s] for s in sorted(card.stubs, key=_ORDER.index)]
    if len(stubs) == 1:
        said += f" (dead end at the {stubs[0]})"
    elif stubs:
        said += " (dead ends at " + listed(stubs) + ")"
    return said


_CARDS = default_cards().cards
PIECES = {
    str(rail_piece(c.id)): (card_said(c), _TURNS if not c.symmetric else _TURNS[:2]) for c in _CARDS
}
CARDS = {c.id: f"a {card_said(c)}" for c in _CARDS}

WORDS = GameWords(
    places=PLACES,
    cards=CARDS,
    options=OPTIONS,
    ended="all three rounds are played",
    pieces=PIECES,
    hidden={"draw": "a card for {seat}"},
)
