"""Scoring: profit over the locomotive's travel distance, share values, seat scores."""

from __future__ import annotations

from collections.abc import Sequence

from rules.said import counted
from rules.trickoftherails.actions import Remedy
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    COMPANY_NAMES,
    COMPANY_OF,
    INFINITE,
    VALUE_OF,
    Company,
)
from rules.trickoftherails.data import Data, NoLocomotive, Rules


def best_run(values: Sequence[int], distance: int) -> int:
    """The most valuable `distance` consecutive values (all of them if the railway is shorter)."""
    if distance == INFINITE or distance >= len(values):
        return sum(values)
    run = sum(values[:distance])
    best = run
    for i in range(distance, len(values)):
        run += values[i] - values[i - distance]
        best = max(best, run)
    return best


def profit(railway: Sequence[str], locomotive: str) -> int:
    """The station values the locomotive's train collects along the railway."""
    return best_run([VALUE_OF[c] for c in railway], CARDS[locomotive].distance)


def share_value(rules: Rules, railway: Sequence[str], locomotive: str | None) -> int:
    """Profit minus the locomotive's cost, never below zero."""
    if locomotive is None:
        if rules.no_locomotive is NoLocomotive.WHOLE_RAILWAY:
            return sum(VALUE_OF[c] for c in railway)
        return 0
    return max(0, profit(railway, locomotive) - CARDS[locomotive].cost)


def share_values(rules: Rules, d: Data) -> dict[Company, int]:
    return {
        c: share_value(rules, rail, loco)
        for c, rail, loco in zip(COMPANIES, d.railways, d.locomotives, strict=True)
    }


def holdings(rules: Rules, d: Data, seat: int, values: dict[Company, int]) -> int:
    """What a seat's shares are worth, less any revoke penalty the host chose."""
    total = sum(values[COMPANY_OF[c]] for c in d.shares[seat])
    penalties = sum(1 for r in d.revokes if r.seat == seat and r.remedy is Remedy.PENALTY)
    return total - penalties * rules.revoke_penalty


def scores(rules: Rules, d: Data) -> list[float]:
    """Each seat's share holdings; in the team variant, each seat scores its team's total."""
    values = share_values(rules, d)
    own = [holdings(rules, d, s, values) for s in range(rules.players)]
    if rules.teams:
        return [float(own[s] + own[(s + 2) % 4]) for s in range(4)]
    return [float(x) for x in own]


def score_parts(rules: Rules, d: Data) -> list[list[tuple[str, float]]]:
    """Each seat's shares by company at their value, and any revoke penalty."""
    values = share_values(rules, d)
    own: list[list[tuple[str, float]]] = []
    for seat in range(rules.players):
        parts: list[tuple[str, float]] = []
        for company in COMPANIES:
            held = sum(1 for c in d.shares[seat] if COMPANY_OF[c] is company)
            if held:
                parts.append(
                    (
                        counted(held, f"{COMPANY_NAMES[company]} share"),
                        float(held * values[company]),
                    )
                )
        revokes = sum(1 for r in d.revokes if r.seat == seat and r.remedy is Remedy.PENALTY)
        if revokes:
            parts.append((f"{revokes} revoke penalties", float(-revokes * rules.revoke_penalty)))
        own.append(parts)
    if rules.teams:
        return [
            [
                (f"{what} ({'yours' if s == seat else 'your partner' + chr(39) + 's'})", p)
                for s in (seat, (seat + 2) % 4)
                for what, p in own[s]
            ]
            for seat in range(4)
        ]
    return own


def winners(rules: Rules, d: Data) -> list[int]:
    """Every seat on the top score: ties share the victory."""
    points = scores(rules, d)
    top = max(points)
    return [s for s, p in enumerate(points) if p == top]
