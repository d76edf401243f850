"""Seeded random mine-wagon races, checked at every step against the interface and the laws."""

from __future__ import annotations

import json
import math
import random

import pytest

import rules
from rules.core import CHANCE, BadOptions, IllegalAction
from rules.minewagons import MINE_WAGONS, MineWagons
from rules.playout import Policy, choose

MAX_STEPS = 3000  # the stall rule ends a default game well before this


def _play(players: int, seed: int, policy: Policy, check_every: int = 1) -> MineWagons:
    """A random game with every check at every `check_every`-th step; returns the ended game."""
    rng = random.Random(seed)
    state = rules.new_game("minewagons", {"players": players}, seed)
    assert isinstance(state, MineWagons)
    previous: list[rules.Action] = []
    for step in range(MAX_STEPS):
        if state.is_over:
            return state
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if step % check_every == 0:
            _check_step(state, legal, previous, rng)
        state.apply(choose(state, rng, policy))
        assert state.invariants() == [], state.invariants()
        previous = legal
    raise AssertionError(f"no end after {MAX_STEPS} steps")


def _check_step(
    state: MineWagons, legal: list[rules.Action], previous: list[rules.Action], rng: random.Random
) -> None:
    before = state.to_json()
    copy = MineWagons.from_json(json.loads(json.dumps(before)))
    assert copy.to_json() == before
    assert copy.legal_actions() == legal
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        assert math.isclose(sum(p for _, p in outcomes), 1.0)
        assert [a for a, _ in outcomes] == legal
    for action in rng.sample(legal, min(len(legal), 6)):
        state.apply(action)
        assert state.undo() == action
        assert state.to_json() == before
    for stale in previous[:10]:
        if stale not in legal:
            with pytest.raises(IllegalAction):
                state.apply(stale)
            assert state.to_json() == before
    listed = set(legal)
    every = list(MINE_WAGONS.candidates(state))
    for action in rng.sample(every, min(len(every), 150)):
        assert state.is_legal(action) == (action in listed), action.describe()
    for action in legal:
        assert state.is_legal(action)
        assert state.parse_action(action.to_json()) == action


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_race_keeps_every_law(players: int, seed: int) -> None:
    state = _play(players, seed, Policy.UNIFORM, check_every=3)
    assert state.current_player is None
    assert state.to_json()["winners"]
    assert len(state.scores()) == players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_races_end_with_tiles_and_wagons_accounted_for(players: int) -> None:
    for seed in range(10, 25):
        policy = Policy.BY_TYPE if seed % 2 else Policy.UNIFORM
        state = _play(players, seed, policy, check_every=10_000)
        assert state.is_over


def test_the_centre_is_only_ever_held_by_the_rock_at_the_start() -> None:
    for seed in range(8):
        rng = random.Random(seed)
        state = rules.new_game("minewagons", {"players": 3}, seed)
        assert isinstance(state, MineWagons)
        centre = state.board.centre
        moved = False
        while not state.is_over:
            state.apply(choose(state, rng, Policy.BY_TYPE))
            assert centre not in state.pos.wagons
            moved = moved or state.pos.rock_moved
            if moved:
                assert state.pos.rock != centre


def test_a_view_shows_neither_the_seed_nor_what_lies_face_down() -> None:
    state = rules.new_game("minewagons", {"players": 2}, 987654321)
    rng = random.Random(3)
    while state.to_json()["phase"] != "turn_up":
        state.apply(choose(state, rng))
    for seat in (None, 0, 1):
        view = state.view(seat)
        text = json.dumps(view)
        assert "987654321" not in text and "seed" not in view
        assert view["green"] == {"to_lay": 0, "face_down": 18}
        face_down = [t for t in view["board"].values() if t.get("face_down")]
        assert len(face_down) == 18 and all(set(t) == {"colour", "face_down"} for t in face_down)


def test_a_quiet_race_ends_after_stall_rounds_and_a_negative_limit_is_refused() -> None:
    state = rules.new_game("minewagons", {"players": 2, "stall_rounds": 1}, 4)
    rng = random.Random(4)
    while not state.is_over:
        state.apply(choose(state, rng))
    data = state.to_json()
    assert data["end_reason"] == "1 round in a row without a wagon beyond its end"
    assert data["winners"] == [s for s in (0, 1) if state.scores()[s] == max(state.scores())]
    with pytest.raises(BadOptions, match="stall_rounds"):
        rules.new_game("minewagons", {"stall_rounds": -1}, 1)
