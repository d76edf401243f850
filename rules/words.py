"""A game's words for players: its options as a player chooses them, the names of its places,
pieces and cards, its phases, and the same in another language (see `rules.game.Game`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.said import Say


@dataclass(frozen=True)
class OptionWords:
    """An option as a player chooses it: a short label, one sentence of help, and each value's
    words (keyed by the value as JSON spells it: "true", "\"two\"", "17")."""

    label: str
    help: str = ""
    choices: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class GameWords:
    """A game's names for players, as printed on its mat and cards: `places` names each
    location id that is not already its printed name (a card slot "lane.3": "trick lane space
    4"); a card's name is its catalogue label unless `cards` names it more shortly.
    `seat_colour(state, seat)` is the colour name of the seat's own pieces, where the game gives
    a seat pieces of one colour (else None); `ended`, why a finished game ended.
    `pieces` names a piece (by its text, `tile:straight_t:straight`) as a player would, with the
    words for each of its rotations, where its catalogue label is a code the referee's own
    account keeps ("junction L-T"); `hidden` says a draw kept from a phone by its action type
    ("draw": "a card"); `end(state, seats)`, why a finished game ended naming its players
    (`seats` says a seat by its player's name), where the state's own reason names a colour;
    `said(say)`, these words in another language."""

    places: Mapping[str, str] = dataclasses.field(default_factory=dict)
    cards: Mapping[str, str] = dataclasses.field(default_factory=dict)  # shorter than labels
    options: Mapping[str, OptionWords] = dataclasses.field(default_factory=dict)
    seat_colour: Callable[[Any, int], str | None] | None = None
    ended: str = "the game is over"  # why a game ends, where its state does not say
    pieces: Mapping[str, tuple[str, tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    hidden: Mapping[str, str] = dataclasses.field(default_factory=dict)
    end: Callable[[Any, Callable[[int], str]], str | None] | None = None
    # the same words in a reader's language: `said(say)`, each name built from whole lines
    # marked `say("...")` (the catalogues take them), its values put in by name
    said: Callable[[Say], GameWords] | None = None
    # what lies on a place with no marker, in words, from its goods' items (`rules.game.Good`)
    goods: Callable[[Sequence[Any], Say], str] | None = None
    # each phase of the game (its value in the state's view) as the page's badge says it
    phases: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # what only a seat's view holds, in words, by its key in the view (the pile a collision
    # spilled, which its seat splits); None where the game has none for that key
    private: Callable[[str, Any, Say], str | None] | None = None
    # the game's title in these words where it describes the game rather than being printed on
    # a box (the race's seed has none): None keeps the published title in every language
    title: str | None = None
