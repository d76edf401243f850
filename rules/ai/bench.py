"""The computer player's benchmark: whole games against the simple bots (or a searching level).

The computer sits at seat `game % players` of each game, so it plays every seat in turn; the
other seats play `opponents` (the easy level: the game's simple bot). Chance is drawn from the
game's `chance_outcomes`. Figures: the computer's win share (1 a game it wins alone, 1/k a win
shared by k), its score margin (its score less the best other seat's, averaged), decision time
p50/p95, and search iterations (each one playout) per second of search.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from rules.ai.player import Level, decide
from rules.ai.search import Budget
from rules.core import CHANCE, State
from rules.playout import chance_step
from rules.registry import new_game


@dataclass(frozen=True)
class Seats:
    """Who plays: the computer's level and budget, and the other seats' level."""

    level: Level = Level.NORMAL
    budget: Budget | None = None  # None: the level's own time
    opponents: Level = Level.EASY
    opponent_budget: Budget | None = None


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def play_game(
    game: str, players: int, seat: int, seats: Seats, seed: int, times: list[float]
) -> tuple[State, int, float]:
    """One whole game; the final state, the computer's search iterations and search seconds.
    Appends the time of each of the computer's decisions to `times`."""
    state = new_game(game, {"players": players}, seed)
    chance = random.Random(seed)
    iterations = 0
    searched = 0.0
    decision = 0
    while not state.is_over:
        turn = state.current_player
        assert turn is not None
        if turn == CHANCE:
            state.apply(chance_step(state, chance))
            continue
        decision += 1
        mine = turn == seat
        level = seats.level if mine else seats.opponents
        budget = seats.budget if mine else seats.opponent_budget
        started = time.perf_counter()
        chosen = decide(state, level, seed * 100_003 + decision, budget)
        took = time.perf_counter() - started
        if mine:
            times.append(took)
            if chosen.result is not None:
                iterations += chosen.result.iterations
                searched += chosen.result.seconds
        state.apply(chosen.action)
    return state, iterations, searched


def share(scores: list[float], seat: int) -> float:
    """The seat's share of the win: 1 alone on top, 1/k among k tied, else 0."""
    best = max(scores)
    return 1 / scores.count(best) if scores[seat] == best else 0.0


def bench(game: str, players: int, games: int, seats: Seats, seed: int = 1) -> dict[str, Any]:
    """Play `games` games; the figures as a JSON-ready dict."""
    times: list[float] = []
    shares: list[float] = []
    margins: list[float] = []
    iterations = 0
    searched = 0.0
    for i in range(games):
        seat = i % players
        state, its, secs = play_game(game, players, seat, seats, seed + i, times)
        iterations += its
        searched += secs
        scores = state.scores()
        shares.append(share(scores, seat))
        others = [s for j, s in enumerate(scores) if j != seat]
        margins.append(scores[seat] - max(others) if others else 0.0)
    return {
        "game": game,
        "players": players,
        "games": games,
        "level": seats.level.value,
        "opponents": seats.opponents.value,
        "budget": _budget_json(seats.budget, seats.level),
        "win_share": round(sum(shares) / games, 3),
        "score_margin": round(sum(margins) / games, 2),
        "decisions": len(times),
        "decision_p50_ms": round(_percentile(times, 0.5) * 1000, 1),
        "decision_p95_ms": round(_percentile(times, 0.95) * 1000, 1),
        "playouts_per_s": round(iterations / searched, 1) if searched else 0.0,
    }


def _budget_json(budget: Budget | None, level: Level) -> dict[str, Any]:
    if budget is None:
        from rules.ai.player import SECONDS

        return {"seconds": SECONDS.get(level)}
    return {"iterations": budget.iterations, "seconds": budget.seconds}
