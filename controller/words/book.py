"""One game's words for the things its lines name: places, cards, pieces, seats and actions."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.referee.tables import piece_from_text
from controller.words.language import Language, Tongue, tongue
from rules.core import Action, IllegalAction
from rules.game import Game, Good
from rules.physical import CatalogueEntry, Piece, PlacedPiece
from rules.words import GameWords

CARD_KINDS = ("card", "rail")  # pieces whose identity is a code players never say ("bo-3")
_COMPASS = "NESW"


@dataclass(frozen=True)
class Book:
    """What players call a game's things: `names` for the ids the rules use (places, cards),
    `seats` for the players (empty: "seat N"), the catalogue's entries for pieces, and how to
    read an action's JSON back (`parse`)."""

    names: Mapping[str, str] = field(default_factory=dict)
    seats: tuple[str, ...] = ()
    pieces: Mapping[Piece, CatalogueEntry] = field(default_factory=dict)
    parse: Callable[[Mapping[str, Any]], Action] | None = None
    hidden: Mapping[str, str] = field(default_factory=dict)  # a draw kept from a phone: "a card"
    plain: bool = False  # the referee's own account (scenarios quote it), not a player's words
    say: Tongue = field(default_factory=tongue)  # the language its lines are said in
    game: Game[Any] | None = field(default=None, compare=False, repr=False)  # whose words
    phases: Mapping[str, str] = field(default_factory=dict)  # the page's badge for each phase
    title: str = ""  # the game's title in the book's language (a published one as printed)

    def speaking(self, language: Language) -> Book:
        """The same book, its lines said in `language` (and the game's names too, where its
        words say them in another language)."""
        if language is self.say.language:
            return self
        if self.game is not None and self.game.words.said is not None and not self.plain:
            return _book(self.game, self.seats, self.plain, language)
        return dataclasses.replace(self, say=tongue(language))

    @staticmethod
    def of(info: Game[Any] | None, seats: Sequence[str] = (), plain: bool = False) -> Book:
        """A game's book; `plain` keeps the rules' ids for places and cards (the referee's own
        account, as scenarios and logs for developers quote it). Kept for the same game and
        players: every snapshot asks for it."""
        return _book(info, tuple(seats), plain)

    # ---- names
    def name(self, identity: str) -> str:
        """An id's name for players (itself where the game gives none)."""
        return self.names.get(identity, identity)

    def place(self, location: str) -> str:
        """A location's name; one that holds a seat (`{seat0}'s shares`) says its player. Also
        a value an action names ("ruby", "north"): in the book's language where it is a word."""
        name = self.names.get(location)
        if name is None:
            name = (
                self.say.known(location) if self.say.language is not Language.EN else None
            ) or location
        return name.format_map(_Seats(self)) if "{" in name else name

    def places(self, locations: Sequence[str]) -> str:
        return ", ".join(self.place(n) for n in locations)

    def seat(self, seat: int | None) -> str:
        """A seat by its player's name ("seat 2" where no names are known; None: the host)."""
        if seat is None:
            return self.say.tr("the host")
        if 0 <= seat < len(self.seats) and self.seats[seat]:
            return self.seats[seat]
        return self.say.tr("seat {number}", number=seat)

    def seats_own(self, seat: int | None) -> str:
        """`Ann's`, `seat 2's`."""
        return self.say.tr("{player}'s", player=self.seat(seat))

    # ---- pieces
    def label(self, piece: Piece) -> str:
        entry = self.pieces.get(piece)
        if entry is not None and entry.label:
            return entry.label
        if piece.kind == "magnetic":
            return self.say.tr("magnetic piece")
        return self.name(piece.identity).replace("_", " ")

    def piece_words(self, placed: PlacedPiece) -> tuple[str, str]:
        """The piece's name and how it is turned, apart, so an instruction can name the square
        between them ("put the corner track on B4, joining south and west")."""
        entry = self.pieces.get(placed.piece)
        label = self.label(placed.piece)
        if entry is None and placed.piece.kind == "magnetic":
            return label, ""  # the sensor board feels a magnet: which piece, it cannot tell
        if entry is not None and entry.rotations == 1:
            return label, ""
        if (
            entry is not None and entry.turns
        ):  # the game's words for it: "corner track", ", joining south and west"
            return label, f", {entry.turns[placed.rotation % len(entry.turns)]}"
        return label, self.say.tr(" turned {side}", side=_COMPASS[placed.rotation % 4])

    def piece_words_of(self, text: str) -> tuple[str, str]:
        """`piece_words` of a piece as data (`minecart:red-white@S`)."""
        return self.piece_words(piece_from_text(text))

    def piece(self, text: str) -> str:
        label, turn = self.piece_words_of(text)
        return label + turn

    def the(self, label: str) -> str:
        """A piece named as a definite thing: `the red minecart` in English; in another language
        its name as the game's words give it (with the article it takes there)."""
        return the(label) if self.say.language is Language.EN else label

    def goods(self, items: Sequence[Good]) -> str | None:
        """What lies on a place with no marker (its goods' items) in the book's language; None
        where the game does not say it."""
        if self.game is None or self.game.words.goods is None:
            return None
        return self.game.words.goods(items, lambda line: self.say.tr(line))

    def why_ended(self, state: Any) -> str:
        """Why a finished game ended by its rules, in the book's language, naming its players
        (the game's `end`), else the game's `ended`."""
        if self.game is None:
            return self.say.tr("the game is over")
        words = self.game.words
        if self.say.language is not Language.EN and words.said is not None:
            words = words.said(lambda line: self.say.tr(line))
        named = words.end(state, self.seat) if words.end is not None else None
        if named:
            return named
        if words.ended == GameWords.ended:  # the game has no words of its own for it
            return self.say.tr("the game is over")
        return words.ended

    def phase(self, phase: str | None) -> str:
        """A phase of the game as the page's badge says it ("actions phase"); "" for none."""
        if not phase:
            return ""
        return self.phases.get(phase) or phase.replace("_", " ")

    def pieces_said(self, texts: Sequence[str]) -> str:
        return self.say.listed([self.piece(t) for t in texts]) or self.say.tr("nothing")

    # ---- actions
    def action(self, data: Mapping[str, Any]) -> str:
        """An action's JSON in players' words (a draw kept from this audience: its kind)."""
        if self.parse is not None:
            try:
                return self.parse(data).words(self.place, self.seat, self.say.tr)
            except (IllegalAction, KeyError, TypeError, ValueError):
                pass
        return str(data.get("type", self.say.tr("a move"))).replace("_", " ")

    def seen_action(self, data: Mapping[str, Any]) -> str:
        """An action as a log row shows it to someone: its words, or only the kind of a draw
        kept from them ("a card (hidden)")."""
        if self.parse is not None:
            try:
                return self.parse(data).words(self.place, self.seat, self.say.tr)
            except (IllegalAction, KeyError, TypeError, ValueError):
                pass
        kind, seat = str(data.get("type", "")), data.get("seat")
        hidden = self.hidden.get(kind) or self.say.tr("a draw")
        drawn = hidden.format(seat=self.seat(seat if isinstance(seat, int) else None))
        return self.say.tr("{draw} (hidden)", draw=drawn)

    def actions(self, data: Sequence[Mapping[str, Any]], none: str | None = None) -> str:
        said = ", ".join(self.action(a) for a in data)
        return said or (none if none is not None else self.say.tr("nothing"))


class _Seats(dict[str, str]):
    """`{seat2}` in a place's name, said by the book."""

    def __init__(self, book: Book) -> None:
        super().__init__()
        self.book = book

    def __missing__(self, key: str) -> str:
        if key.startswith("seat") and key[4:].isdigit():
            return self.book.seat(int(key[4:]))
        return "{" + key + "}"


@functools.lru_cache(maxsize=64)
def _book(
    info: Game[Any] | None,
    seats: tuple[str, ...],
    plain: bool,
    language: Language = Language.EN,
) -> Book:
    say = tongue(language)
    if info is None:
        return Book(seats=seats, plain=plain, say=say)
    entries = info.catalogue().entries
    names: dict[str, str] = {}
    words = info.words
    if not plain and language is not Language.EN and words.said is not None:
        words = words.said(say.tr)  # the game's names in the book's language
    if not plain:  # the game's words for pieces whose labels are codes ("junction L-T")
        said = words.pieces
        entries = tuple(
            dataclasses.replace(e, label=said[str(e.piece)][0], turns=said[str(e.piece)][1])
            if str(e.piece) in said
            else e
            for e in entries
        )
        names.update(
            (e.piece.identity, e.label) for e in entries if e.piece.kind in CARD_KINDS and e.label
        )
        names.update(words.cards)
        names.update(words.places)
    codec = info.state_class.CODEC
    hidden = {} if plain else dict(words.hidden)
    pieces = {e.piece: e for e in entries}
    phases = {} if plain else dict(words.phases)
    title = words.title or info.title
    return Book(names, seats, pieces, codec.parse, hidden, plain, say, info, phases, title)


def game_title(info: Game[Any], language: Language) -> str:
    """A game's title in `language`: a published title as printed, ours said in the language."""
    return Book.of(info).speaking(language).title or info.title


def the(words: str) -> str:
    """`the red minecart`, and `the Rock` rather than `the the Rock` (English: a language of its
    own says its pieces whole, in the lines that name them)."""
    return words if words.lower().startswith("the ") else f"the {words}"
