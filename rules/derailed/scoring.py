"""Points as they stand, and the winners once three rounds are played."""

from __future__ import annotations

from rules.derailed.data import Data, Phase


def scores(d: Data) -> list[float]:
    """Seed, Scoring: 1 for arriving, 1 more for the first this round, 1 per turn after it."""
    return [float(p) for p in d.points]


def winners(d: Data) -> list[int]:
    """Seed, New Round: after 3 rounds the player with most points wins (ties share it)."""
    if d.phase is not Phase.OVER:
        return []
    top = max(d.points)
    return [s for s, p in enumerate(d.points) if p == top]
