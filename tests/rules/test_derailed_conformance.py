"""Derailed!: random games with their invariants, checked against a naive reading of the tracks."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import rules
from rules.core import CHANCE, Action, BadOptions, IllegalAction
from rules.derailed import DERAILED, Derailed
from rules.derailed import actions as act
from rules.derailed.data import Data
from rules.playout import Policy, choose

CARD_FILE = Path(rules.derailed.__file__).parent / "data" / "cards.json"
CARD_DATA = json.loads(CARD_FILE.read_text())
COPIES = {c["id"]: c["copies"] for c in CARD_DATA["cards"]}

VARIANTS: list[dict[str, Any]] = [
    {"players": p, "hands": hands} for p in range(2, 7) for hands in ("digital", "table")
] + [
    {"players": 3, "stub_connects": False},
    {"players": 4, "arrival": "own_card"},
    {"players": 2, "round_end": "equal_turns"},
    {"players": 5, "round_end": "equal_turns", "hands": "table"},
    {"players": 4, "exchange": True},
    {"players": 3, "exchange": True, "hands": "table"},
    {"players": 6, "next_starter": "fewest_last_round_then_total"},
    {"players": 2, "dry_deck": "play_on"},
    {"players": 5, "dry_deck": "play_on", "hands": "table"},
]


def _new(options: dict[str, Any], seed: int) -> Derailed:
    state = rules.new_game("derailed", options, seed)
    assert isinstance(state, Derailed)
    return state


# ---- a naive reading of the tracks, on the state JSON only

SIDES = "NESW"  # mat sides; a card's sides land on them as the card is laid
ON_MAT = {"destination": {"L": "N", "T": "E", "R": "S", "B": "W"},
          "start": {"L": "S", "T": "W", "R": "N", "B": "E"}}  # fmt: skip
STEP = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
CARDS = {c["id"]: c for c in CARD_DATA["cards"]}


def _pairs(card: str, facing: str) -> set[tuple[str, str]]:
    where = ON_MAT[facing]
    out = set()
    for a, b in CARDS[card]["tracks"]:
        out |= {(where[a], where[b]), (where[b], where[a])}
    return out


def _ends(card: str, facing: str) -> set[str]:
    c = CARDS[card]
    return {ON_MAT[facing][s] for pair in c["tracks"] for s in pair} | {
        ON_MAT[facing][s] for s in c["stubs"]
    }


def _tops(j: dict[str, Any], skip: str = "") -> dict[tuple[int, int], tuple[str, str]]:
    out = {}
    for name, stack in j["railway"].items():
        if name != skip:
            out[("ABCD".index(name[0]), int(name[1:]))] = (stack[-1]["card"], stack[-1]["facing"])
    return out


def _arrivals_at(j: dict[str, Any], seat: int, skip: str = "") -> tuple[set[Any], set[int]]:
    """From `seat`'s starting station: the (column, lane, side) where a track arrives, and the
    lanes whose destination it reaches."""
    lanes = len(j["stations"]["start"])
    tops = _tops(j, skip)
    start = j["stations"]["start"].index(j["companies"][seat]) + 1
    seen: set[tuple[int, int, str]] = set()
    dests: set[int] = set()
    todo = [(0, start, "W")]
    while todo:
        col, lane, side = todo.pop()
        if (col, lane, side) in seen:
            continue
        seen.add((col, lane, side))
        if (col, lane) not in tops:
            continue
        for a, b in _pairs(*tops[col, lane]):
            if a != side:
                continue
            dc, dl = STEP[b]
            if col + dc == 4:
                dests.add(lane)
            elif col + dc >= 0 and 1 <= lane + dl <= lanes:
                todo.append((col + dc, lane + dl, OPPOSITE[b]))
    return seen, dests


def naive_connected(j: dict[str, Any], seat: int, play: act.Play, stubs: bool) -> bool:
    seen, _ = _arrivals_at(j, seat, skip=play.slot)
    col, lane = "ABCD".index(play.slot[0]), int(play.slot[1:])
    ends = _ends(play.card, play.facing.value)
    if not stubs:
        ends = {a for a, _ in _pairs(play.card, play.facing.value)}
    return any((col, lane, side) in seen for side in ends)


def naive_route(j: dict[str, Any], seat: int) -> bool:
    _, dests = _arrivals_at(j, seat)
    return j["stations"]["destination"].index(j["companies"][seat]) + 1 in dests


def _card_count(j: dict[str, Any], table_mode: bool) -> Counter[str]:
    on_table = [c["card"] for stack in j["railway"].values() for c in stack]
    count = Counter(j["deck"]) + Counter(j["discard"]) + Counter(on_table)
    if not table_mode:
        count += Counter(c for h in j["hands"] for c in h)
    return count


# ---- the games


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
@pytest.mark.parametrize("seed", [0, 1])
def test_random_game_keeps_every_invariant(options: dict[str, Any], seed: int) -> None:
    state = _new(options, seed)
    rng = random.Random(seed)
    policy = Policy.BOT if seed % 2 else Policy.UNIFORM
    table_mode = options.get("hands") == "table"
    players = options["players"]
    previous: list[Action] = []
    points = [0.0] * players
    for _ in range(2000):
        if state.is_over:
            break
        before = state.to_json()
        assert _card_count(before, table_mode) == Counter(COPIES)  # all 90 rail cards
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        copy = Derailed.from_json(before)
        assert copy.to_json() == before and copy.legal_actions() == legal
        if state.current_player == CHANCE:
            assert math.isclose(sum(p for _, p in state.chance_outcomes()), 1.0)
        candidates = list(DERAILED.candidates(state))
        for a in [*legal, *rng.sample(candidates, min(len(candidates), 150))]:
            assert state.is_legal(a) == (a in legal), a
        seat = state.current_player
        for a in rng.sample(legal, min(len(legal), 40)):
            if isinstance(a, act.Play) and seat is not None and seat >= 0:
                assert naive_connected(before, seat, a, options.get("stub_connects", True)), a
        for a in rng.sample(legal, min(len(legal), 4)):
            state.apply(a)
            assert state.undo() == a
            assert state.to_json() == before
        for stale in previous:
            if stale not in legal:
                with pytest.raises(IllegalAction):
                    state.apply(stale)
                assert state.to_json() == before
        for seat_view in [None, *range(players)]:
            view = state.view(seat_view)
            assert "deck" not in view and "hands" not in view and "seed" not in view
            assert ("hand" in view) == (seat_view is not None and not table_mode)
        action = choose(state, rng, policy)
        state.apply(action)
        assert state.invariants() == []
        after = state.to_json()
        assert all(b >= a for a, b in zip(points, state.scores(), strict=True))  # never decrease
        points = state.scores()
        if isinstance(action, act.Play) and after["round"] == before["round"]:
            assert seat is not None  # a card is played by a seat
            new = [s for s in after["arrived"] if s not in before["arrived"]]
            if options.get("arrival", "any_card") == "any_card":
                routes = [s for s in range(players) if naive_route(after, s)]
                assert sorted(new) == sorted(s for s in routes if s not in before["arrived"])
            else:
                assert new == ([seat] if seat not in before["arrived"] and
                               naive_route(after, seat) else [])  # fmt: skip
        previous = legal
    assert state.is_over and state.legal_actions() == []
    j = state.to_json()
    assert j["round"] == 3 and len(j["ends"]) == 3
    top = max(j["points"])
    assert j["winners"] == [s for s, x in enumerate(j["points"]) if x == top]
    assert j["points"] == [sum(r[s] for r in j["round_points"]) for s in range(players)]


def test_every_round_reaches_its_arrivals_with_the_bot() -> None:
    """Bots that follow their tracks end most rounds by arriving, as real players would."""
    ends: Counter[str] = Counter()
    for players in range(2, 7):
        for seed in range(3):
            state = _new({"players": players}, seed)
            rng = random.Random(seed)
            while not state.is_over:
                state.apply(choose(state, rng, Policy.BOT))
            ends.update(state.to_json()["ends"])
    assert ends["arrived"] >= 0.8 * sum(ends.values()), ends


def _replay_in_table_mode(digital: Derailed) -> Derailed:
    """The same game with real cards: the same plays and discards, no draws to tell."""
    table = _new({**digital.options, "hands": "table"}, digital.seed)
    for a in digital.history:
        if not isinstance(a, act.Draw):
            table.apply(a)
    return table


@pytest.mark.parametrize("players", [2, 4, 6])
def test_table_mode_referees_a_game_exactly_like_the_digital_deal(players: int) -> None:
    digital = _new({"players": players}, 7)
    rng = random.Random(7)
    while not digital.is_over:
        digital.apply(choose(digital, rng, Policy.BOT))
    table = _replay_in_table_mode(digital)
    assert table.is_over and table.scores() == digital.scores()
    a, b = digital.to_json(), table.to_json()
    for key in ("railway", "discard", "round_points", "ends", "stations", "held", "deck_size"):
        assert a[key] == b[key], key


def test_a_drawn_card_shows_to_its_seat_only() -> None:
    draw = act.Draw(1, "bridge")
    state = _new({"players": 3}, 1)
    assert state.action_view(draw, CHANCE, 1) == {"type": "draw", "seat": 1, "card": "bridge"}
    for seat in (None, 0, 2):
        assert state.action_view(draw, CHANCE, seat) == {"type": "draw", "seat": 1, "hidden": True}
    rng = random.Random(1)
    while state.current_player == CHANCE:
        state.apply(choose(state, rng))
    loaded = Derailed.from_json(state.to_json())  # no history: the swap is in the state itself
    twin = loaded.redeal_secrets(0, rng)
    assert twin is not None and twin.view(0) != loaded.view(0)
    assert twin.view(1) == loaded.view(1) and twin.invariants() == []
    assert _new({"players": 3, "hands": "table"}, 1).redeal_secrets(0, rng) is None


def test_a_snapshot_copies_every_field() -> None:
    state = _new({"players": 4}, 3)
    rng = random.Random(3)
    for _ in range(60):
        state.apply(choose(state, rng, Policy.BOT))
    d = state.d
    twin = d.copy()
    assert all(getattr(twin, name) == getattr(d, name) for name in Data.__slots__)


def test_another_card_file_is_played(tmp_path: Path) -> None:
    few = {"name": "straights and crosses", "cards": [
        {"id": "straight", "tracks": [["T", "B"]], "copies": 20},
        {"id": "cross", "tracks": [["L", "T"], ["L", "R"], ["L", "B"], ["T", "R"], ["T", "B"],
                                   ["R", "B"]], "copies": 20},
    ]}  # fmt: skip
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(few))
    state = _new({"players": 3, "card_file": str(path)}, 2)
    rng = random.Random(2)
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
        assert state.invariants() == []
    assert sum(len(s) for s in state.to_json()["railway"].values()) >= 0
    assert state.to_json()["ends"].count("arrived") >= 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not json", "not JSON"),
        ({"cards": []}, "non-empty list 'cards'"),
        ({"cards": [{"id": "x", "tracks": [["T", "Q"]]}]}, "not a side"),
        ({"cards": [{"id": "x", "tracks": [["T", "T"]]}]}, "two different sides"),
        ({"cards": [{"id": "x", "tracks": [["T", "B"]], "stubs": ["T"]}]}, "a dead-end stub"),
        ({"cards": [{"id": "x", "tracks": [["T", "B"]], "copies": 0}]}, "'copies'"),
        ({"cards": [{"id": "x", "tracks": [["T", "B"]], "copies": 5}]}, "too few"),
        ({"cards": [{"id": "x", "tracks": [["T", "B"]], "copies": 20}] * 2}, "share an id"),
    ],
)
def test_a_bad_card_file_is_refused(tmp_path: Path, data: object, message: str) -> None:
    path = tmp_path / "cards.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(BadOptions, match="card_file") as e:
        rules.new_game("derailed", {"players": 2, "card_file": str(path)}, 1)
    assert message in str(e.value)
    with pytest.raises(BadOptions, match="cannot read"):
        rules.new_game("derailed", {"players": 2, "card_file": str(tmp_path / "none")}, 1)
