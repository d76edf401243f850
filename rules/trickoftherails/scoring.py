"""Scoring: profit over the locomotive's travel distance, share values, seat scores."""

from __future__ import annotations

from collections.abc import Sequence

from rules.said import Say, same
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


def score_parts(rules: Rules, d: Data, say: Say = same) -> list[list[tuple[str, float]]]:
    """Each seat's shares by company at their value, and any revoke penalty."""
    values = share_values(rules, d)
    own: list[list[tuple[str, float]]] = []
    for seat in range(rules.players):
        parts: list[tuple[str, float]] = []
        for company in COMPANIES:
            held = sum(1 for c in d.shares[seat] if COMPANY_OF[c] is company)
            if held:
                parts.append(
                    (_shares(held, COMPANY_NAMES[company], say), float(held * values[company]))
                )
        revokes = sum(1 for r in d.revokes if r.seat == seat and r.remedy is Remedy.PENALTY)
        if revokes:
            penalty = float(-revokes * rules.revoke_penalty)
            if revokes == 1:
                parts.append((say("1 revoke penalty"), penalty))
            else:
                parts.append((say("{count} revoke penalties").format(count=revokes), penalty))
        own.append(parts)
    if rules.teams:
        return [
            [
                (
                    say("{part} (yours)").format(part=what)
                    if s == seat
                    else say("{part} (your partner's)").format(part=what),
                    p,
                )
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


def _shares(held: int, company: str, say: Say) -> str:
    """A score part: the shares of one company a seat holds ("2 B&O shares")."""
    if held == 1:
        return say("1 {company} share").format(company=company)
    return say("{count} {company} shares").format(count=held, company=company)
