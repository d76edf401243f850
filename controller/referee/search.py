"""The referee's search: the short sequences of legal actions that leave the table as observed.

`readings(state, observation, query, ...)` deepens iteratively over a frozen `Query` and keeps
what it learns of each node in a memo, so a deeper pass walks what is known without the rules.
The state is left as it was."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.referee.moves import (
    ChanceResolver,
    after_seen_draw,
    field_values,
    next_choices,
    text_values,
)
from controller.referee.observe import Observation, Seen
from controller.referee.paths import (
    NEXT_PLAYER,
    PLAYED,
    UNSEEN,
    Candidate,
    Path,
    Step,
    StepKind,
    best,
)
from controller.referee.pieces import PieceKnowledge
from controller.referee.tables import Pieces, changed_locations
from rules.core import CHANCE, Action, Decision, State, Visibility

_NONE = Decision.NONE


@dataclass(frozen=True)
class Limits:
    """Bounds that keep the search short and deterministic."""

    max_actions: int = 10  # players' actions in one sequence (implied ones included, draws aside)
    max_table_actions: int = 3  # actions that show on the table, in one sequence; more where
    # more locations changed (each hand's action shows on one at least: a whole trick of four or
    # five cards seen at once), up to `most_table_actions`
    most_table_actions: int = 5
    max_optional_inputs: int = 1  # INPUT actions taken where the rules did not wait for them
    max_forced_inputs: int = 16  # alternatives tried where the rules wait for an input
    node_budget: int = 3000  # actions applied in one search
    input_budget: int = 1000  # actions applied when trying inputs the rules did not wait for
    take_back_depth: int = 12  # actions looked back for a take-back
    max_quiet_steps: int = 6  # unseen steps in a row that change nothing on the table


@dataclass(frozen=True)
class Query:
    """What one search looks for: the readings that explain `changed` from `base_table`."""

    changed: frozenset[str]  # locations that changed since the table as last accepted
    pending: frozenset[str]  # locations that differ from the rules' table now
    base_table: dict[str, Pieces]
    names: frozenset[str]  # every location known
    optional_inputs: bool  # whether inputs the rules did not wait for may be tried
    covered: frozenset[str] = frozenset()  # locations nobody sees now (a hand)
    budget: int = 0  # actions that may be applied
    one_is_enough: bool = False  # whether any reading exists is all that is asked
    locked: frozenset[int] = frozenset()  # seats whose actions the table never proves (the
    # computer's: it gives its own, so a move seen on its turn is no move of its)


@dataclass
class Readings:
    """What a search found, and how many actions it applied."""

    found: list[Candidate]
    nodes: int

    @property
    def best(self) -> list[Candidate]:
        return best(self.found)


_Child = tuple[Any, Any, Path] | None  # a step tried: (transposition key, input's looks,
# the path one step longer), or None where the step is no step (refused, or it shows nowhere)


@dataclass
class _Node:
    """One searched node, as the rules saw it the first time: what later passes reuse."""

    seat: int | None  # who acts here
    over: bool  # the game is over here
    steps: list[tuple[Action, StepKind]] | None = None  # the steps worth trying here
    children: dict[int, _Child] = field(default_factory=dict)  # by the step's index
    considered: bool = False
    candidate: Candidate | None = None  # the node as an explanation of the table, if it is one


def readings(
    state: State,
    observation: Observation,
    query: Query,
    pieces: PieceKnowledge,
    limits: Limits,
    resolve_chance: ChanceResolver | None = None,
) -> Readings:
    """The sequences of legal actions from `state` that explain the observed table."""
    walk = _Walk(state, observation, query, pieces, limits, resolve_chance)
    walk.run()
    return Readings(walk.found, walk.nodes)


class _Walk:
    """One search's walk of the tree of sequences (its memo and counters)."""

    def __init__(
        self,
        state: State,
        observation: Observation,
        query: Query,
        pieces: PieceKnowledge,
        limits: Limits,
        resolve_chance: ChanceResolver | None,
    ) -> None:
        self.state = state
        self.observation = observation
        self.query = query
        self.pieces = pieces
        self.limits = limits
        self.resolve_chance = resolve_chance
        self.budget = query.budget  # actions that may still be applied
        self.bound = 0  # no sequence longer than this is tried
        self.cut = False  # a sequence was cut short by the bound
        self.tree: dict[tuple[Action, ...], _Node] = {}  # every node tried, kept from one
        # deepening pass to the next: a deeper pass walks it again without the rules
        self.at: list[Action] = []  # the actions the state holds beyond the root
        self.visited: set[tuple[frozenset[tuple[Action, int]], frozenset[tuple[str, Pieces]]]]
        self.visited = set()  # the same actions in another order leaving the same table: once
        self.nodes = 0
        self.found: list[Candidate] = []
        self.hands = limits.max_table_actions  # actions that show on the table, in one sequence

    def run(self) -> None:
        """Iterative deepening: the shortest sequences that fit, and those one step longer.

        Each node's steps and children are worked out with the rules once and kept in
        `tree`: a deeper pass walks what is known without applying anything, and applies
        actions only to reach the nodes it has not seen (`goto`)."""
        query, limits = self.query, self.limits
        start = Path((), query.base_table)
        seen_to_change = len(query.changed - query.covered) + (
            len(query.covered & query.changed) if query.one_is_enough else 0
        )  # the waiting search counts the covered locations too: each may hide a hand's action
        self.hands = max(limits.max_table_actions, min(seen_to_change, limits.most_table_actions))
        try:
            first = limits.max_actions if query.one_is_enough else 1
            # whether any reading exists (before a wait): depth first, no deepening, for the
            # first reading ends it (a lead under a hand may be any card: deepening would try
            # every lead with every next card at each depth before reaching the trick's end)
            for bound in range(first, limits.max_actions + 1):
                self.bound = bound
                self.found.clear()
                self.cut = False
                self.visited.clear()
                self.extend(start)
                exact = [c for c in self.found if not c.leftover]
                if exact or self.nodes >= self.budget or not self.cut:
                    break  # found; out of budget; or nothing was cut short: deeper finds no more
            if exact and bound < limits.max_actions and not query.one_is_enough:
                self.bound = bound + 1
                self.found.clear()
                self.visited.clear()
                self.extend(start)
        finally:
            self.goto(())

    def goto(self, actions: tuple[Action, ...]) -> None:
        """Bring the state to the node reached by `actions` from the root."""
        at, state = self.at, self.state
        common = 0
        for held, wanted in zip(at, actions, strict=False):
            if held is not wanted and held != wanted:
                break
            common += 1
        while len(at) > common:
            state.undo()
            at.pop()
        for action in actions[common:]:
            state.apply_legal(action)  # each was listed by the rules at its node
            at.append(action)

    def node(self, path: Path) -> _Node:
        node = self.tree.get(path.actions)
        if node is None:
            self.goto(path.actions)
            node = self.tree[path.actions] = _Node(self.state.current_player, self.state.is_over)
        return node

    def extend(self, path: Path) -> None:
        node = self.node(path)
        if path.actions and path.run_shows:
            if not node.considered:
                self.goto(path.actions)
                node.candidate = self.consider(path)
                node.considered = True
            if node.candidate is not None:
                self.found.append(node.candidate)
                if self.query.one_is_enough:
                    self.budget = 0  # found one: the search stops
                if not node.candidate.leftover:
                    return  # it fits exactly: a longer sequence takes what nothing shows
        if node.over:
            return
        if path.steps >= self.bound:
            self.cut = True
            return
        if path.quiet >= self.limits.max_quiet_steps:
            return
        if node.steps is None:
            self.goto(path.actions)
            node.steps = list(self.next_steps(path.off))
        self.extend_steps(node, path)

    def _skips(self, path: Path, node: _Node, step: StepKind) -> bool:
        """Whether a step of this kind is not tried on this path."""
        if step in PLAYED and path.run_seat not in (None, node.seat, NEXT_PLAYER):
            return True  # unseen steps are proven by the table, or by the same seat's action
        if step is StepKind.BY_HAND and path.by_hand >= self.hands:
            return True
        return step is StepKind.OPTIONAL_INPUT and (
            not self.query.optional_inputs
            or path.optional_inputs >= self.limits.max_optional_inputs
        )

    def extend_steps(self, node: _Node, path: Path) -> None:
        steps = node.steps or []
        choices = sum(step is StepKind.FORCED_INPUT for _, step in steps)
        answered = False  # one input that explains the table is enough: the seat is asked anyway
        input_tables: set[Any] = set()
        for index, (action, step) in enumerate(steps):
            if self.nodes >= self.budget:
                return
            if step is StepKind.FORCED_INPUT and answered:
                continue
            if self._skips(path, node, step):
                continue
            self.nodes += 1
            if index in node.children:
                child = node.children[index]
            else:
                self.goto(path.actions)
                child = node.children[index] = self.child(path, action, step, choices)
            if child is None:
                continue
            seen, looks, longer = child
            if seen is not None:
                if seen in self.visited:
                    continue  # the same actions in another order, already searched
                self.visited.add(seen)
            if looks is not None:
                if looks in input_tables:
                    continue  # as another input did, on the table and after: one reading
                input_tables.add(looks)
            found = len(self.found)
            self.extend(longer)
            answered = answered or (step is StepKind.FORCED_INPUT and len(self.found) > found)

    def child(self, path: Path, action: Action, step: StepKind, choices: int) -> _Child:
        """One step from the node the state is at, worked out with the rules (see `_Child`)."""
        state = self.state
        seat = state.current_player
        during = self.pieces.table_as_laid(state, action) if step is StepKind.BY_HAND else None
        try:
            state.apply_legal(action)  # a step the rules listed here: no checks again
            try:
                return self._stepped(path, action, step, choices, seat, during)
            finally:
                state.undo()
        except ValueError:
            return None  # refused by the rules: no step here

    def _stepped(
        self,
        path: Path,
        action: Action,
        step: StepKind,
        choices: int,
        seat: int | None,
        during: dict[str, Pieces] | None,
    ) -> _Child:
        """The step just applied to the state, as a child of `path` (or None: no step)."""
        query, state = self.query, self.state
        after = self.pieces.table_of(state)
        moved = changed_locations(path.table, after)
        shows = bool(moved & query.changed)
        laid = None
        if during is not None:  # the play as laid, its consequences still to do
            laid = {n: during.get(n, ()) for n in changed_locations(during, after)}
            as_laid = {**after, **laid}
            shown = changed_locations(path.table, as_laid)
            shows = shows or bool(shown & query.changed)
        else:
            as_laid, shown = after, moved
        if step in (StepKind.BY_HAND, StepKind.SEEN_DRAW) and not (
            self.progress(path.table, after, moved)
            or (laid is not None and self.progress(path.table, as_laid, shown))
        ):
            return None  # a hand's action must make a changed location look as it does
        target = query.changed | query.pending
        off = (path.off - moved) | frozenset(
            n for n in moved - target if after.get(n, ()) != query.base_table.get(n, ())
        )
        if self._stops_where_nothing_changed(path, action, step, shows, moved, off):
            return None
        seen = None
        if path.by_hand + (step is StepKind.BY_HAND) >= 2:
            seen = (
                frozenset(Counter((*path.actions, action)).items()),
                frozenset((n, after.get(n, ())) for n in target | off),
            )
        looks = None
        if step is StepKind.FORCED_INPUT:
            looks = (
                frozenset((n, after.get(n, ())) for n in moved),
                next_choices(state, self.resolve_chance),
            )
        who = CHANCE if seat is None else seat
        child = path.then(
            Step(action, step, after, shows, moved, who, off, laid, state.current_player)
        )
        if path.asked is None and (
            (step is StepKind.FORCED_INPUT and choices > 1)
            or (step is StepKind.OPTIONAL_INPUT and action.DECISION is not _NONE)
            or seat in query.locked
        ):
            child = dataclasses.replace(child, asked=len(path.actions))
        return seen, looks, child

    def _stops_where_nothing_changed(
        self,
        path: Path,
        action: Action,
        step: StepKind,
        shows: bool,
        moved: frozenset[str],
        off: frozenset[str],
    ) -> bool:
        """Whether the step leaves pieces where the table shows no change, more than a path
        may (one stop on the way)."""
        if step in UNSEEN and not shows and len(off) > max(len(path.off), 1):
            return True  # unseen moves show where the table changed (or stop on the way);
            # one that does show may set off more, left to the players (a second cart)
        if step is StepKind.BY_HAND and len(off) > 1:
            by_hands = (path.by_hand_at - moved) | (moved & field_values(action))
            if len((off & by_hands) - self.query.covered) > 1:
                return True  # hands put pieces (or took them) where nothing changed that is
                # seen, more than one stop on the way: no reading of this table
        return False

    def progress(
        self, before: dict[str, Pieces], after: dict[str, Pieces], moved: frozenset[str]
    ) -> bool:
        """Whether a step brings a changed location closer to what is seen there."""
        distance = self.pieces.distance
        for name in moved & self.query.changed:
            view = self.observation.view(name)
            if view.seen is Seen.UNKNOWN:
                return True  # covered: it may look like anything (searched only when waiting)
            if distance(view, after.get(name, ())) < distance(view, before.get(name, ())):
                return True
        return False

    def next_steps(self, stirred: frozenset[str] = frozenset()) -> list[tuple[Action, StepKind]]:
        """The steps worth trying here; `stirred` are locations the sequence has changed so far
        where the table shows no change (a wagon left, another of the same colour came in)."""
        state = self.state
        if state.current_player in self.query.locked and not after_seen_draw(state):
            return []  # the computer's turn: its actions come from its decision, never the table
        # right after a draw the table shows (a tile the computer turned up, its face now seen),
        # the table may show the computer's next action too, as whoever turned it laid it: a
        # reading may pass through that action, but stops before it (`_stepped`: the computer
        # decides it, and what lies otherwise becomes its instruction)
        if state.current_player == CHANCE:
            return self._draws()
        steps: list[tuple[Action, StepKind]] = []
        actions = state.legal_actions()
        forced = all(a.VISIBILITY is Visibility.INPUT for a in actions)
        inputs = 0
        changed, names = self.query.changed | stirred, self.query.names
        for action in actions:
            kind = action.VISIBILITY
            if kind is Visibility.TABLE:
                values = text_values(type(action))(action)
                if changed.isdisjoint(values) and not names.isdisjoint(values):
                    continue  # it names locations, none of which changed
                steps.append((action, StepKind.BY_HAND))
            elif kind is Visibility.IMPLIED:
                steps.append((action, StepKind.IMPLIED))
            elif inputs < self.limits.max_forced_inputs:
                inputs += 1
                steps.append((action, StepKind.FORCED_INPUT if forced else StepKind.OPTIONAL_INPUT))
        return steps

    def _draws(self) -> list[tuple[Action, StepKind]]:
        """The steps of a draw: the digital deck's, a real card the table shows, or a real draw
        nothing shows (a gem from the bag: someone says which)."""
        state = self.state
        if not state.observed_chance():
            if self.resolve_chance is None:
                return []
            return [(self.resolve_chance(state), StepKind.DRAWN)]  # the digital deck draws it
        outcomes = [a for a, p in state.chance_outcomes() if p > 0]
        if outcomes and all(a.VISIBILITY is Visibility.TABLE for a in outcomes):
            return [(outcome, StepKind.SEEN_DRAW) for outcome in outcomes]
        return [(o, StepKind.FORCED_INPUT) for o in outcomes[: self.limits.max_forced_inputs]]

    def consider(self, path: Path) -> Candidate | None:
        """The path as an explanation of the table, or None where it is none."""
        query, observation, pieces = self.query, self.observation, self.pieces
        table = path.table
        for name in query.changed:
            view = observation.view(name)
            if not pieces.fits(view, table.get(name, ())) and not (
                name in path.shown and pieces.fits(view, path.shown[name])
            ):
                return None  # as the rules have it, or as a play was laid (still to resolve)
        touched = changed_locations(table, query.base_table)
        leftover = frozenset(
            n
            for n in touched | query.pending
            if not pieces.fits(observation.view(n), table.get(n, ()))
        )
        if not all(
            pieces.taken_off_by_rules(observation.view(n), table.get(n, ()), table)
            for n in leftover - query.pending - path.rules_touched
        ):
            return None  # only the rules' own moves, or pieces they took off, are left to do
        if any(
            observation.view(n).seen is Seen.MAGNET
            for n in (leftover & path.by_hand_at) - query.pending
        ):
            return None  # a magnet still felt where a hand's own move took it: not that move
        covered = frozenset(
            n
            for n in touched
            if pieces.hides_change(
                observation.view(n), query.base_table.get(n, ()), table.get(n, ())
            )
        )
        key = json.dumps(self.state.to_json(), sort_keys=True)
        seats = len({s for s in path.seats if s >= 0})
        implied = any(a.VISIBILITY is Visibility.IMPLIED for a in path.actions)
        return Candidate(
            path.actions, leftover, covered, key, path.by_hand, seats, implied, path.asked
        )
