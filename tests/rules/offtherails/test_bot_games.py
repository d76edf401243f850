"""Off the Rails' bots: games last and someone scores; the provisional score parts."""

from __future__ import annotations

import random

from controller.game.snapshot import score_parts_json
from rules.core import CHANCE
from rules.offtherails.state import OffTheRails
from rules.playout import Policy, choose
from rules.registry import new_game


def _bot_game(seed: int) -> tuple[int, list[float]]:
    """A 3-player game played to its end by the bots: seat moves and final scores."""
    state = new_game("offtherails", {"players": 3}, seed)
    assert isinstance(state, OffTheRails)
    rng = random.Random(seed)
    moves = 0
    while not state.is_over and moves < 3000:
        if state.current_player != CHANCE:
            moves += 1
        state.apply(choose(state, rng, Policy.BOT))
    return moves, state.scores()


def test_bot_games_last_and_someone_scores() -> None:
    games = [_bot_game(seed) for seed in range(1, 11)]
    assert all(moves >= 40 for moves, _ in games), games
    # the simple bot alone: 5 of these 10 (and 0 points in 3); the careful bot: 9 of 10
    assert sum(max(scores) >= 10 for _, scores in games[:5]) >= 4, games  # issue 39's figure
    assert sum(max(scores) >= 10 for _, scores in games) >= 9, games
    assert all(max(scores) > 0 for _, scores in games), games


def test_the_minecart_bonus_is_marked_provisional_until_the_end() -> None:
    state = new_game("offtherails", {"players": 3}, 1)
    rng = random.Random(1)
    marked: list[dict[str, object]] = []
    while not state.is_over and not marked:
        state.apply(choose(state, rng, Policy.BOT))
        marked = [
            part for seat in score_parts_json(state) for part in seat if part.get("provisional")
        ]
    assert marked  # a minecart back in the supply: its bonus counts only at the end
    assert any("minecart" in str(part["what"]) for part in marked)
    assert all(
        not part.get("provisional")
        for seat in score_parts_json(state)
        for part in seat
        if "mission" in str(part["what"]) or "emerald" in str(part["what"])
    )
    while not state.is_over:
        state.apply(choose(state, rng, Policy.BOT))
    assert not any(part.get("provisional") for seat in score_parts_json(state) for part in seat)
    assert state.provisional_parts() == [set(), set(), set()]
