"""Rules benchmark: complete random playouts per second, legal-action latency, apply+undo rate."""

from __future__ import annotations

import random
import time
from typing import Any

from rules.playout import Policy, choose
from rules.registry import new_game


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def bench_game(game: str, players: int, seconds: float, seed: int) -> dict[str, Any]:
    """Measure one game on one core for about `seconds`, split between the three figures."""
    rng = random.Random(seed)
    # 1. complete random games, nothing else timed
    games = 0
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2 or games == 0:
        state = new_game(game, {"players": players}, rng.randrange(1 << 30))
        while not state.is_over:
            state.apply(choose(state, rng, Policy.UNIFORM))
            steps += 1
        games += 1
    playout_time = time.perf_counter() - start
    # 2. legal_actions latency and apply+undo rate, over the states of more random games
    legal_ms: list[float] = []
    pairs = 0
    pair_time = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2 or not legal_ms:
        state = new_game(game, {"players": players}, rng.randrange(1 << 30))
        while not state.is_over:
            t0 = time.perf_counter()
            actions = state.legal_actions()
            legal_ms.append((time.perf_counter() - t0) * 1000)
            action = rng.choice(actions)
            t0 = time.perf_counter()
            state.apply(action)
            state.undo()
            pair_time += time.perf_counter() - t0
            pairs += 1
            state.apply(action)
    return {
        "game": game,
        "players": players,
        "policy": Policy.UNIFORM.value,
        "playouts": games,
        "playouts_per_s": round(games / playout_time, 2),
        "steps_per_playout": round(steps / games, 1),
        "legal_actions_calls": len(legal_ms),
        "legal_actions_p50_ms": round(_percentile(legal_ms, 0.5), 4),
        "legal_actions_p99_ms": round(_percentile(legal_ms, 0.99), 4),
        "apply_undo_per_s": round(pairs / pair_time, 1),
    }
