"""A phone reading another language sees the table in it too: the places drawn on the board and
the pieces lying there named in its language, and its private words (a hand) too."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import rules
from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.snapshot import take
from controller.game.store import EventLog
from controller.words.language import Language
from rules.core import CHANCE, Decision
from rules.playout import Policy, choose

ENGLISH_WORD = re.compile(r"\b[a-z]{3,}\b")


def _played(name: str, tmp_path: Path, moves: int) -> LiveGame:
    game = LiveGame(EventLog(tmp_path / f"{name}.sqlite3"))
    game.start(name, {"players": 3}, seed=5)
    rng = random.Random(5)
    for _ in range(moves):
        state = game.open.state if game.open is not None else None
        if state is None or state.is_over or state.current_player is None:
            break
        if state.current_player == CHANCE:
            outcomes = [a for a, p in state.chance_outcomes() if p > 0]
            game.act(Asker.host(), rng.choice(outcomes).to_json())
            continue
        action = choose(state, rng, Policy.BOT)
        mover = state.current_player
        asker = Asker.host() if action.DECISION is Decision.HOST else Asker.at(mover)
        game.act(asker, action.to_json())
    return game


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_the_table_is_named_in_the_phones_language(name: str, tmp_path: Path) -> None:
    game = _played(name, tmp_path, 40)
    snapshot = take(game, 1, 0)
    english = snapshot.for_asker(Asker.at(0))
    german = snapshot.for_asker(Asker.at(0), Language.DE)
    ours, theirs = english["table"], german["table"]
    assert [loc["name"] for loc in theirs["locations"]] == [
        loc["name"] for loc in ours["locations"]
    ]
    places = [
        (e["place"], g["place"])
        for e, g in zip(ours["locations"], theirs["locations"], strict=True)
        if ENGLISH_WORD.search(e["place"])
    ]
    labels = [
        (e["label"], g["label"])
        for square in ours["pieces"]
        for e, g in zip(ours["pieces"][square], theirs["pieces"][square], strict=True)
    ]
    assert labels, "no piece on the table after 40 moves"
    assert [p for p in places if p[0] == p[1]] == []
    assert [x for x in labels if x[0] == x[1] and ENGLISH_WORD.search(x[0])] == []
    assert english["table"] is ours and snapshot.for_asker(Asker.at(0))["table"] == ours
    private = german["state"]["private_words"]
    english_private = english["state"]["private_words"]
    assert private.keys() == english_private.keys()


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_the_end_screen_is_said_in_the_phones_language(name: str, tmp_path: Path) -> None:
    """A game played to its end by its rules: why it ended and what each score is made of are
    said in each phone's language, in the stream's snapshot and in `/api/status` alike."""
    game = _played(name, tmp_path, 5000)
    assert game.open is None and game.finished is not None, f"{name} did not end"
    snapshot = take(game, 1, 0)
    english = snapshot.finished_in(Language.EN)
    assert english is game.finished and english["by"] == "rules"
    assert ENGLISH_WORD.search(english["reason"]), english["reason"]
    for language in Language:
        if language is Language.EN:
            continue
        screen = snapshot.finished_in(language)
        assert screen is not None and snapshot.status(language)["finished"] is screen
        assert screen["reason"] != english["reason"] and "{" not in screen["reason"]
        assert screen["scores"] == english["scores"]
        pairs = [
            (e["what"], s["what"])
            for ours, theirs in zip(english["score_parts"], screen["score_parts"], strict=True)
            for e, s in zip(ours, theirs, strict=True)
        ]
        assert pairs, f"{name}: no score parts at the end"
        left = [e for e, s in pairs if e == s and ENGLISH_WORD.search(e)]
        assert left == [], f"{name} in {language.value}: {left}"
