"""Derailed! in players' words: the mat's places and the options."""

from __future__ import annotations

from rules.derailed.cards import RailCard, Side, default_cards
from rules.derailed.data import COMPANIES, Column
from rules.derailed.physical import (
    DECK,
    DISCARD,
    MAX_LANES,
    destination_slot,
    rail_piece,
    start_slot,
    station_piece,
)
from rules.said import Say, listed, same
from rules.words import GameWords, OptionWords

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


def _places(say: Say) -> dict[str, str]:
    places = {DECK: say("the deck"), DISCARD: say("the discard pile")}
    # the station columns, as a laid station's words name them ("in the start column")
    places[Column.START] = say("start")
    places[Column.DESTINATION] = say("destination")
    for lane in range(1, MAX_LANES + 1):
        places[start_slot(lane)] = say("the start of lane {number}").format(number=lane)
        places[destination_slot(lane)] = say("the end of lane {number}").format(number=lane)
    return places


_ORDER = (Side.L, Side.T, Side.R, Side.B)
_ACROSS = {frozenset((Side.L, Side.R)), frozenset((Side.T, Side.B))}


def _side(side: Side, say: Say) -> str:
    said = {Side.L: say("left"), Side.T: say("top"), Side.R: say("right"), Side.B: say("bottom")}
    return said[side]


def _turns(say: Say) -> tuple[str, ...]:
    """How a laid card lies: a quarter turn of its marker (1: top towards the destination)."""
    return (
        say("its top across the lane"),
        say("its top towards the destination"),
        say("its top across the lane, the other way"),
        say("its top towards the start"),
    )


def _ends(a: Side, b: Side, say: Say) -> str:
    first, second = sorted((a, b), key=_ORDER.index)
    return say("{start} to {end}").format(start=_side(first, say), end=_side(second, say))


def _track(a: Side, b: Side, say: Say) -> str:
    first, second = sorted((a, b), key=_ORDER.index)
    start, end = _side(first, say), _side(second, say)
    if frozenset((a, b)) in _ACROSS:
        return say("straight track from {start} to {end}").format(start=start, end=end)
    return say("bend from {start} to {end}").format(start=start, end=end)


def _joined(parts: list[str], say: Say) -> str:
    """`bend from left to top and a straight track from left to right`."""
    said = parts[0]
    for part in parts[1:]:
        said = say("{first} and a {second}").format(first=said, second=part)
    return said


def _group(tracks: list[tuple[Side, Side]], say: Say) -> str:
    """Tracks that meet, as one shape: "T-junction open left, top and right"."""
    sides = sorted({s for t in tracks for s in t}, key=_ORDER.index)
    if len(tracks) == 1:
        return _track(*tracks[0], say)
    if len(sides) == 4 and len(tracks) == 6:
        return say("crossroads open on all four sides")
    if len(sides) == 3 and len(tracks) == 3:
        return say("T-junction open {sides}").format(
            sides=listed([_side(s, say) for s in sides], say)
        )
    return _joined([_track(a, b, say) for a, b in tracks], say)


def card_said(card: RailCard, say: Say = same) -> str:
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
            return say("bridge, {first} over {second}").format(
                first=_ends(*a, say), second=_ends(*b, say)
            )
        return say("pair of bends not meeting, {first} and {second}").format(
            first=_ends(*a, say), second=_ends(*b, say)
        )
    said = _joined([_group(g, say) for g in groups], say)
    stubs = [_side(s, say) for s in sorted(card.stubs, key=_ORDER.index)]
    if len(stubs) == 1:
        return say("{card} (dead end at the {side})").format(card=said, side=stubs[0])
    if stubs:
        return say("{card} (dead ends at {sides})").format(card=said, sides=listed(stubs, say))
    return said


_CARDS = default_cards().cards


def words(say: Say = same) -> GameWords:
    """Derailed!'s words, said by `say` (English as written)."""
    turns = _turns(say)
    return GameWords(
        places=_places(say),
        cards={c.id: say("a {card}").format(card=card_said(c, say)) for c in _CARDS},
        options=OPTIONS,
        ended=say("all three rounds are played"),
        pieces={
            **{
                str(rail_piece(c.id)): (card_said(c, say), turns if not c.symmetric else turns[:2])
                for c in _CARDS
            },
            **{
                str(station_piece(c)): (say("company {company} station").format(company=c), ())
                for c in COMPANIES
            },
        },
        hidden={"draw": say("a card for {seat}")},
        phases={
            "deal": say("dealing"),
            "stations": say("laying stations"),
            "starter": say("choosing who starts"),
            "exchange": say("exchanging cards"),
            "play": say("playing rail cards"),
            "draw": say("drawing"),
            "over": say("game over"),
        },
        said=words,
    )


WORDS = words()
