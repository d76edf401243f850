"""Words from the players' side for one open game: its `Book` (the names printed on the mat and
the cards instead of the rules' ids, the players' names instead of "seat 2") and its players.

No line is rewritten after it is made: verdicts are said from their data
(`controller/words/verdicts.py`), actions from theirs (`Action.words` with the game's names)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.game.players import Player
from controller.game.store import Event, GameRecord
from controller.words.book import Book
from controller.words.language import Language
from controller.words.verdicts import said
from rules.game import Game, Good
from rules.physical import Piece, PlacedPiece
from rules.registry import GAMES, game_named


class Phrasebook:
    """One game's words (`words`) and its players."""

    def __init__(self, words: Book, players: Sequence[Player]) -> None:
        self.words = words
        self.players = tuple(players)
        self._spoken: dict[Language, Phrasebook] = {words.say.language: self}

    def speaking(self, language: Language) -> Phrasebook:
        """The same words said in `language` (made once per language)."""
        book = self._spoken.get(language)
        if book is None:
            words = self.words.speaking(language)
            players = tuple(p.said(words.say) for p in self.players)
            if players != self.players:  # a seat no one named: "Spieler 2"
                words = dataclasses.replace(words, seats=tuple(p.name for p in players))
            book = self._spoken[language] = Phrasebook(words, players)
        return book

    def view(self, seen: Mapping[str, Any]) -> dict[str, Any]:
        """An audience's view (`GameSnapshot.by_audience`) said again in this book's language:
        its verdict and choices, from their data."""
        out = dict(seen)
        if out.get("verdict") is not None:
            out["verdict"] = self.verdict(out["verdict"])
        out["choices"] = [
            {**c, "text": self.words.action(c["action"])} for c in out.get("choices", [])
        ]
        if out.get("table") is not None:
            out["table"] = self.table(out["table"])
        state = out.get("state")
        if isinstance(state, dict) and isinstance(state.get("private"), dict):
            private = {k: self.private(k, v) for k, v in state["private"].items()}
            phase = self.words.phase(state.get("phase"))
            out["state"] = {**state, "private_words": private, "phase_words": phase}
        return out

    def table(self, table: Mapping[str, Any]) -> dict[str, Any]:
        """A table's JSON (`snapshot.table_json`) with its places and pieces named in this
        book's language."""
        out = dict(table)
        out["locations"] = [{**loc, "place": self.place(loc["name"])} for loc in table["locations"]]
        out["pieces"] = {
            name: [{**p, "label": self._piece(p)} for p in pieces]
            for name, pieces in table["pieces"].items()
        }
        goods = {}
        for name, here in table.get("goods", {}).items():
            said = self.words.goods([Good(**item) for item in here["items"]])
            goods[name] = here if said is None else {**here, "words": said}
        out["goods"] = goods
        return out

    def _piece(self, shown: Mapping[str, Any]) -> str:
        piece = Piece(shown["kind"], shown["identity"], shown.get("face") or "")
        label, turn = self.words.piece_words(PlacedPiece(piece, int(shown.get("turn") or 0)))
        return label + turn

    @staticmethod
    def of(info: Game[Any] | None, players: Sequence[Player]) -> Phrasebook:
        return Phrasebook(Book.of(info, [p.name for p in players]), players)

    def place(self, location: str) -> str:
        """A location's name for players."""
        return self.words.place(location)

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return self.words.say.tr("the host")
        if 0 <= seat < len(self.players):
            return self.players[seat].name
        return self.words.say.tr("player {number}", number=seat + 1)

    def verdict(self, data: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """A verdict's JSON with its words, in players' words."""
        if data is None:
            return None
        return said(data, self.words)

    def event(self, out: dict[str, Any]) -> dict[str, Any]:
        """A log row as `privacy.event_for` renders it, with its words."""
        data = out.get("data")
        if not isinstance(data, dict):
            return out
        if "kind" in data and ("reason" in data or "text" in data or "words" in data):
            out["data"] = self.verdict(data)
        elif isinstance(data.get("action"), dict):
            out["data"] = {**data, "text": self.words.seen_action(data["action"])}
        elif out.get("kind") == "end" and isinstance(data.get("said"), dict):
            reason = data["said"].get(self.words.say.language.value)  # the END row's reason
            if isinstance(reason, str):
                out["data"] = {**data, "reason": reason}
        if out.get("seat") is not None and out["seat"] >= 0:
            out["who"] = self.seat(out["seat"])
        return out

    def private(self, key: str, value: Any) -> str:
        """What only a seat's view holds (`key` in it), in words: the game's own where it has
        them (the pile a collision spilled), else the value listed."""
        game = self.words.game
        if game is not None and game.words.private is not None:
            said = game.words.private(key, value, lambda line: self.words.say.tr(line))
            if said is not None:
                return said
        return self.values(value)

    def values(self, value: Any) -> str:
        """A private value (a hand of card ids, a hidden split) in words."""
        if isinstance(value, list):
            said = [self.values(v) for v in value]
            return ("; " if any("," in w for w in said) else ", ").join(said) or "none"
        if isinstance(value, dict):
            return "; ".join(f"{k.replace('_', ' ')} {self.values(v)}" for k, v in value.items())
        if isinstance(value, str):
            return self.words.name(value).replace("_", " ")
        return str(value)


def book_for(record: GameRecord | None, events: Iterable[Event] = ()) -> Phrasebook:
    """The phrasebook of a game the log holds (its players as its `player` rows name them)."""
    from controller.game.players import chosen, players

    if record is None or record.game not in GAMES:
        return Phrasebook(Book(), ())
    info = game_named(record.game)
    count = int(record.options.get("players", 0))
    return Phrasebook.of(info, players(info, None, count, chosen(events)))
