"""The computer player: a level (easy, normal, strong) and a seed give one action for a state."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.ai.search import DEFAULT, Budget, Result, Settings, search
from rules.core import CHANCE, Action, State
from rules.registry import game_named


class Level(StrEnum):
    """How well the computer plays.

    EASY: the game's simple bot (`Game.bot`), no search: plausible, beatable.
    NORMAL: a search of a set size (`NORMAL_ITERATIONS`), at most a second a decision.
    STRONG: the search, three seconds a decision, focused on its best lines (`level_settings`).
    """

    EASY = "easy"
    NORMAL = "normal"
    STRONG = "strong"


SECONDS = {Level.NORMAL: 1.0, Level.STRONG: 3.0}
"""The time a decision takes at most at each searching level, by default."""

NORMAL_ITERATIONS: dict[str, int] = {
    "offtherails": 100,
    "trickoftherails": 100,
    "derailed": 800,
    "minewagons": 1200,
}
"""The normal level's search a decision, in iterations, by game (the default for any other):
about the fewest tried that still beat the simple bots by the issue's bars (docs/ai.md, "Levels
by search size"). A second's search here had already found what three seconds find, so a normal
level of a second played as well as the strong one (Trick of the Rails: strong now wins 17 of 18
against it). A set size also plays the same on a Pi as on a laptop, where its second does not stop
it first, as node-limited engine levels do."""

DEFAULT_NORMAL_ITERATIONS = 150


STRONG_EXPLORATION = 0.3
"""UCB1's constant at the strong level (the normal level's is `DEFAULT.exploration`, 0.7): with
three times the search, it spends more of it on the actions that look best and the replies to
them, rather than on all of them alike. Against the normal level (3 CPU s against its set size;
Trick of the Rails with 3 players, the other games with 2; 10 to 15 seeded games each) it took
strong from about even to ahead in every game (docs/ai.md, "Strong focused")."""


def level_settings(settings: Settings, level: Level) -> Settings:
    """The search's settings at `level`. The strong level widens its tree as much more slowly as
    its budget is longer, so with 3 times the iterations it weighs the same number of actions at
    a node as the normal level, each searched 3 times as often (rather than a third more actions
    each searched about twice as often); and it explores less (`STRONG_EXPLORATION`, scaled
    from `settings.exploration` as from the default)."""
    factor = SECONDS.get(level, SECONDS[Level.NORMAL]) / SECONDS[Level.NORMAL]
    if factor == 1:
        return settings
    return replace(
        settings,
        widen=settings.widen / math.sqrt(factor),
        exploration=settings.exploration * STRONG_EXPLORATION / DEFAULT.exploration,
    )


def scaled(budget: Budget, level: Level) -> Budget:
    """A normal-level budget made the level's: the strong level searches as many times longer
    (or more iterations) as its time is longer than the normal level's."""
    factor = SECONDS.get(level, SECONDS[Level.NORMAL]) / SECONDS[Level.NORMAL]
    return Budget(
        None if budget.iterations is None else round(budget.iterations * factor),
        None if budget.seconds is None else round(budget.seconds * factor, 6),
        budget.cpu,
    )


@dataclass(frozen=True)
class Decision:
    """The computer's action, with one line of why (for a hint) and the search's figures."""

    action: Action
    why: str
    result: Result | None = None  # None at the easy level: no search


def level_budget(game: str, level: Level, budget: Budget | None = None) -> Budget:
    """The budget a decision at `level` searches with: `budget` (else the level's time), the
    normal level held to its game's `NORMAL_ITERATIONS` unless `budget` sets iterations."""
    chosen = budget or Budget(seconds=SECONDS[level])
    if level is Level.NORMAL and chosen.iterations is None:
        cap = NORMAL_ITERATIONS.get(game, DEFAULT_NORMAL_ITERATIONS)
        chosen = replace(chosen, iterations=cap)
    return chosen


def decide(
    state: State,
    level: Level = Level.NORMAL,
    seed: int = 0,
    budget: Budget | None = None,
    settings: Settings = DEFAULT,
) -> Decision:
    """The action the seat to act in `state` takes at `level`; `budget` overrides the level's
    time (give iterations for a result that depends on the seed alone; see `level_budget`).

    Only what that seat may see is used: the search plays on determinisations
    (`State.determinise`), never on `state` itself.
    """
    seat = state.current_player
    if seat is None or seat == CHANCE:
        raise ValueError("no player is to act: the game is over or chance is to act")
    rng = random.Random(seed)
    if level is Level.EASY:
        # the bot reads the state's own hand: give it a determinisation all the same
        action = game_named(state.GAME).bot(state.determinise(seat, rng), rng)
        return Decision(action, "the simple player's move: it looks no further ahead")
    result = search(
        state,
        level_budget(state.GAME, level, budget),
        seed,
        game_named(state.GAME).heuristic,
        level_settings(settings, level),
    )
    return Decision(result.action, why_line(result), result)


def why_line(
    result: Result | None,
    named: Callable[[str], str] | None = None,
    seats: Callable[[int], str] | None = None,
) -> str:
    """One line for a hint: what the move is expected to gain against the next best (its
    moves said with the game's names, `named` and `seats`, where given)."""
    if result is None or not result.options or result.iterations == 0:
        return "the only move allowed now"
    best = result.options[0]
    line = f"wins about {best.value:.0%} of {result.iterations} games played on from here"
    if len(result.options) > 1:
        runner = result.options[1]
        line += f"; the next best ({runner.action.words(named, seats)}) about {runner.value:.0%}"
    return line
