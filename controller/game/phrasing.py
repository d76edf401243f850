"""Words from the players' side: what the table says, with the names printed on the mat and the
cards instead of the rules' ids ("lane.3", "bo-3"), the players' names instead of "seat 2", and
English put right ("an emerald", a phrase never said twice in a row).

The rules name places and cards in their own words (`rules.core.GameWords`, the catalogue's
labels); the players name themselves (`controller.game.players`). A `Phrasebook` holds both for
one game and rewrites any line the referee, the rules or the service says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.game.players import Player
from controller.game.store import Event, GameRecord
from controller.words.book import Book
from controller.words.verdicts import said
from rules.game import Game
from rules.registry import GAMES, game_named

CARD_KINDS = ("card", "rail")  # pieces whose identity is a code players never say ("bo-3")
_SEAT = re.compile(r"\bseat (\d+)\b")
_AN = re.compile(r"\b([Aa]) (?=(?:[aeio]|un)[a-z])")
_TWICE = re.compile(r"(?i)\b([a-z][a-z ,']{7,}?)(?:[:;,] |\s+)\1\b")


def place_and_card_names(info: Game[Any]) -> dict[str, str]:
    """Every id players never say, with the name they do: the game's places, and each card's
    name as printed (its catalogue label)."""
    named: dict[str, str] = {}
    for entry in info.catalogue().entries:
        if entry.piece.kind in CARD_KINDS and entry.label:
            named[entry.piece.identity] = entry.label
            named[entry.piece.identity.replace("_", " ")] = entry.label  # as words() says it
    named.update(info.words.cards)
    named.update(info.words.places)
    return named


class Phrasebook:
    """One game's words: its ids' names and its players' names."""

    def __init__(
        self, names: Mapping[str, str], players: Sequence[Player], words: Book | None = None
    ) -> None:
        self.names = dict(names)
        self.players = tuple(players)
        self.words = words or Book(self.names, tuple(p.name for p in self.players))
        keys = sorted((k for k in self.names if k), key=len, reverse=True)
        self._ids = (
            re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-]|\.\w)")
            if keys
            else None
        )

    @staticmethod
    def of(info: Game[Any] | None, players: Sequence[Player]) -> Phrasebook:
        names = place_and_card_names(info) if info is not None else {}
        return Phrasebook(names, players, Book.of(info, [p.name for p in players]))

    def place(self, location: str) -> str:
        """A location's name for players."""
        return self.say(self.names.get(location, location))

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return "the host"
        if 0 <= seat < len(self.players):
            return self.players[seat].name
        return f"player {seat + 1}"

    def say(self, text: str) -> str:
        """A line in players' words."""
        if not text:
            return text
        if self._ids is not None:
            text = self._ids.sub(self._named, text)
        text = _SEAT.sub(lambda m: self.seat(int(m.group(1))), text)
        text = _AN.sub(lambda m: m.group(1) + "n ", text)
        previous = None
        while previous != text:
            previous, text = text, _TWICE.sub(r"\1", text)
        return text

    def _named(self, match: re.Match[str]) -> str:
        """An id's name; its last word left out where the line says it next ("reservation
        card" said of "the reservation card", not "the reservation card card")."""
        name = self.names[match.group(1)]
        head, _, last = name.rpartition(" ")
        after = match.string[match.end() :]
        if head and re.match(rf" {re.escape(last)}\b", after):
            return head
        return name

    def verdict(self, data: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """A verdict's JSON with its words, in players' words (`controller/words/verdicts.py`)."""
        if data is None:
            return None
        return said(data, self.words)

    def event(self, out: dict[str, Any]) -> dict[str, Any]:
        """A log row as `privacy.event_for` renders it, its words in players' words."""
        data = out.get("data")
        if not isinstance(data, dict):
            return out
        if "kind" in data and ("reason" in data or "text" in data or "words" in data):
            out["data"] = self.verdict(data)
        elif isinstance(data.get("text"), str):
            out["data"] = {**data, "text": self.say(data["text"])}
        if out.get("seat") is not None and out["seat"] >= 0:
            out["who"] = self.seat(out["seat"])
        return out

    def values(self, value: Any) -> str:
        """A private value (a hand of card ids, a hidden split) in words."""
        if isinstance(value, list):
            return ", ".join(self.values(v) for v in value) or "none"
        if isinstance(value, dict):
            return "; ".join(f"{k.replace('_', ' ')} {self.values(v)}" for k, v in value.items())
        return self.say(str(value).replace("_", " ") if not isinstance(value, str) else value)


def book_for(record: GameRecord | None, events: Iterable[Event] = ()) -> Phrasebook:
    """The phrasebook of a game the log holds (its players as its `player` rows name them)."""
    from controller.game.players import chosen, players

    if record is None or record.game not in GAMES:
        return Phrasebook({}, ())
    info = game_named(record.game)
    count = int(record.options.get("players", 0))
    return Phrasebook.of(info, players(info, None, count, chosen(events)))
