"""Random games of every registered game, with the interface's invariants checked at every step."""

from __future__ import annotations

import itertools
import math
import random
import typing
from collections.abc import Iterable

import pytest

import rules
from rules.core import CHANCE, IllegalAction, MalformedAction
from rules.game import Game
from rules.playout import Policy, choose

CASES = [
    (name, players, policy, seed)
    for name, info in sorted(rules.GAMES.items())
    for players in range(info.min_players, info.max_players + 1)
    for policy in (Policy.UNIFORM, Policy.BOT)
    for seed in range(3)
]
MAX_STEPS = 5000


@pytest.mark.parametrize(("game", "players", "policy", "seed"), CASES)
def test_random_game_keeps_every_invariant(
    game: str, players: int, policy: Policy, seed: int
) -> None:
    rng = random.Random(seed * 1000 + players)
    state = rules.new_game(game, {"players": players}, seed)
    previous_legal: list[rules.Action] = []
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        before = state.to_json()
        legal = state.legal_actions()
        assert legal, "a game that is not over offers at least one action"
        assert len(set(legal)) == len(legal), "legal actions are listed once each"

        # JSON round trip: the same state, the same choices
        copy = type(state).from_json(before)
        assert copy.to_json() == before
        assert copy.legal_actions() == legal

        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            assert math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-9)
            assert all(p > 0 for _, p in outcomes) or {a for a, p in outcomes if p > 0} == set(
                legal
            )
        else:
            assert state.chance_outcomes() == []

        # every legal action applies, and undo restores exactly (a sample when there are many)
        for action in rng.sample(legal, min(len(legal), 8)):
            assert state.is_legal(action)
            state.apply(action)
            assert state.undo() == action
            assert state.to_json() == before

        # actions legal a moment ago but not now are refused, and refusing changes nothing
        for stale in previous_legal[:20]:
            if stale not in legal:
                with pytest.raises(IllegalAction):
                    state.apply(stale)
                assert state.to_json() == before

        # JSON of every action parses back to the same action
        for action in legal[:20]:
            assert state.parse_action(action.to_json()) == action
            assert action.words() and "{" not in action.words()

        for seat in [None, *range(players)]:
            assert isinstance(state.view(seat), dict)
        action = choose(state, rng, policy)
        state.apply(action)
        assert state.invariants() == []
        assert len(state.scores()) == players
        parts = state.score_parts()
        assert [math.fsum(p for _, p in seat) for seat in parts] == state.scores()
        assert all(what and isinstance(what, str) for seat in parts for what, _ in seat)
        previous_legal = legal
    assert state.is_over, f"no end after {MAX_STEPS} steps"
    assert state.current_player is None
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        state.apply(previous_legal[0])


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_a_whole_game_undoes_back_to_the_start(game: str) -> None:
    state = rules.new_game(game, {}, 5)
    start = state.to_json()
    rng = random.Random(5)
    steps = 0
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
        steps += 1
    for _ in range(steps):
        state.undo()
    assert state.to_json() == start
    with pytest.raises(IndexError):
        state.undo()


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_the_same_seed_replays_the_same_game(game: str) -> None:
    def play(seed: int) -> list[dict[str, object]]:
        state = rules.new_game(game, {}, seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(choose(state, rng, Policy.BOT))
        return [a.to_json() for a in state.history]

    assert play(11) == play(11)
    assert play(11) != play(12)


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_many_games_end_with_their_conservation_laws_intact(game: str) -> None:
    info = rules.GAMES[game]
    for players in range(info.min_players, info.max_players + 1):
        for seed in range(30):
            state = rules.new_game(game, {"players": players}, seed)
            rng = random.Random(seed)
            policy = Policy.BOT if seed % 2 else Policy.UNIFORM
            for _ in range(MAX_STEPS):
                if state.is_over:
                    break
                state.apply(choose(state, rng, policy))
                problems = state.invariants()
                assert not problems, (players, seed, problems)
            assert state.is_over, (players, seed)


def disagreements(state: rules.State, candidates: Iterable[rules.Action]) -> list[str]:
    """Candidates (and legal actions) on which `is_legal` and `legal_actions` disagree."""
    legal = set(state.legal_actions())
    found = []
    for action in itertools.chain(candidates, legal):
        try:
            action = state.normalise(action)
        except MalformedAction:
            continue  # not an action at all: the JSON parser's business, not legality's
        says, listed = state.is_legal(action), action in legal
        if says != listed:
            found.append(f"{action.describe()}: is_legal {says}, in legal_actions {listed}")
    return found


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_every_game_is_a_game_of_its_own_state(game: str) -> None:
    info = rules.GAMES[game]
    assert isinstance(info, Game) and info.name == game == info.state_class.GAME
    assert isinstance(rules.new_game(game, {"players": info.min_players}), info.state_class)


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_every_action_declares_the_fields_that_name_locations(game: str) -> None:
    """`Action.LOCATIONS` names text fields; no other field of an action met in random games
    (text or a text enum) ever holds the name of a location of the mat."""
    info = rules.GAMES[game]
    for cls in info.state_class.CODEC.classes.values():
        hints = typing.get_type_hints(cls)
        assert all(hints.get(name) is str for name in cls.LOCATIONS), cls.TYPE
    for players in range(info.min_players, info.max_players + 1):
        state = rules.new_game(game, {"players": players}, players)
        names = {loc.name for loc in info.layout(state.options).locations}
        rng = random.Random(players)
        for _ in range(MAX_STEPS):
            if state.is_over:
                break
            chance = state.current_player == CHANCE
            for action in (
                [a for a, _ in state.chance_outcomes()] if chance else state.legal_actions()
            ):
                declared = set(action.locations())
                texts = {v for v in vars(action).values() if isinstance(v, str)}
                assert not (texts - declared) & names, action.describe()
            state.apply(choose(state, rng, Policy.BOT))


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_is_legal_agrees_with_legal_actions_on_every_candidate(game: str) -> None:
    info = rules.GAMES[game]
    checked = 0
    for players in range(info.min_players, info.max_players + 1):
        state = rules.new_game(game, {"players": players}, players)
        rng = random.Random(players)
        for _ in range(MAX_STEPS):
            found = disagreements(state, info.candidates(state))
            assert not found, (players, state.to_json().get("phase"), found[:5])
            checked += 1
            if state.is_over:
                break
            state.apply(choose(state, rng, Policy.BOT))
    assert checked > 50


def test_the_conformance_check_finds_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    info = rules.GAMES["offtherails"]
    assert disagreements(state, info.candidates(state)) == []
    monkeypatch.setattr(type(state), "why_not", lambda self, action: None)
    found = disagreements(state, info.candidates(state))
    assert any(f.startswith("end_actions()") for f in found)
