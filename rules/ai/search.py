"""Information-set Monte Carlo tree search over the `State` interface, with determinisation.

One tree is grown for the seat to decide, over what that seat knows (single-observer ISMCTS,
Cowling, Powley and Whitehouse 2012). Each iteration:

1. determinise: `State.determinise(seat, rng)` draws what the seat cannot see afresh (the other
   hands, a hidden split), consistent with what it has seen; the real state is never searched;
2. select: down the tree, each seat to act picks by UCB1 among the children legal in this
   determinisation, counting how often each was available (not how often the parent was
   visited); chance picks an outcome by its probability, as chance;
3. expand: a node grows a new child while it has fewer than about `widen * sqrt(visits)`
   (progressive widening: a move with 200 tile placements is not tried 200 times first); the
   new action is the next untried one in the game's `order` at the root and at a node searched
   `order_visits` times (see `rules.ai.hooks`), else the expansion policy's pick when that is
   new, else a random untried one;
4. play out: with the game's playout policy, to the end or for `cutoff` player actions, then
   judged by the game's evaluation (see `rules.ai.hooks`);
5. back up: each node adds the reward of the seat that chose it.

The answer is the root's most visited action. The search is pure: everything random comes from
one `random.Random(seed)`, so with an iteration budget the same state and seed give the same
action; with a time budget, how many iterations fit depends on the machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rules.ai.hooks import Heuristic, standing
from rules.core import CHANCE, Action, State


@dataclass(frozen=True)
class Budget:
    """How long to search: iterations, seconds, or both (whichever ends first). `cpu` counts the
    seconds on the searching thread's CPU clock instead of the wall clock: on a machine shared
    with other work, the same search whatever the load (for benchmarks; a player at the table
    waits by the wall clock)."""

    iterations: int | None = None
    seconds: float | None = None
    cpu: bool = False

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds")


@dataclass(frozen=True)
class Settings:
    """The search's knobs (see the module docstring)."""

    exploration: float = 0.7  # UCB1's constant, for rewards in [0, 1]
    widen: float = 2.0  # children allowed: widen * sqrt(visits), at least 1
    cutoff: int | None = None  # None: the heuristic's cutoff


DEFAULT = Settings()


@dataclass(frozen=True)
class Option:
    """One action considered at the root: how often it was searched and its mean reward."""

    action: Action
    visits: int
    value: float


@dataclass(frozen=True)
class Result:
    """What the search found: the action, each root option, and how much was searched."""

    action: Action
    options: tuple[Option, ...]  # most visited first
    iterations: int
    playout_steps: int
    seconds: float

    @property
    def value(self) -> float:
        """The chosen action's mean reward for the seat (about its chance to win, see hooks)."""
        return self.options[0].value if self.options else 0.0


@dataclass(eq=False)
class _Node:
    """A node of the tree: reached by `action`, chosen by `actor` (CHANCE for an outcome)."""

    actor: int
    action: Action | None = None
    visits: int = 0
    available: int = 0
    total: float = 0.0  # rewards of `actor` summed over the visits
    children: dict[Action, _Node] = field(default_factory=dict)
    order: Sequence[Action] | None = None  # the heuristic's order, once worked out


def _sample(outcomes: Sequence[tuple[Action, float]], rng: random.Random) -> Action:
    x = rng.random() * sum(p for _, p in outcomes)
    for outcome, p in outcomes:
        x -= p
        if x < 0:
            return outcome
    return outcomes[-1][0]


def _uniform(state: State, rng: random.Random) -> Action:
    return rng.choice(state.legal_actions())


def search(
    state: State,
    budget: Budget,
    seed: int,
    heuristic: Heuristic | None = None,
    settings: Settings = DEFAULT,
) -> Result:
    """The action the seat to act in `state` should take (a player must be to act)."""
    seat = state.current_player
    if seat is None or seat == CHANCE:
        raise ValueError("the search decides for a player; chance or a finished game has none")
    legal = state.legal_actions()
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    heuristic = heuristic or Heuristic()
    policy = heuristic.playout or _uniform
    expand = heuristic.expand or policy
    evaluate: Callable[[State], Sequence[float]] = heuristic.evaluate or (
        lambda s: standing(s.scores())
    )
    cutoff = heuristic.cutoff if settings.cutoff is None else settings.cutoff
    rng = random.Random(seed)
    clock = time.thread_time if budget.cpu else time.perf_counter
    start = clock()
    if len(legal) == 1:
        return Result(legal[0], (Option(legal[0], 0, 0.0),), 0, 0, clock() - start)
    root = _Node(actor=seat)
    iterations = steps = 0
    deadline = None if budget.seconds is None else start + budget.seconds
    while True:
        if budget.iterations is not None and iterations >= budget.iterations:
            break
        if deadline is not None and iterations:
            now = clock()  # stop where one more iteration, on average, would end late
            if now + (now - start) / iterations >= deadline:
                break
        world = state.determinise(seat, rng)
        path = _descend(root, world, rng, expand, heuristic, settings)
        steps += _play_out(world, rng, policy, cutoff)
        rewards = standing(world.scores()) if world.is_over else evaluate(world)
        for node in path:
            node.visits += 1
            if node.actor >= 0:
                node.total += rewards[node.actor]
        iterations += 1
    options = sorted(
        (
            Option(child.action, child.visits, child.total / child.visits if child.visits else 0.0)
            for child in root.children.values()
            if child.action is not None
        ),
        key=lambda o: (-o.visits, -o.value),
    )
    chosen = options[0].action if options else legal[0]
    return Result(chosen, tuple(options), iterations, steps, clock() - start)


def _descend(
    root: _Node,
    world: State,
    rng: random.Random,
    expand: Callable[[State, random.Random], Action],
    heuristic: Heuristic,
    settings: Settings,
) -> list[_Node]:
    """Select and expand in `world`, advancing it; the nodes passed, root first. `expand`
    proposes a new node's action (where the heuristic's `order` does not)."""
    order = heuristic.order
    node = root
    path = [root]
    while True:
        player = world.current_player
        if player is None:
            return path
        if player == CHANCE:
            outcome = _sample(world.chance_outcomes(), rng)
            child = node.children.get(outcome)
            world.advance(outcome)
            if child is None:
                child = node.children[outcome] = _Node(CHANCE, outcome)
                path.append(child)
                return path
            node = child
            path.append(node)
            continue
        legal = world.legal_actions()
        known = [node.children[a] for a in legal if a in node.children]
        for child in known:
            child.available += 1
        allowed = max(1, int(settings.widen * math.sqrt(node.visits + 1)))
        if len(known) < len(legal) and (len(known) < allowed or not known):
            action = None
            if order is not None and (node is root or node.visits >= heuristic.order_visits):
                if node.order is None:
                    node.order = order(world)
                allowed_here = set(legal)  # in this determinisation
                action = next(
                    (a for a in node.order if a in allowed_here and a not in node.children), None
                )
            if action is None:
                action = _new_action(world, legal, node, rng, expand)
            child = node.children[action] = _Node(player, action, available=1)
            world.advance(action)
            path.append(child)
            return path
        child = max(known, key=lambda c: _ucb(c, settings.exploration))
        world.advance(child.action)  # type: ignore[arg-type]  # a child always has its action
        node = child
        path.append(node)


def _new_action(
    world: State,
    legal: list[Action],
    node: _Node,
    rng: random.Random,
    policy: Callable[[State, random.Random], Action],
) -> Action:
    """The action a new child takes: the policy's pick if it is new, else a random untried one
    (with the uniform policy, straight away a random untried one)."""
    if policy is not _uniform:
        picked = policy(world, rng)
        if picked not in node.children:
            return picked
    return rng.choice([a for a in legal if a not in node.children])


def _ucb(child: _Node, c: float) -> float:
    if child.visits == 0:
        return math.inf
    mean = child.total / child.visits
    return mean + c * math.sqrt(math.log(child.available) / child.visits)


def _play_out(
    world: State,
    rng: random.Random,
    policy: Callable[[State, random.Random], Action],
    cutoff: int,
) -> int:
    """Play `world` on to the end, or for `cutoff` player actions (0: no limit); steps taken."""
    steps = moves = 0
    while True:
        player = world.current_player
        if player is None:
            return steps
        if player == CHANCE:
            world.advance(_sample(world.chance_outcomes(), rng))
        else:
            if cutoff and moves >= cutoff:
                return steps
            world.advance(policy(world, rng))
            moves += 1
        steps += 1
