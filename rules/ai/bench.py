"""The computer player's benchmark: whole games against the simple bots (or a searching level).

The computer sits at seat `game % players` of each game, so it plays every seat in turn; the
other seats play `opponents` (the easy level: the game's simple bot). Chance is drawn from the
game's `chance_outcomes`. Figures: the computer's win share (1 a game it wins alone, 1/k a win
shared by k), its pairwise share (of the other seats, the share it finished ahead of, a tie
counting half: 0.5 for an equal player at any number of seats, where its win share is
1/players), its score margin (its score less the best other seat's, averaged), decision time
p50/p95 (wall clock, and CPU time of the deciding thread: on a shared machine the wall clock
also counts other work), and search iterations (each one playout) per second of search.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from rules.ai.player import Level, decide, level_budget
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


@dataclass
class Tally:
    """The computer's decisions in a run: wall and CPU seconds each, search figures summed."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    iterations: int = 0
    searched_wall: float = 0.0
    searched_cpu: float = 0.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def play_game(game: str, players: int, seat: int, seats: Seats, seed: int, tally: Tally) -> State:
    """One whole game, the computer at `seat`; its final state. Adds the computer's decisions
    to `tally`."""
    state = new_game(game, {"players": players}, seed)
    chance = random.Random(seed)
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
        started, started_cpu = time.perf_counter(), time.thread_time()
        chosen = decide(state, level, seed * 100_003 + decision, budget)
        took, took_cpu = time.perf_counter() - started, time.thread_time() - started_cpu
        if mine:
            tally.wall.append(took)
            tally.cpu.append(took_cpu)
            if chosen.result is not None and chosen.result.iterations:
                tally.iterations += chosen.result.iterations
                tally.searched_wall += took
                tally.searched_cpu += took_cpu
        state.apply(chosen.action)
    return state


def share(scores: list[float], seat: int) -> float:
    """The seat's share of the win: 1 alone on top, 1/k among k tied, else 0."""
    best = max(scores)
    return 1 / scores.count(best) if scores[seat] == best else 0.0


def pairwise(scores: list[float], seat: int) -> list[float]:
    """Against each other seat: 1 where the seat scored more, 0.5 level, 0 less (an equal player
    averages 0.5 whatever the number of players, where its win share is 1/players)."""
    mine = scores[seat]
    return [
        1.0 if mine > s else 0.5 if mine == s else 0.0 for j, s in enumerate(scores) if j != seat
    ]


def margin(scores: list[float], seat: int) -> float:
    """The seat's score less the best other seat's."""
    others = [s for j, s in enumerate(scores) if j != seat]
    return scores[seat] - max(others) if others else 0.0


def bench(
    game: str, players: int, games: int, seats: Seats, seed: int = 1, duplicate: bool = False
) -> dict[str, Any]:
    """Play `games` games; the figures as a JSON-ready dict.

    `duplicate`: each deal is played again with the computer's seat at the opponents' level (as
    duplicate bridge compares two pairs on the same cards): the computer's margin less that
    seat's margin on the same deal takes the deal's luck out of the comparison."""
    tally = Tally()
    shares: list[float] = []
    margins: list[float] = []
    ahead: list[float] = []
    gains: list[float] = []
    same = Seats(seats.opponents, seats.opponent_budget, seats.opponents, seats.opponent_budget)
    for i in range(games):
        seat = i % players
        state = play_game(game, players, seat, seats, seed + i, tally)
        scores = state.scores()
        shares.append(share(scores, seat))
        margins.append(margin(scores, seat))
        ahead.extend(pairwise(scores, seat))
        if duplicate:
            again = play_game(game, players, seat, same, seed + i, Tally())
            gains.append(margins[-1] - margin(again.scores(), seat))
    figures = {
        "game": game,
        "players": players,
        "games": games,
        "level": seats.level.value,
        "opponents": seats.opponents.value,
        "budget": _budget_json(game, seats.budget, seats.level),
        "opponent_budget": _budget_json(game, seats.opponent_budget, seats.opponents),
        "win_share": round(sum(shares) / games, 3),
        "wins": shares,
        "pairwise": round(sum(ahead) / len(ahead), 3) if ahead else 0.0,
        "score_margin": round(sum(margins) / games, 2),
        "decisions": len(tally.wall),
        "decision_p50_ms": _ms(_percentile(tally.wall, 0.5)),
        "decision_p95_ms": _ms(_percentile(tally.wall, 0.95)),
        "decision_max_ms": _ms(max(tally.wall, default=0.0)),
        "decision_cpu_p50_ms": _ms(_percentile(tally.cpu, 0.5)),
        "decision_cpu_p95_ms": _ms(_percentile(tally.cpu, 0.95)),
        "playouts_per_s": _rate(tally.iterations, tally.searched_wall),
        "playouts_per_cpu_s": _rate(tally.iterations, tally.searched_cpu),
    }
    if duplicate:
        figures |= _duplicate_json(gains)
    return figures


def _duplicate_json(gains: list[float]) -> dict[str, Any]:
    """The duplicate figures: the mean gain in margin a deal, its standard error, and the share
    of deals on which the computer did better (level: half)."""
    mean = sum(gains) / len(gains)
    spread = (
        (sum((g - mean) ** 2 for g in gains) / (len(gains) - 1)) ** 0.5 if len(gains) > 1 else 0.0
    )
    better = [1.0 if g > 0 else 0.5 if g == 0 else 0.0 for g in gains]
    return {
        "duplicate_margin_gain": round(mean, 2),
        "duplicate_gain_se": round(spread / len(gains) ** 0.5, 2),
        "duplicate_better": round(sum(better) / len(better), 3),
        "duplicate_gains": gains,
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds else 0.0


def _budget_json(game: str, budget: Budget | None, level: Level) -> dict[str, Any] | None:
    """The level's search a decision (see `level_budget`); None for the easy level."""
    if level is Level.EASY:
        return None
    chosen = level_budget(game, level, budget)
    return {"iterations": chosen.iterations, "seconds": chosen.seconds, "cpu": chosen.cpu}
