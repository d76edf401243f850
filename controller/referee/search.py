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


RulesOfStep = tuple[dict[str, Pieces], int | None, bool, dict[str, Pieces] | None] | None
# the rules' side of a step, the same in every search from one state: the table after it, who
# acts next, whether the game is over, and the table as the play is laid (a hand's action);
# None where the rules refuse it


@dataclass
class Known:
    """One node as the rules have it, the same in every search from one state (`Shared`):
    who acts, whether the game is over, the rules' side of each step tried from it (with the
    node it leads to), and the steps worth trying (by the locations a path stirred and those the
    search explains)."""

    seat: int | None
    over: bool
    children: dict[Action, tuple[RulesOfStep, Known | None]] = field(default_factory=dict)
    steps: dict[tuple[frozenset[str], frozenset[str]], list[tuple[Action, StepKind]]] = field(
        default_factory=dict
    )


@dataclass
class Shared:
    """What the searches of one verdict, all from the same state, work out once (the tries of
    an alert, the search again with inputs): the nodes as the rules have them, and the nodes
    as searched for the same changes."""

    root: Known | None = None
    trees: dict[
        tuple[Any, ...], tuple[Observation, dict[str, Pieces], dict[tuple[Action, ...], _Node]]
    ] = field(
        default_factory=dict
    )  # the searched tree of each search that explains the same changes (`_Walk.tree`): the
    # search again with inputs the rules did not wait for walks the first one's again


_Local = tuple[int | None, Action, tuple[Pieces, ...]]  # `_Walk._local`
_Child = tuple[Any, Any, Path, Known] | None  # a step tried: (transposition key, input's
# looks, the path one step longer, the node it leads to), or None where the step is no step
# (refused, or it shows nowhere)


@dataclass
class _Node:
    """One searched node, as the rules saw it the first time: what later passes reuse."""

    known: Known  # the node as the rules have it (who acts, whether it is over)
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
    shared: Shared | None = None,
) -> Readings:
    """The sequences of legal actions from `state` that explain the observed table. Searches
    from the same state may pass the same `shared`: the rules' side of each step is worked out
    once for all of them (the tries of an alert, the search again with inputs)."""
    walk = _Walk(state, observation, query, pieces, limits, resolve_chance, shared)
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
        shared: Shared | None = None,
    ) -> None:
        self.state = state
        shared = Shared() if shared is None else shared
        if shared.root is None:
            shared.root = Known(state.current_player, state.is_over)
        self.root = shared.root  # the root as the rules have it, shared with other searches
        self.observation = observation
        self.query = query
        self.pieces = pieces
        self.limits = limits
        self.resolve_chance = resolve_chance
        self.budget = query.budget  # actions that may still be applied
        self.bound = 0  # no sequence longer than this is tried
        self.cut = False  # a sequence was cut short by the bound
        self.tree: dict[tuple[Action, ...], _Node] = {}  # every node tried, kept from one
        # deepening pass to the next: a deeper pass walks it again without the rules; and
        # from one search to the next where only what inputs and budget they allow differs
        alike = (query.changed, query.pending, query.covered, query.locked, query.names)
        seen, base, tree = shared.trees.get(alike, (None, None, None))
        if tree is not None and seen is observation and base is query.base_table:
            self.tree = tree
        else:
            shared.trees[alike] = (observation, query.base_table, self.tree)
        self.at: list[Action] = []  # the actions the state holds beyond the root
        self.visited: set[tuple[frozenset[tuple[Action, int]], frozenset[tuple[str, Pieces]]]]
        self.visited = set()  # the same actions in another order leaving the same table: once
        self.nodes = 0
        self.found: list[Candidate] = []
        self.wrong_here: set[_Local] = set()  # a hand's action that left the changed
        # locations it names no closer to how they look, by who acted and what lay there: from
        # another node with the same, it is no step either, and the rules are not asked again
        self.hands = limits.max_table_actions  # actions that show on the table, in one sequence
        self.under_bound = limits.most_table_actions  # hands' actions seen nowhere, at most
        self.under_cut = False  # a sequence was cut short by `under_bound`
        self.longest = limits.max_actions * 8  # no path longer than this (draws counted) can
        # be a best reading: one step more than the shortest exact reading found (`best`)

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
            if query.one_is_enough:
                self._any_reading(start)
                return
            for bound in range(1, limits.max_actions + 1):
                self.bound = bound
                self.found.clear()
                self.cut = False
                self.visited.clear()
                self.extend(start, self.root)
                exact = [c for c in self.found if not c.leftover]
                if exact or self.nodes >= self.budget or not self.cut:
                    break  # found; out of budget; or nothing was cut short: deeper finds no more
            if exact and bound < limits.max_actions:
                self.bound = bound + 1
                shorter = list(self.found)
                self.found.clear()
                self.visited.clear()
                self.extend(start, self.root)
                again = {c.actions for c in self.found}  # a pass cut short by the budget
                # still has the readings the shorter bound found
                self.found[:0] = [c for c in shorter if c.actions not in again]
        finally:
            self.goto(())

    def _any_reading(self, start: Path) -> None:
        """Whether any reading exists (before a wait): depth first to the full length, for the
        first reading ends it (a lead under a hand may be any card: deepening on the length would
        try every lead with every next card at each depth before reaching the trick's end).

        Deepening on the hands' actions that change covered locations alone instead: a pass
        allows one more of them than the last. Any covered location may hide a hand's action,
        and sequences of such actions alone are the most numerous; the reading that needs one
        (a tile laid under the hand, the next one seen) is found before the search tries every
        stack of them."""
        self.bound = self.limits.max_actions
        for under in range(self.hands + 1):
            self.under_bound = under
            self.under_cut = False
            self.visited.clear()
            self.extend(start, self.root)
            if self.found or self.nodes >= self.budget or not self.under_cut:
                return

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

    def node(self, path: Path, known: Known) -> _Node:
        node = self.tree.get(path.actions)
        if node is None:
            node = self.tree[path.actions] = _Node(known)
        return node

    def extend(self, path: Path, known: Known) -> None:
        node = self.node(path, known)
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
                    self.longest = min(self.longest, len(path.actions) + 1)
                    return  # it fits exactly: a longer sequence takes what nothing shows
        if known.over:
            return
        if path.steps >= self.bound:
            self.cut = True
            return
        if path.quiet >= self.limits.max_quiet_steps:
            return
        if len(path.actions) >= self.longest:
            return  # longer than any best reading: `best` keeps none more than one step
            # longer than the shortest exact reading, and their prefixes are not longer
        if node.steps is None:
            key = (path.off, self.query.changed)
            steps = known.steps.get(key)
            if steps is None:
                self.goto(path.actions)
                steps = known.steps[key] = list(self.next_steps(path.off))
            node.steps = steps
        self.extend_steps(node, path)

    def _skips(self, path: Path, node: _Node, step: StepKind) -> bool:
        """Whether a step of this kind is not tried on this path."""
        if step in PLAYED and path.run_seat not in (None, node.known.seat, NEXT_PLAYER):
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
            if path.under_hands >= self.under_bound and self._under_a_hand(action, step):
                self.under_cut = True  # left to the next pass, before the rules are asked
                continue
            self.nodes += 1
            if index in node.children:
                child = node.children[index]
            else:
                child = node.children[index] = self.child(node.known, path, action, step, choices)
            if child is None:
                continue
            seen, looks, longer, onward = child
            if seen is not None:
                if seen in self.visited:
                    continue  # the same actions in another order, already searched
                self.visited.add(seen)
            if looks is not None:
                if looks in input_tables:
                    continue  # as another input did, on the table and after: one reading
                input_tables.add(looks)
            found = len(self.found)
            self.extend(longer, onward)
            answered = answered or (step is StepKind.FORCED_INPUT and len(self.found) > found)

    def child(
        self, known: Known, path: Path, action: Action, step: StepKind, choices: int
    ) -> _Child:
        """One step from the node the state is at, worked out with the rules (see `_Child`)."""
        seat = known.seat
        entry = known.children.get(action)
        if (
            entry is None
            and step is StepKind.BY_HAND
            and self.wrong_here
            and self._local(path, action, seat) in self.wrong_here
        ):
            return None  # no closer where it acts, as from another node (`wrong_here`)
        if entry is None:  # no search from this state has tried it yet
            self.goto(path.actions)
            rules = self._rules_of(action, step is StepKind.BY_HAND)
            onward = None if rules is None else Known(rules[1], rules[2])
            entry = known.children[action] = (rules, onward)
        rules, onward = entry
        if rules is None or onward is None:
            return None  # refused by the rules: no step here
        if step is StepKind.FORCED_INPUT:
            self.goto((*path.actions, action))  # what may follow it is asked of the state there
        try:
            stepped = self._stepped(path, action, step, choices, seat, rules)
        except ValueError:
            return None  # refused by the rules: no step here
        return None if stepped is None else (*stepped, onward)

    def _rules_of(self, action: Action, by_hand: bool) -> RulesOfStep:
        """The rules' side of a step from the node the state is at (see `RulesOfStep`)."""
        state = self.state
        during = self.pieces.table_as_laid(state, action) if by_hand else None
        try:
            state.apply_legal(action)  # a step the rules listed here: no checks again
        except ValueError:
            return None
        self.at.append(action)  # the state stays at the child: searched next, it is there
        # already (`goto` takes it back when a sibling is tried instead)
        return self.pieces.table_of(state), state.current_player, state.is_over, during

    def _stepped(
        self,
        path: Path,
        action: Action,
        step: StepKind,
        choices: int,
        seat: int | None,
        rules: tuple[dict[str, Pieces], int | None, bool, dict[str, Pieces] | None],
    ) -> tuple[Any, Any, Path] | None:
        """The step as a child of `path` (or None: no step), from what the rules made of it."""
        query = self.query
        after, next_seat, _, during = rules
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
        closer = self.progress(path.table, after, moved) or (
            laid is not None and self.progress(path.table, as_laid, shown)
        )  # a hand's action must make a changed location look as it does
        if step is StepKind.SEEN_DRAW and not closer:
            return None
        if step is StepKind.BY_HAND and not (
            self._own_progress(path, action, after, moved)
            or (laid is not None and self._own_progress(path, action, as_laid, shown))
        ):  # ... and where it names changed locations, one of those: a wrong tile laid is no
            # reading because the minecart it set off left a changed square
            if laid is None:
                self.wrong_here.add(self._local(path, action, seat))
            return None
        if step is StepKind.BY_HAND and not closer:
            return None
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
                next_choices(self.state, self.resolve_chance),
            )
        who = CHANCE if seat is None else seat
        child = path.then(Step(action, step, after, shows, moved, who, off, laid, next_seat))
        if self._under_a_hand(action, step):
            child = dataclasses.replace(child, under_hands=path.under_hands + 1)
        if path.asked is None and (
            (step is StepKind.FORCED_INPUT and choices > 1)
            or (step is StepKind.OPTIONAL_INPUT and action.DECISION is not _NONE)
            or seat in query.locked
        ):
            child = dataclasses.replace(child, asked=len(path.actions))
        return seen, looks, child

    def _local(self, path: Path, action: Action, seat: int | None) -> _Local:
        """A hand's action by who acts and what lies on the changed locations it names: what
        it does there (`rules.core.Visibility.TABLE`: it lays its pieces from those alone)."""
        changed, table = self.query.changed, path.table
        named = text_values(type(action))(action)  # in the action's own order: one key each
        return seat, action, tuple(table.get(n, ()) for n in named if n in changed)

    def _own_progress(
        self, path: Path, action: Action, after: dict[str, Pieces], moved: frozenset[str]
    ) -> bool:
        """Whether a hand's action brings one of the changed locations it names (and moves)
        closer to what is seen there, or names none: its consequences elsewhere (a minecart
        set off by the turn's last action) do not make a wrong piece on its own square right."""
        changed = self.query.changed
        own = [n for n in text_values(type(action))(action) if n in moved and n in changed]
        return not own or self.progress(path.table, after, frozenset(own))

    def _under_a_hand(self, action: Action, step: StepKind) -> bool:
        """Whether a hand's action names covered locations alone (a tile laid under a hand)."""
        if step is not StepKind.BY_HAND or not self.query.covered:
            return False
        named = text_values(type(action))(action)
        return bool(named) and self.query.covered.issuperset(named)

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
        # those that name locations, none of which changed, are left out by the rules
        actions = state.legal_actions_naming(self.query.changed | stirred, self.query.names)
        forced = _all_inputs(actions) and _all_inputs(state.legal_actions())
        inputs = 0
        for action in actions:
            kind = action.VISIBILITY
            if kind is Visibility.TABLE:
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


def _all_inputs(actions: list[Action]) -> bool:
    """Whether every action is an input (the rules wait for one)."""
    return all(a.VISIBILITY is Visibility.INPUT for a in actions)
