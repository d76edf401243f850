"""Privacy for every game: no view holds the random seed, and no seat sees another seat's secret.

A secret is what `State.redeal_secrets` can draw afresh: while one seat's secret changes, every
other seat's view and history must stay exactly the same.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import rules
from rules.playout import Policy, choose
from rules.scenario import set_path

SEED = 918_273_645  # distinctive: found in a view's text, it is the seed
MAX_STEPS = 5000


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in _keys(v)}
    return set()


def privacy_problems(state: rules.State, players: int, rng: random.Random) -> list[str]:
    """What the views of `state` show that they should not."""
    problems = []
    seats: list[int | None] = [None, *range(players)]
    views = {seat: (state.view(seat), state.history_view(seat)) for seat in seats}
    for seat, seen in views.items():
        text = json.dumps(seen)
        if "seed" in _keys(seen) or str(state.seed) in text:
            problems.append(f"seat {seat} can see the random seed")
    for owner in range(players):
        twin = state.redeal_secrets(owner, rng)
        if twin is None:
            continue
        if (twin.view(owner), twin.history_view(owner)) == views[owner]:
            problems.append(f"seat {owner}'s secret was redealt but its own view did not change")
        for seat in seats:
            if seat != owner and (twin.view(seat), twin.history_view(seat)) != views[seat]:
                problems.append(f"seat {seat} can see seat {owner}'s secret")
    return problems


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_no_view_holds_the_seed_or_another_seats_secret(game: str) -> None:
    info = rules.GAMES[game]
    for players in range(info.min_players, info.max_players + 1):
        state = rules.new_game(game, {"players": players}, SEED)
        rng = random.Random(players)
        for _ in range(MAX_STEPS):
            problems = privacy_problems(state, players, rng)
            assert not problems, (players, problems)
            if state.is_over:
                break
            state.apply(choose(state, rng, Policy.BOT))


def hidden_split() -> rules.State:
    """Off the Rails, 2 players: seat 1 has split its cart's 2 rubies and 2 gold; seat 0 picks."""
    state = rules.new_game("offtherails", {"players": 2}, SEED)
    state.apply({"type": "choose_side", "side": "north"})
    rng = random.Random(3)
    while state.current_player == rules.CHANCE:
        state.apply(choose(state, rng))
    data = state.to_json()
    straight = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
    for path, value in {
        "board.F9": straight,
        "board.F10": straight,
        "board.F11": straight,
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F11",
        "carts.red-white.heading": "S",
        "carts.red-white.hold": {"ruby": 1},
        "carts.green-white.status": "on_board",
        "carts.green-white.square": "F9",
        "carts.green-white.heading": "S",
        "carts.green-white.hold": {"ruby": 2, "gold": 2},
    }.items():
        set_path(data, path, value)
    state = rules.state_from_json(data)
    state.apply({"type": "end_actions"})
    state.apply({"type": "split", "pile": ["ruby", "ruby"]})
    return state


def test_a_hidden_split_stays_with_its_owner() -> None:
    state = hidden_split()
    assert state.current_player == 0
    assert privacy_problems(state, 2, random.Random(1)) == []
    assert state.history_view(1)[-1] == {"type": "split", "pile": ["ruby", "ruby"]}
    assert state.history_view(0)[-1] == {"type": "split", "hidden": True, "size": 2}
    assert state.history_view(None)[-1] == {"type": "split", "hidden": True, "size": 2}
    twin = state.redeal_secrets(1, random.Random(1))
    assert twin is not None and twin.view(1) != state.view(1)
    assert state.redeal_secrets(0, random.Random(1)) is None


def test_the_privacy_check_catches_a_leaky_view(monkeypatch: pytest.MonkeyPatch) -> None:
    state = hidden_split()
    cls = type(state)
    monkeypatch.setattr(cls, "_view_json", lambda self, seat: self._state_json())
    assert "seat 0 can see seat 1's secret" in privacy_problems(state, 2, random.Random(1))
    monkeypatch.undo()
    monkeypatch.setattr(cls, "action_view", lambda self, action, actor, seat: action.to_json())
    assert "seat 0 can see seat 1's secret" in privacy_problems(state, 2, random.Random(1))
    monkeypatch.undo()
    monkeypatch.setattr(cls, "view", lambda self, seat: self.to_json())
    assert "seat 0 can see the random seed" in privacy_problems(state, 2, random.Random(1))
