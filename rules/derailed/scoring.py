"""Points as they stand, and the winners once three rounds are played."""

from __future__ import annotations

from rules.derailed.data import Data, Phase
from rules.said import Say, same


def scores(d: Data) -> list[float]:
    """Seed, Scoring: 1 for arriving, 1 more for the first this round, 1 per turn after it."""
    return [float(p) for p in d.points]


def score_parts(d: Data, say: Say = same) -> list[list[tuple[str, float]]]:
    """Each seat's points by round (the round under way included)."""
    out: list[list[tuple[str, float]]] = []
    for seat in range(len(d.points)):
        parts = [
            (say("round {number}").format(number=n), float(points[seat]))
            for n, points in enumerate(d.round_points, start=1)
            if points[seat]
        ]
        out.append(parts)
    return out


def winners(d: Data) -> list[int]:
    """Seed, New Round: after 3 rounds the player with most points wins (ties share it)."""
    if d.phase is not Phase.OVER:
        return []
    top = max(d.points)
    return [s for s, p in enumerate(d.points) if p == top]
