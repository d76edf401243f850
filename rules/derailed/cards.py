"""The rail cards: drawn tracks per card side, the two ways to lay a card, and the card set data."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from importlib import resources
from pathlib import Path
from typing import Any


class Side(StrEnum):
    """A side of a rail card held upright: T and B are the short edges."""

    L = "L"
    T = "T"
    R = "R"
    B = "B"


class Facing(StrEnum):
    """Which column the card's top edge (T) points to: the card lies along the lane either way."""

    DESTINATION = "destination"
    START = "start"


class Compass(IntEnum):
    """A side of a slot on the mat: east is the destination column, north the next lane up."""

    N = 0
    E = 1
    S = 2
    W = 3


OPPOSITE = (Compass.S, Compass.W, Compass.N, Compass.E)

# Where each card side lies once the card is laid (a quarter turn either way from upright).
ON_MAT: dict[Facing, dict[Side, Compass]] = {
    Facing.DESTINATION: {
        Side.L: Compass.N,
        Side.T: Compass.E,
        Side.R: Compass.S,
        Side.B: Compass.W,
    },
    Facing.START: {
        Side.L: Compass.S,
        Side.T: Compass.W,
        Side.R: Compass.N,
        Side.B: Compass.E,
    },
}
HALF_TURN = {Side.L: Side.R, Side.R: Side.L, Side.T: Side.B, Side.B: Side.T}
FACINGS = (Facing.DESTINATION, Facing.START)


@dataclass(frozen=True)
class RailCard:
    """One card design: the pairs of sides its tracks join, its dead-end stubs, its copies."""

    id: str
    label: str
    tracks: tuple[tuple[Side, Side], ...]
    stubs: tuple[Side, ...]
    copies: int

    @property
    def symmetric(self) -> bool:
        """Whether the card turned half round shows the same tracks (so one facing is enough)."""
        turned = {frozenset({HALF_TURN[a], HALF_TURN[b]}) for a, b in self.tracks}
        same_tracks = turned == {frozenset(p) for p in self.tracks}
        return same_tracks and {HALF_TURN[s] for s in self.stubs} == set(self.stubs)


def _bits(sides: set[Compass]) -> int:
    return sum(1 << s for s in sides)


@dataclass(frozen=True, eq=False)
class CardSet:
    """The rail cards of a game, with lookup tables over tiles (a card and its facing).

    A tile is `2 * design + facing` (0: top towards the destination, 1: towards the start).
    `exits[tile][side]` is the bit mask of mat sides a train entering at `side` may leave by;
    `track[tile]` the sides where any track ends (stubs too), `link[tile]` those joined onward;
    `canon[tile]` is the tile as written, a symmetric card turned half round being the same.
    Compared by identity: one set per card file (`load_cards` keeps them).
    """

    name: str
    cards: tuple[RailCard, ...]
    index: Mapping[str, int]
    exits: tuple[tuple[int, int, int, int], ...]
    track: tuple[int, ...]
    link: tuple[int, ...]
    canon: tuple[int, ...]  # per tile, how it is written: a symmetric card faces the destination

    @property
    def total(self) -> int:
        return sum(c.copies for c in self.cards)

    @property
    def copies(self) -> tuple[int, ...]:
        return tuple(c.copies for c in self.cards)

    def tile(self, card: str, facing: Facing) -> int:
        return 2 * self.index[card] + (facing is Facing.START)

    def card_of(self, tile: int) -> RailCard:
        return self.cards[tile // 2]

    @staticmethod
    def facing_of(tile: int) -> Facing:
        return FACINGS[tile % 2]

    @staticmethod
    def build(name: str, cards: tuple[RailCard, ...]) -> CardSet:
        exits: list[tuple[int, int, int, int]] = []
        track: list[int] = []
        link: list[int] = []
        for card in cards:
            for facing in FACINGS:
                where = ON_MAT[facing]
                out = [0, 0, 0, 0]
                for a, b in card.tracks:
                    out[where[a]] |= 1 << where[b]
                    out[where[b]] |= 1 << where[a]
                joined = {where[s] for pair in card.tracks for s in pair}
                exits.append((out[0], out[1], out[2], out[3]))
                link.append(_bits(joined))
                track.append(_bits(joined | {where[s] for s in card.stubs}))
        index = {c.id: i for i, c in enumerate(cards)}
        canon = tuple(t & ~1 if cards[t // 2].symmetric else t for t in range(2 * len(cards)))
        return CardSet(name, cards, index, tuple(exits), tuple(track), tuple(link), canon)


class CardDataError(ValueError):
    """A card data file that does not describe a usable set of rail cards."""


def _side(value: Any, where: str) -> Side:
    if not isinstance(value, str) or value not in Side.__members__:
        raise CardDataError(f"{where}: {value!r} is not a side (L, T, R or B)")
    return Side(value)


def cards_from_data(data: Any) -> CardSet:
    """A card set from parsed JSON (the format of `data/cards.json`); CardDataError if wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list) or not data["cards"]:
        raise CardDataError("a card file is a JSON object with a non-empty list 'cards'")
    cards: list[RailCard] = []
    for n, item in enumerate(data["cards"]):
        where = f"card {n}"
        if not isinstance(item, dict):
            raise CardDataError(f"{where} is not an object")
        cid = item.get("id")
        if not isinstance(cid, str) or not cid.strip() or cid != cid.strip():
            raise CardDataError(f"{where}: 'id' must be a non-empty name")
        where = f"card {cid!r}"
        pairs = item.get("tracks", [])
        if not isinstance(pairs, list):
            raise CardDataError(f"{where}: 'tracks' must be a list of side pairs")
        tracks: list[tuple[Side, Side]] = []
        for pair in pairs:
            if not isinstance(pair, list) or len(pair) != 2:
                raise CardDataError(f"{where}: a track joins two sides, got {pair!r}")
            a, b = _side(pair[0], where), _side(pair[1], where)
            if a == b:
                raise CardDataError(f"{where}: a track joins two different sides, got {pair!r}")
            tracks.append((a, b))
        stubs = [_side(s, where) for s in item.get("stubs", [])]
        joined = {s for p in tracks for s in p}
        if set(stubs) & joined or len(set(stubs)) != len(stubs):
            raise CardDataError(f"{where}: a dead-end stub is a side no track joins, once")
        if not tracks:
            raise CardDataError(f"{where}: a rail card joins at least two sides")
        copies = item.get("copies", 1)
        if isinstance(copies, bool) or not isinstance(copies, int) or copies < 1:
            raise CardDataError(f"{where}: 'copies' must be a whole number >= 1")
        label = item.get("label", cid)
        cards.append(RailCard(cid, str(label), tuple(tracks), tuple(stubs), copies))
    if len({c.id for c in cards}) != len(cards):
        raise CardDataError("two cards share an id")
    return CardSet.build(str(data.get("name", "")), tuple(cards))


@functools.cache
def default_cards() -> CardSet:
    """The 90 rail cards of the designers' printable (`data/cards.json` in this package)."""
    text = resources.files("rules.derailed").joinpath("data/cards.json").read_text()
    return cards_from_data(json.loads(text))


@functools.cache
def load_cards(path: str) -> CardSet:
    """The card set of option `card_file`: "" is the printable set, else a JSON file."""
    if not path:
        return default_cards()
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise CardDataError(f"cannot read card file {path!r}: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CardDataError(f"card file {path!r} is not JSON: {e}") from None
    return cards_from_data(data)
