"""A whole bot game of each game, played through the live game and its snapshots: every line a
person could read (each audience's verdict, choices, table, scores and private words, the log rows
the page receives, the end screen) is words, never program code, codes or a wrong plural."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rules
from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.privacy import audiences, event_for
from controller.game.snapshot import take
from controller.game.store import EventLog
from controller.words.language import Language
from rules.core import CHANCE, Decision
from rules.playout import Policy, choose
from tests.support.english import ENGLISH

CODES = {
    "program call": re.compile(r"\b[a-z_]+\("),
    "field": re.compile(r"\b[a-z_]+="),
    "id": re.compile(r"\b[a-z]+-\d"),
    "a minecart's id": re.compile(r"\b(?:red|yellow|green|blue)-(?:white|black)\b"),
    "exit code": re.compile(r"\b(?:NS|EW|NE|NW|SE|SW|NES|NEW|NSW|ESW|NESW)\b"),
    "side code": re.compile(r"\b[LRTB](?:-[LRTB])+\b"),
    "tile id": re.compile(r"\b[a-z]+/[a-z]+\b"),
    "turned": re.compile(r"\bturned [NESW]\b"),
    "a kind for a card": re.compile(r"\bdrew: draw\b"),
    "a hidden row by its kind": re.compile(r"^[a-z_]+ \(hidden\)$"),
    "snake_case": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "the race's goal by its id": re.compile(r"\bto goal\b"),
    "plural": re.compile(r"(?<![\d.])\b1 (?!of\b)(?:[A-Z][\w&]* )?[a-z]+s\b"),
}
SAID = {
    "text",
    "words",
    "who",
    "place",
    "label",
    "what",
    "reason",
    "title",
    "phase_words",
}  # keys a page shows
PLAYERS = {"offtherails": 3, "trickoftherails": 3, "derailed": 3, "minewagons": 3}
NAMES = ("Ann", "Bob", "Cleo")


def shown(value: Any, key: str = "") -> Iterator[str]:
    """The strings of a snapshot's or a row's JSON that the page shows a person."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "private_words":
                yield from (str(w) for w in v.values())
            elif k not in ("action", "actions", "drawn", "taken", "options_json"):
                yield from shown(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from shown(v, key)
    elif isinstance(value, str) and key in SAID:
        yield value


def codes_in(line: str) -> list[str]:
    return [name for name, pattern in CODES.items() if pattern.search(line)]


def play(name: str, tmp_path: Path, seed: int = 3, moves: int = 3000) -> tuple[set[str], Any]:
    """Every line a person could read over a bot game (all audiences, all log rows), and its
    end screen."""
    game = LiveGame(EventLog(tmp_path / f"{name}.sqlite3"))
    game.start(name, {"players": PLAYERS[name]}, seed=seed)
    for seat in range(PLAYERS[name]):
        game.name_player(Asker.host(), seat, NAMES[seat])
    game_id = game.opened().record.id
    rng = random.Random(seed)
    lines: set[str] = set()
    viewer, book = None, game.book
    for version in range(moves):
        opened = game.open
        if opened is None:
            break
        snapshot = take(game, version, 0)
        for who in audiences(snapshot.players):
            lines.update(shown(snapshot.for_asker(who)))
        lines.update(shown(snapshot.status()))
        state = viewer = opened.state
        book = game.book  # the game's words (once it ends, the live game has none open)
        mover = state.current_player
        if state.is_over or mover is None:
            break
        if mover == CHANCE:  # a draw the table shows (a tile turned up): the host says it
            outcomes = [a for a, p in state.chance_outcomes() if p > 0]
            game.act(Asker.host(), rng.choice(outcomes).to_json())
            continue
        action = choose(state, rng, Policy.BOT)
        asker = Asker.host() if action.DECISION is Decision.HOST else Asker.at(mover)
        game.act(asker, action.to_json())
    for event in game.log.events(game_id, limit=100_000):
        for who in audiences(PLAYERS[name]):
            lines.update(shown(book.event(event_for(event, name, viewer, who))))
    assert game.finished is not None, f"{name}: the bot game did not end"
    lines.update(shown(game.finished))
    return lines, game.finished


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_a_bot_game_says_no_program_code(name: str, tmp_path: Path) -> None:
    lines, _ = play(name, tmp_path)
    assert len(lines) > 20
    bad = sorted(f"{codes_in(line)}: {line}" for line in lines if codes_in(line))
    assert not bad, "\n".join(bad[:40])


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_a_game_ends_naming_players_not_colours(name: str, tmp_path: Path) -> None:
    _, finished = play(name, tmp_path)
    reason = finished["reason"]
    assert not re.match(r"(red|blue|yellow|white|green|black)\b", reason), reason
    if name == "minewagons":
        (winner,) = finished["winners"]
        assert reason.startswith(f"{NAMES[winner]} brought all their wagons"), reason


def test_the_check_finds_codes() -> None:
    for line in (
        "the table is back to before take_jewel(jewel=ruby)",
        "legal here: card=bo-3",
        "straight track (straight/t tile)",
        "play junction L-T, dead end R-B on D2",
        "junction T-R-B turned N",
        "lay a tile on C7 (exits NS)",
        "the tile lies with exits NW",
        "1 wagons",
        "1 Erie shares",
        "The table drew: draw, face down",
        "draw (hidden)",
        "set the blue-white minecart's speed to 2",
    ):
        assert codes_in(line), line
    for line in (
        "Ann: take an emerald; put the red minecart on F12, facing north",
        "a T-junction open left, top and right",
        "1 wagon",
        "2 wagons",
        "1 Erie share",
        "1 of 3 rounds",
        "lay a tile on C7, a straight track running north to south",
    ):
        assert not codes_in(line), line


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_a_bot_game_read_in_another_language_has_no_english_left(name: str, tmp_path: Path) -> None:
    """Every line each audience reads over a bot game (its verdict, choices, the table's places,
    pieces and goods, the scores' parts, its private words), in German, French and Spanish."""
    game = LiveGame(EventLog(tmp_path / f"{name}.sqlite3"))
    game.start(name, {"players": PLAYERS[name]}, seed=3)
    for seat in range(PLAYERS[name]):
        game.name_player(Asker.host(), seat, NAMES[seat])
    rng = random.Random(3)
    translated: list[Language] = [lang for lang in Language if lang is not Language.EN]
    lines: dict[Language, set[str]] = {language: set() for language in translated}
    for version in range(3000):
        opened = game.open
        if opened is None or opened.state.is_over or opened.state.current_player is None:
            break
        if version % 3 == 0:  # every third move: the lines change little from one to the next
            snapshot = take(game, version, 0)
            for who in audiences(snapshot.players):
                for lang in translated:
                    lines[lang].update(shown(snapshot.for_asker(who, lang)))
        state = opened.state
        if state.current_player == CHANCE:
            outcomes = [a for a, p in state.chance_outcomes() if p > 0]
            game.act(Asker.host(), rng.choice(outcomes).to_json())
            continue
        action = choose(state, rng, Policy.BOT)
        mover = state.current_player
        assert mover is not None
        asker = Asker.host() if action.DECISION is Decision.HOST else Asker.at(mover)
        game.act(asker, action.to_json())
    for language, said in lines.items():
        assert len(said) > 20, language
        english = sorted(line for line in said if ENGLISH.search(line))
        assert not english, f"{language.value}: " + "\n".join(english[:20])
