"""Every verdict kind, with every kind of action of every game in it, said in words: no action's
program form (`take_jewel(jewel=ruby)`) nor a field (`card=`) reaches a person."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

import rules
from controller.referee.observe import LocationView, Seen
from controller.referee.verdict import (
    Alternative,
    Instruction,
    Reason,
    Verdict,
    VerdictKind,
    Wrong,
    WrongLocation,
)
from controller.words.book import Book
from controller.words.verdicts import said
from rules.core import CHANCE, Action, GameInfo
from rules.physical import PlacedPiece

PROGRAM_CODE = re.compile(r"\b[a-z_]+\(|\b[a-z_]+=")
KIND_OF = {
    Reason.AS_EXPECTED: VerdictKind.IN_SYNC,
    Reason.SEEN: VerdictKind.APPLIED,
    Reason.COMPUTER_DECIDES: VerdictKind.APPLIED,
    Reason.FOLLOWING: VerdictKind.INSTRUCTIONS,
    Reason.MANY_READINGS: VerdictKind.CHOICE,
    Reason.HIDDEN_CHOICE: VerdictKind.NEEDS_INPUT,
    Reason.OWN_DECISION: VerdictKind.NEEDS_INPUT,
    Reason.UNSEEN_INPUT: VerdictKind.NEEDS_INPUT,
    Reason.CAME_UP: VerdictKind.NEEDS_INPUT,
    Reason.COVERED: VerdictKind.WAITING,
    Reason.COVERED_MANY: VerdictKind.WAITING,
    Reason.DRAW_NOT_SHOWN: VerdictKind.WAITING,
    Reason.NEEDS_COVERED: VerdictKind.WAITING,
    Reason.BACK_TO_BEFORE: VerdictKind.TAKE_BACK,
    Reason.NOT_LEGAL: VerdictKind.ALERT,
    Reason.TOO_MANY: VerdictKind.ALERT,
    Reason.REAL_DRAW_KEPT: VerdictKind.ALERT,
}


def every_kind_of_action(info: GameInfo, steps: int = 300) -> list[Action]:
    """One action of each type (and each chance outcome's type) met near the states of a few
    bot games, with each option's every value, at the fewest and the most players: the legal
    ones, and all the game's JSON can spell there (`candidates`)."""
    found: dict[str, Action] = {}
    settings = [{}] + [{o.name: v} for o in info.options for v in o.choices or ()]
    for seed, (players, chosen) in enumerate(
        (p, c) for p in (info.min_players, info.max_players) for c in settings
    ):
        try:
            state = rules.new_game(info.name, {"players": players, **chosen}, seed)
        except ValueError:
            continue  # an option that does not go with this player count
        rng = random.Random(seed)
        for _ in range(steps):
            if state.is_over:
                break
            near = list(info.candidates(state)) if info.candidates is not None else []
            if state.current_player == CHANCE:
                outcomes = [a for a, p in state.chance_outcomes() if p > 0]
                for action in [*outcomes, *near]:
                    found.setdefault(action.TYPE, action)
                state.apply(rng.choice(outcomes))
                continue
            legal = state.legal_actions()
            for action in [*legal, *near]:
                found.setdefault(action.TYPE, action)
            state.apply(info.bot(state, rng) if info.bot is not None else rng.choice(legal))
    return list(found.values())


def verdicts(info: GameInfo, actions: list[Action]) -> Iterator[Verdict]:
    """Every reason a verdict gives, each with the game's actions and pieces in it."""
    entries = info.catalogue().entries if info.catalogue is not None else ()
    pieces = tuple(PlacedPiece(e.piece, 1) for e in entries[:4])
    place = "A1"
    instruction = Instruction(place, pieces[:1], pieces[1:2], pieces[1:2])
    seen = LocationView(Seen.EXACT, pieces[:2])
    wrongs = [
        WrongLocation(place, seen, pieces[2:3], Wrong.LEGAL_HERE, legal_here=tuple(actions[:5]),
                      turn=0, fix=instruction),
        WrongLocation(place, seen, (), Wrong.LEGAL_HERE,
                      legal_kinds=tuple(a.TYPE for a in actions[:2]), turn=1),
        WrongLocation(place, LocationView(Seen.MAGNET, magnet=True), (), Wrong.COMPUTER_SEAT,
                      turn=1),
        WrongLocation(place, LocationView(Seen.ON_TOP, pieces[:1]), pieces, Wrong.OUT_OF_TURN,
                      turn=0, mover=1, todo=(instruction,)),
        WrongLocation(place, LocationView(Seen.UNKNOWN), (), Wrong.NO_LEGAL_MOVE, fix=instruction),
        WrongLocation(place, LocationView(Seen.EXACT, pieces[:1]), (), Wrong.TOO_MANY,
                      places=(place, "B2"), copies=1),
    ]  # fmt: skip
    for start in range(0, len(actions), 3):
        some = tuple(actions[start : start + 3])
        options = tuple(Alternative((a,), asks=i % 2 == 1) for i, a in enumerate(some))
        for reason, kind in KIND_OF.items():
            for follows in (None, Reason.SEEN, Reason.AS_EXPECTED):
                yield Verdict(
                    kind,
                    reason,
                    actions=some,
                    options=options,
                    seat=start % 2 if reason is not Reason.UNSEEN_INPUT else None,
                    instructions=(instruction,),
                    wrong=tuple(wrongs),
                    locations=(place,),
                    hidden=reason is Reason.HIDDEN_CHOICE,
                    follows=follows if kind is VerdictKind.NEEDS_INPUT else None,
                    drawn=some,
                    taken=some,
                    asked_kinds=tuple(a.TYPE for a in some),
                    computer_move=(1, some[0]) if reason is Reason.FOLLOWING else None,
                )


def lines(data: dict[str, object]) -> Iterator[str]:
    """Every line a person may read of a said verdict."""
    for key in ("text", "words", "who"):
        if isinstance(data.get(key), str):
            yield str(data[key])
    for key in ("options", "instructions", "wrong"):
        for part in data.get(key, []):  # type: ignore[attr-defined]
            yield from (str(part[k]) for k in ("text", "words", "place") if k in part)
    yield from (str(p) for p in data.get("places", []))  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_no_verdict_says_program_code(name: str) -> None:
    info = rules.game_info(name)
    actions = every_kind_of_action(info)
    missing = set(info.state_class.CODEC.classes) - {a.TYPE for a in actions}
    assert not missing, f"no bot game met {sorted(missing)}"
    books = (Book.of(info, ["Ann", "Bob"]), Book.of(info, plain=True))
    checked = 0
    for verdict in verdicts(info, actions):
        data = verdict.to_json()
        for book in books:
            for shown in (data, {**data, "withheld": True, "options": []}):
                for line in lines(said(shown, book)):
                    assert not PROGRAM_CODE.search(line), (verdict.reason, line)
                    checked += 1
    assert checked > 1000


def test_the_check_finds_program_code() -> None:
    assert PROGRAM_CODE.search("the table is back to before take_jewel(jewel=ruby)")
    assert PROGRAM_CODE.search("legal here: card=bo-3")
    assert not PROGRAM_CODE.search(
        "Ann: take an emerald; put the red minecart on F12, facing north"
    )
