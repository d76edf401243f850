"""The referee: what lies on the table, against what the rules expect, as one verdict.

Pure and generic: it reaches a game only through the `State` interface, the game's
`expected_table(state)` and its catalogue. Given the state, the table as last accepted (`table`:
what is believed to lie physically on each location) and a settled observation, it searches short
sequences of legal actions for the ones that leave the table exactly as observed:

- the locations that changed since `table` must all be explained by the sequence;
- a location still different from the rules' table afterwards is an instruction (the rules moved
  something themselves: carts driven by the rules, a derailed cart to take off), allowed only where
  the sequence holds an action that shows on the table, or where it was already pending;
- every action that shows on the table must change a location that did change;
- no verdict rests on a location nobody can see.

Actions no sensor sees come in three kinds (`rules.core.Visibility`): IMPLIED ones are taken as part
of a sequence, INPUT ones only where the rules wait for them or, failing everything else, where the
table proves them; where the table cannot tell between sequences, the seat concerned is asked.
Someone's own decision (`rules.core.Decision`: which jewel, a hidden split, the host's ruling) is
never taken for them: a sequence stops before it, and whoever decides is asked.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import operator
import random
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from controller.referee.observe import LocationView, Observation, Seen
from controller.referee.tables import Pieces, changed_locations, holds, without
from rules.core import CHANCE, Action, Decision, GameInfo, State, Visibility
from rules.physical import Catalogue, Piece, PlacedPiece, TableObservation

ChanceResolver = Callable[[State], Action]


class VerdictKind(StrEnum):
    """The one thing the referee says about a settled table."""

    IN_SYNC = "in_sync"  # the table is what the rules expect
    APPLIED = "applied"  # apply `actions` in order (then follow `instructions`, if any)
    CHOICE = "choice"  # apply `actions`, then `seat` picks one of `options`
    NEEDS_INPUT = "needs_input"  # apply `actions`, then `seat` says which of `options` (unseen)
    INSTRUCTIONS = "instructions"  # players are carrying out what the rules did; this is left
    ALERT = "alert"  # no legal action explains the table: `wrong` names each location
    TAKE_BACK = "take_back"  # the table is back to before the last `undo` actions: offer to undo
    WAITING = "waiting"  # the change cannot be judged while `locations` are covered


@dataclass(frozen=True)
class Instruction:
    """Something players must do on one location so the table matches the rules."""

    location: str
    text: str
    take_off: Pieces = ()
    put_on: Pieces = ()


@dataclass(frozen=True)
class WrongLocation:
    """A location no legal action explains: what lies there, what should, what would be legal."""

    location: str
    seen: str
    expected: str
    legal_here: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Alternative:
    """One way the table can be read, for a CHOICE or NEEDS_INPUT: its actions and their words."""

    actions: tuple[Action, ...]
    text: str


@dataclass(frozen=True)
class Verdict:
    """What the referee says; `text` is one line for everyone at the table."""

    kind: VerdictKind
    text: str
    actions: tuple[Action, ...] = ()
    options: tuple[Alternative, ...] = ()
    seat: int | None = None
    instructions: tuple[Instruction, ...] = ()
    wrong: tuple[WrongLocation, ...] = ()
    undo: int = 0
    locations: tuple[str, ...] = ()
    hidden: bool = False  # a concealed choice: the options are for `seat` alone, not the host

    @property
    def settles_table(self) -> bool:
        """Whether the table as seen becomes the table as it lies (in sync, applied, or players
        carrying out instructions); after an alert, a question or a wait it stays as it was."""
        return self.kind in (VerdictKind.IN_SYNC, VerdictKind.APPLIED, VerdictKind.INSTRUCTIONS)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "text": self.text,
            "actions": [a.to_json() for a in self.actions if _shown(a)],
            "options": [
                {
                    "actions": [a.to_json() for a in o.actions],
                    "text": o.text,
                    "words": " then ".join(a.words() for a in o.actions),
                }
                for o in self.options
            ],
            "seat": self.seat,
            "instructions": [{"location": i.location, "text": i.text} for i in self.instructions],
            "wrong": [
                {
                    "location": w.location,
                    "seen": w.seen,
                    "expected": w.expected,
                    "legal_here": list(w.legal_here),
                    "text": w.text,
                }
                for w in self.wrong
            ],
            "undo": self.undo,
            "locations": list(self.locations),
            "hidden": self.hidden,
            "words": self.words(),
        }

    def words(self) -> str:
        """The verdict for a player's phone: the same, with the moves seen in players' words
        (also before a question the move leads to)."""
        shown = [a for a in self.actions if _shown(a)]
        seen = "seen on the table: " + ("; ".join(a.words() for a in shown) or "nothing new")
        if self.kind is VerdictKind.APPLIED:
            return seen
        applied = "applied: " + _text(self.actions)
        if self.actions and self.text.startswith(applied):
            return seen + self.text[len(applied) :]
        return self.text


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


@dataclass
class _Search:
    """The state of one search: counters and the candidates found."""

    changed: frozenset[str]
    pending: frozenset[str]
    base_table: dict[str, Pieces]
    names: frozenset[str]
    optional_inputs: bool
    covered: frozenset[str] = frozenset()  # locations nobody sees now (a hand)
    budget: int = 0  # actions that may still be applied
    one_is_enough: bool = False  # whether any reading exists is all that is asked
    locked: frozenset[int] = frozenset()  # seats whose actions the table never proves (the
    # computer's: it gives its own, so a move seen on its turn is no move of its)
    bound: int = 0  # no sequence longer than this is tried
    cut: bool = False  # a sequence was cut short by the bound
    tree: dict[tuple[Action, ...], _Node] = field(default_factory=dict)  # every node tried, kept
    # from one deepening pass to the next: a deeper pass walks it again without the rules
    at: list[Action] = field(default_factory=list)  # the actions the state holds beyond the root
    visited: set[tuple[frozenset[tuple[Action, int]], frozenset[tuple[str, Pieces]]]] = field(
        default_factory=set
    )  # the same actions in another order leaving the same table: searched once
    nodes: int = 0
    found: list[_Candidate] = field(default_factory=list)
    hands: int = 3  # actions that show on the table, in one sequence (`Limits`)


_Child = tuple[Any, Any, "_Path"] | None  # a step tried: (transposition key, input's looks,
# the path one step longer), or None where the step is no step (refused, or it shows nowhere)


@dataclass
class _Node:
    """One searched node, as the rules saw it the first time: what later passes reuse."""

    seat: int | None  # who acts here
    over: bool  # the game is over here
    steps: list[tuple[Action, _StepKind]] | None = None  # the steps worth trying here
    children: dict[int, _Child] = field(default_factory=dict)  # by the step's index
    considered: bool = False
    candidate: _Candidate | None = None  # the node as an explanation of the table, if it is one


class _StepKind(StrEnum):
    """How one step of a searched sequence would have come about."""

    BY_HAND = "by_hand"  # a player's action that shows on the table
    IMPLIED = "implied"  # unseen, proven by what follows
    DRAWN = "drawn"  # a chance outcome drawn by the digital deck
    SEEN_DRAW = "seen_draw"  # a real draw the table shows (a card turned up in its slot)
    FORCED_INPUT = "forced_input"  # unseen; the rules wait for it
    OPTIONAL_INPUT = "optional_input"  # unseen; taken only when nothing else explains the table


_NONE = Decision.NONE
_IDENTITY_MEMO = 20_000  # tuples of pieces the referee knows by identity, at most
_CANONICAL_MEMO = 50_000  # tuples of pieces whose canonical form is remembered, at most
_UNSEEN = frozenset({_StepKind.IMPLIED, _StepKind.FORCED_INPUT, _StepKind.OPTIONAL_INPUT})
_PLAYED = frozenset({_StepKind.BY_HAND, _StepKind.IMPLIED, _StepKind.OPTIONAL_INPUT})


_NEXT_PLAYER = -2  # a `_Path.run_seat`: a turn ended unseen and draws followed; whichever
# seat acts first after them proves it (`Action.PROVEN_BY_NEXT_SEAT`)


@dataclass(frozen=True)
class _Path:
    """A searched sequence: its actions, the table it leaves, and what it is made of."""

    actions: tuple[Action, ...]
    table: dict[str, Pieces]
    by_hand: int = 0
    optional_inputs: int = 0
    rules_touched: frozenset[str] = frozenset()  # where hands' actions and draws changed the
    # table, the rules' own consequences among them (carts driven on, tokens drawn)
    run_seat: int | None = None  # the seat whose unseen steps (an implied end of turn, an
    # input) have not yet shown on the table; only that seat's own next action may prove them
    # (after an action the game says the next seat proves, the end of a turn: that seat's)
    quiet: int = 0  # unseen steps in a row that changed nothing on the table (draws aside)
    steps: int = 0  # actions taken by players (draws aside)
    seats: frozenset[int] = frozenset()  # who acted (CHANCE for draws)
    off: frozenset[str] = frozenset()  # locations it changed where the table did not change
    asked: int | None = None  # where an input was taken that the table cannot tell from others,
    # or a seat's own decision (`Decision`): the referee stops there and asks
    shown: Mapping[str, Pieces] = field(default_factory=dict)  # where the table may still show
    # a play as it was laid, its consequences not yet carried out by hand (a trick's last card)
    by_hand_at: frozenset[str] = frozenset()  # locations last changed by a hand's action that
    # names them (a wagon's start and stop), not by what the rules did after it
    passed: bool = False  # a turn ended unseen into draws (`_NEXT_PLAYER`): once per reading,
    # or an evening of empty turns could explain any table (a cart driven off, placed again)

    @property
    def run_shows(self) -> bool:
        return self.run_seat is None

    def _may_pass_on(self, seat: int, moved: frozenset[str]) -> bool:
        """Whether the next seat's move may prove that `seat`'s turn ended unseen (the end of a
        turn with nothing left in it, docs/referee.md 'Decisions belong to the players'):
        - no turn ended unseen before in this reading (one at most: a reading never passes
          over a seat's whole turn);
        - nothing of `seat`'s own is still unproven (an unseen speed change: only that seat's
          own visible move proves it, never another seat's);
        - the end of the turn leaves nothing to show (`moved`: no minecart of that seat still
          to move, or to take off);
        - the turn is the reading's first: no other seat acted before it in this reading."""
        return (
            not self.passed and self.run_seat is None and not moved and self.seats <= {seat, CHANCE}
        )

    def _run_after(self, step: _StepKind, shows: bool, seat: int) -> int | None:
        if step is _StepKind.BY_HAND or shows:
            return None
        if step in (_StepKind.DRAWN, _StepKind.SEEN_DRAW, _StepKind.FORCED_INPUT):
            return self.run_seat
        return seat if self.run_seat in (None, _NEXT_PLAYER) else self.run_seat

    def then(
        self,
        action: Action,
        step: _StepKind,
        table: dict[str, Pieces],
        shows: bool,
        moved: frozenset[str],
        seat: int,
        off: frozenset[str],
        laid: Mapping[str, Pieces] | None = None,
        next_seat: int | None = None,
    ) -> _Path:
        """The path one step longer; `laid`: where the table may show this play as laid."""
        by_hand = step is _StepKind.BY_HAND
        shown = {n: ps for n, ps in self.shown.items() if n not in moved}
        shown.update(laid or {})
        by_rules = by_hand or step in (_StepKind.DRAWN, _StepKind.SEEN_DRAW)
        by_rules = by_rules or (step is _StepKind.IMPLIED and shows)  # proven by the table:
        # what it set off (a hit minecart turned round) is the rules' own, for players to do
        run = self._run_after(step, shows, seat)
        passed = self.passed
        if (
            run is not None
            and step is _StepKind.IMPLIED
            and action.PROVEN_BY_NEXT_SEAT
            and next_seat is not None
            and self._may_pass_on(seat, moved)
        ):
            passed = True  # one turn ends unseen in a reading, at most
            if next_seat >= 0:
                run = next_seat  # the turn passed on unseen: the next seat's move proves it
            elif next_seat == CHANCE:
                run = _NEXT_PLAYER  # draws come first (Off the Rails' deposits phase): the
                # first player to act after them proves it, whoever the draws make it
        return _Path(
            (*self.actions, action),
            table,
            self.by_hand + by_hand,
            self.optional_inputs + (step is _StepKind.OPTIONAL_INPUT),
            self.rules_touched | moved if by_rules else self.rules_touched,
            run,
            0 if by_hand or moved else self.quiet + (step is not _StepKind.DRAWN),
            self.steps + (step is not _StepKind.DRAWN),
            self.seats | {seat},
            off,
            self.asked,  # once a seat is to be asked, nothing after it is applied
            shown,
            by_hand_at=(self.by_hand_at - moved) | (moved & _field_values(action))
            if by_hand
            else self.by_hand_at - moved,
            passed=passed,
        )


@dataclass(frozen=True)
class _Candidate:
    actions: tuple[Action, ...]
    leftover: frozenset[str]
    covered: frozenset[str]  # unknown locations the sequence would change
    state_key: str
    by_hand: int  # actions in it that show on the table
    seats: int  # players who act in it
    implied: bool  # it ends a phase or turn unseen (something covered may have come first)
    asked: int | None  # the first input in it that the table cannot tell from others


class Referee:
    """Judges settled tables for one game (its `GameInfo` gives the physical form)."""

    def __init__(
        self,
        expected_table: Callable[[Any], TableObservation],
        catalogue: Catalogue,
        limits: Limits | None = None,
        while_played: Callable[[Any, Action], TableObservation | None] | None = None,
        expected_pieces: Callable[[Any], Mapping[str, Pieces]] | None = None,
    ) -> None:
        self.expected_table = expected_table
        self._pieces_of: Callable[[Any], Iterable[tuple[str, Pieces]]] = (
            (lambda state: expected_pieces(state).items())
            if expected_pieces is not None
            else (lambda state: expected_table(state).pieces)
        )
        self.while_played = while_played
        self.limits = limits or Limits()
        entries = catalogue.by_piece()
        self._rotations = {p: e.rotations for p, e in entries.items()}
        self._labels = {p: e.label for p, e in entries.items()}
        self._turns = {p: e.turns for p, e in entries.items() if e.turns}
        self._magnetic = frozenset(p for p, e in entries.items() if e.magnetic)
        self._canonical: dict[Pieces, Pieces] = {}
        self._by_identity: dict[int, tuple[Pieces, Pieces]] = {}
        self._copies = {p: e.copies for p, e in entries.items()}

    @staticmethod
    def for_game(info: GameInfo, limits: Limits | None = None) -> Referee:
        if info.expected_table is None or info.catalogue is None:
            raise ValueError(f"{info.title} has no physical form: the referee cannot judge it")
        return Referee(
            info.expected_table,
            info.catalogue(),
            limits,
            info.table_while_played,
            info.expected_pieces,
        )

    # ---- comparing pieces
    def canonical(self, pieces: Iterable[PlacedPiece]) -> Pieces:
        """Pieces with each rotation reduced to the turns that look different for that piece
        (a tuple is remembered: the search asks again for every location seen, at every node)."""
        known = self._canonical
        if type(pieces) is tuple:
            same = known.get(pieces)
            if same is not None:
                return same
        reduced = tuple(
            sorted(
                PlacedPiece(p.piece, p.rotation % self._rotations.get(p.piece, 4)) for p in pieces
            )
        )
        if type(pieces) is tuple:
            if len(known) >= _CANONICAL_MEMO:
                known.clear()
            known[pieces] = reduced
        return reduced

    def table_of(self, state: State) -> dict[str, Pieces]:
        """The rules' table for a state, rotations reduced (memoised per location's pieces).

        The search calls this for every node it tries. A game that hands out the same tuple for
        the same pieces (a tile alone on its square) is answered by the tuple's identity, without
        hashing its pieces; the memo holds each tuple it names, so no identity is reused while
        it is there, and it is emptied when it grows large (fresh tuples from other games)."""
        by_id = self._by_identity
        out = {}
        for name, pieces in self._pieces_of(state):
            if not pieces:
                continue
            hit = by_id.get(id(pieces))
            if hit is not None and hit[0] is pieces:
                out[name] = hit[1]
                continue
            same = self.canonical(pieces)
            if len(by_id) >= _IDENTITY_MEMO:
                by_id.clear()
            by_id[id(pieces)] = (pieces, same)
            out[name] = same
        return out

    def table_as_laid(self, state: State, action: Action) -> dict[str, Pieces] | None:
        """The table the moment `action` is laid, before its consequences are carried out by
        hand (the game's `table_while_played`), or None where that is the table after it."""
        if self.while_played is None:
            return None
        during = self.while_played(state, action)
        if during is None:
            return None
        return {n: self.canonical(ps) for n, ps in during.pieces}

    def fits(self, view: LocationView, pieces: Pieces) -> bool:
        """Whether what is seen of a location agrees with these pieces lying there."""
        if view.seen is Seen.EXACT:
            return self.canonical(view.pieces) == pieces
        if view.seen is Seen.MAGNET:
            return view.magnet == any(p.piece in self._magnetic for p in pieces)
        if view.seen is Seen.ON_TOP:  # what stands on top is seen; what it hides may be anything
            return holds(pieces, self.canonical(view.pieces))
        return True

    def _hides_change(self, view: LocationView, before: Pieces, after: Pieces) -> bool:
        """Whether a change from `before` to `after` here could not be seen."""
        if before == after or view.seen is Seen.EXACT:
            return False
        if view.seen is Seen.UNKNOWN:
            return True
        if view.seen is Seen.ON_TOP:  # a change under the pieces on top
            top = self.canonical(view.pieces)
            return without(before, top) != without(after, top)
        unmagnetic_before = [p for p in before if p.piece not in self._magnetic]
        unmagnetic_after = [p for p in after if p.piece not in self._magnetic]
        return unmagnetic_before != unmagnetic_after

    # ---- the verdict
    def judge(
        self,
        state: State,
        observation: Observation,
        table: TableObservation | Mapping[str, Pieces] | None = None,
        resolve_chance: ChanceResolver | None = None,
        locked: frozenset[int] = frozenset(),
    ) -> Verdict:
        """One verdict for a settled observation. `table` is what was believed to lie on the table
        before it (None: what the rules expect now). The state is left as it was.

        `locked` seats (computer players) act only through their own decisions: no reading of
        the table takes an action of theirs, so pieces moved on a computer's turn before its
        decision (or elsewhere than it said) are an alert, never a move of its."""
        expected = self.table_of(state)
        too_many = self._too_many(observation)
        if too_many:
            return self._alert_copies(too_many)
        base = self._base(table, expected)
        names = sorted(set(observation.views) | set(expected) | set(base))
        changed = frozenset(n for n in names if not self.fits(observation.view(n), base.get(n, ())))
        mismatch = frozenset(
            n for n in names if not self.fits(observation.view(n), expected.get(n, ()))
        )
        if not mismatch:
            question = self._decision_waiting(state, (), resolve_chance)
            if question is not None:  # the rules wait for someone's own decision: ask it
                return dataclasses.replace(
                    question, text="the table is as the rules expect; " + question.text
                )
            return Verdict(VerdictKind.IN_SYNC, "the table is as the rules expect")
        turn = state.current_player
        if turn is not None and turn in locked and _after_seen_draw(state):
            # the computer's move right after a draw the table shows (the tile it turned up,
            # laid as whoever turned it laid it): it decides, then the table follows it
            return self._computer_decides((), turn)
        if not changed & mismatch:
            # every change brings the table closer to the rules: players are following them
            return self._instructions(state, observation, expected, mismatch)
        if state.is_over:
            return self._alert(state, observation, expected, changed & mismatch)
        every = frozenset(names)
        limits = self.limits
        hidden = observation.covered() & every
        search = _Search(
            changed, mismatch, expected, every, False, hidden, limits.node_budget, locked=locked
        )
        self._search(state, observation, search, resolve_chance)
        if not self._best(search.found):
            search = _Search(
                changed, mismatch, expected, every, True, hidden, limits.input_budget, locked=locked
            )
            self._search(state, observation, search, resolve_chance)
        best = self._best(search.found)
        if best:
            return self._decide(state, observation, best, resolve_chance, locked)
        if hidden:  # unknown locations are never evidence for an alert: could they explain it?
            search = _Search(
                changed | hidden,
                mismatch,
                expected,
                every,
                False,
                hidden,
                limits.node_budget,
                True,
                locked=locked,
            )
            self._search(state, observation, search, resolve_chance)
            if self._best(search.found):
                return Verdict(
                    VerdictKind.WAITING,
                    "waiting: the move needs "
                    + ", ".join(sorted(hidden))
                    + ", covered now; it is judged once they can be seen",
                    locations=tuple(sorted(hidden)),
                )
        back = self._take_back(state, observation, changed)
        if back is not None:
            return back
        wrong = self._unexplained(
            state, observation, changed & mismatch, changed, expected, every, resolve_chance, locked
        )
        return self._alert(state, observation, expected, wrong, locked, resolve_chance)

    def _unexplained(
        self,
        state: State,
        observation: Observation,
        wrong: frozenset[str],
        changed: frozenset[str],
        expected: dict[str, Pieces],
        every: frozenset[str],
        resolve_chance: ChanceResolver | None,
        locked: frozenset[int],
    ) -> frozenset[str]:
        """The changed locations no legal reading explains. Where a legal reading explains the
        others exactly (a lead laid before a revoke), the alert names only the rest: the fewest
        locations (one or two) that, seen as they were, leave a table the rules explain."""
        if len(wrong) < 2:
            return wrong
        limits = self.limits
        left = limits.node_budget // 4  # for all the tries together: an alert waits on them
        largest = 2 if len(wrong) <= 3 else 1
        for size in range(1, min(len(wrong) - 1, largest) + 1):
            for rest in itertools.combinations(sorted(wrong), size):
                if left <= 0:
                    return wrong
                views = dict(observation.views)
                for name in rest:
                    views[name] = LocationView(Seen.EXACT, expected.get(name, ()))
                seen = Observation(observation.mode, views)
                kept = changed - frozenset(rest)
                pending = frozenset(
                    n for n in every if not self.fits(seen.view(n), expected.get(n, ()))
                )
                search = _Search(
                    kept,
                    pending,
                    expected,
                    every,
                    False,
                    seen.covered() & every,
                    min(left, limits.node_budget // 8),
                    locked=locked,
                )
                self._search(state, seen, search, resolve_chance)
                left -= search.nodes
                if any(not (c.leftover - pending) for c in self._best(search.found)):
                    return frozenset(rest)
        return wrong

    def _too_many(self, observation: Observation) -> dict[Piece, list[str]]:
        """Pieces seen on more locations than the game has of them (two of the one Rock)."""
        where: dict[Piece, list[str]] = {}
        for name, view in sorted(observation.views.items()):
            if view.seen in (Seen.EXACT, Seen.ON_TOP):
                for placed in view.pieces:
                    where.setdefault(placed.piece, []).append(name)
        return {p: names for p, names in where.items() if len(names) > self._copies.get(p, 1 << 30)}

    def _alert_copies(self, too_many: dict[Piece, list[str]]) -> Verdict:
        wrong = []
        for piece, names in sorted(too_many.items()):
            copies = self._copies.get(piece, 1)
            text = (
                f"{', '.join(names)}: {_the(self.label(piece))} lies on {len(names)} squares; "
                f"the game has {copies}"
            )
            for name in names:
                wrong.append(WrongLocation(name, self.label(piece), f"at most {copies}", (), text))
        return Verdict(
            VerdictKind.ALERT,
            "not a legal move: " + " | ".join(dict.fromkeys(w.text for w in wrong)),
            wrong=tuple(wrong),
            locations=tuple(sorted({w.location for w in wrong})),
        )

    def _base(
        self, table: TableObservation | Mapping[str, Pieces] | None, expected: dict[str, Pieces]
    ) -> dict[str, Pieces]:
        if table is None:
            return expected
        items = table.pieces if isinstance(table, TableObservation) else table.items()
        return {n: self.canonical(ps) for n, ps in items if ps}

    # ---- the search
    def _search(
        self,
        state: State,
        observation: Observation,
        search: _Search,
        resolve_chance: ChanceResolver | None,
    ) -> None:
        """Iterative deepening: the shortest sequences that fit, and those one step longer.

        Each node's steps and children are worked out with the rules once and kept in
        `search.tree`: a deeper pass walks what is known without applying anything, and applies
        actions only to reach the nodes it has not seen (`_goto`)."""
        start = _Path((), search.base_table)
        limits = self.limits
        seen_to_change = len(search.changed - search.covered) + (
            len(search.covered & search.changed) if search.one_is_enough else 0
        )  # the waiting search counts the covered locations too: each may hide a hand's action
        search.hands = max(limits.max_table_actions, min(seen_to_change, limits.most_table_actions))
        try:
            first = self.limits.max_actions if search.one_is_enough else 1
            # whether any reading exists (before a wait): depth first, no deepening, for the
            # first reading ends it (a lead under a hand may be any card: deepening would try
            # every lead with every next card at each depth before reaching the trick's end)
            for bound in range(first, self.limits.max_actions + 1):
                search.bound = bound
                search.found.clear()
                search.cut = False
                search.visited.clear()
                self._extend(state, observation, search, resolve_chance, start)
                exact = [c for c in search.found if not c.leftover]
                if exact or search.nodes >= search.budget or not search.cut:
                    break  # found; out of budget; or nothing was cut short: deeper finds no more
            if exact and bound < self.limits.max_actions and not search.one_is_enough:
                search.bound = bound + 1
                search.found.clear()
                search.visited.clear()
                self._extend(state, observation, search, resolve_chance, start)
        finally:
            self._goto(state, search, ())

    @staticmethod
    def _goto(state: State, search: _Search, actions: tuple[Action, ...]) -> None:
        """Bring the state to the node reached by `actions` from the root."""
        at = search.at
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

    def _node(
        self,
        state: State,
        search: _Search,
        path: _Path,
    ) -> _Node:
        node = search.tree.get(path.actions)
        if node is None:
            self._goto(state, search, path.actions)
            node = search.tree[path.actions] = _Node(state.current_player, state.is_over)
        return node

    def _extend(
        self,
        state: State,
        observation: Observation,
        search: _Search,
        resolve_chance: ChanceResolver | None,
        path: _Path,
    ) -> None:
        node = self._node(state, search, path)
        if path.actions and path.run_shows:
            if not node.considered:
                self._goto(state, search, path.actions)
                node.candidate = self._consider(state, observation, search, path)
                node.considered = True
            if node.candidate is not None:
                search.found.append(node.candidate)
                if search.one_is_enough:
                    search.budget = 0  # found one: the search stops
                if not node.candidate.leftover:
                    return  # it fits exactly: a longer sequence takes what nothing shows
        limits = self.limits
        if node.over:
            return
        if path.steps >= search.bound:
            search.cut = True
            return
        if path.quiet >= limits.max_quiet_steps:
            return
        if node.steps is None:
            self._goto(state, search, path.actions)
            node.steps = list(self._next_steps(state, search, resolve_chance, path.off))
        steps = node.steps
        choices = sum(step is _StepKind.FORCED_INPUT for _, step in steps)
        answered = False  # one input that explains the table is enough: the seat is asked anyway
        input_tables: set[Any] = set()
        for index, (action, step) in enumerate(steps):
            if search.nodes >= search.budget:
                return
            if step is _StepKind.FORCED_INPUT and answered:
                continue
            if step in _PLAYED and path.run_seat not in (None, node.seat, _NEXT_PLAYER):
                continue  # unseen steps are proven by the table, or by the same seat's action
            if step is _StepKind.BY_HAND and path.by_hand >= search.hands:
                continue
            if step is _StepKind.OPTIONAL_INPUT and (
                not search.optional_inputs or path.optional_inputs >= limits.max_optional_inputs
            ):
                continue
            search.nodes += 1
            if index in node.children:
                child = node.children[index]
            else:
                self._goto(state, search, path.actions)
                child = node.children[index] = self._child(
                    state, observation, search, resolve_chance, path, action, step, choices
                )
            if child is None:
                continue
            seen, looks, longer = child
            if seen is not None:
                if seen in search.visited:
                    continue  # the same actions in another order, already searched
                search.visited.add(seen)
            if looks is not None:
                if looks in input_tables:
                    continue  # as another input did, on the table and after: one reading
                input_tables.add(looks)
            found = len(search.found)
            self._extend(state, observation, search, resolve_chance, longer)
            answered = answered or (step is _StepKind.FORCED_INPUT and len(search.found) > found)

    def _child(
        self,
        state: State,
        observation: Observation,
        search: _Search,
        resolve_chance: ChanceResolver | None,
        path: _Path,
        action: Action,
        step: _StepKind,
        choices: int,
    ) -> _Child:
        """One step from the node the state is at, worked out with the rules (see `_Child`)."""
        seat = state.current_player
        during = self.table_as_laid(state, action) if step is _StepKind.BY_HAND else None
        try:
            state.apply_legal(action)  # a step the rules listed here: no checks again
            try:
                after = self.table_of(state)
                moved = changed_locations(path.table, after)
                shows = bool(moved & search.changed)
                laid = None
                if during is not None:  # the play as laid, its consequences still to do
                    laid = {n: during.get(n, ()) for n in changed_locations(during, after)}
                    as_laid = {**after, **laid}
                    shown = changed_locations(path.table, as_laid)
                    shows = shows or bool(shown & search.changed)
                else:
                    as_laid, shown = after, moved
                if step in (_StepKind.BY_HAND, _StepKind.SEEN_DRAW) and not (
                    self._progress(observation, search, path.table, after, moved)
                    or (
                        laid is not None
                        and self._progress(observation, search, path.table, as_laid, shown)
                    )
                ):
                    return None  # a hand's action must make a changed location look as it does
                target = search.changed | search.pending
                off = (path.off - moved) | frozenset(
                    n for n in moved - target if after.get(n, ()) != search.base_table.get(n, ())
                )
                if step in _UNSEEN and not shows and len(off) > max(len(path.off), 1):
                    return None  # unseen moves show where the table changed (or stop on the way);
                    # one that does show may set off more, left to the players (a second cart)
                if step is _StepKind.BY_HAND and len(off) > 1:
                    by_hands = (path.by_hand_at - moved) | (moved & _field_values(action))
                    if len((off & by_hands) - search.covered) > 1:
                        return None  # hands put pieces (or took them) where nothing changed
                        # that is seen, more than one stop on the way: no reading of this table
                seen = None
                if path.by_hand + (step is _StepKind.BY_HAND) >= 2:
                    seen = (
                        frozenset(Counter((*path.actions, action)).items()),
                        frozenset((n, after.get(n, ())) for n in target | off),
                    )
                looks = None
                if step is _StepKind.FORCED_INPUT:
                    looks = (
                        frozenset((n, after.get(n, ())) for n in moved),
                        _next_choices(state, resolve_chance),
                    )
                child = path.then(
                    action,
                    step,
                    after,
                    shows,
                    moved,
                    CHANCE if seat is None else seat,
                    off,
                    laid,
                    state.current_player,
                )
                if path.asked is None and (
                    (step is _StepKind.FORCED_INPUT and choices > 1)
                    or (step is _StepKind.OPTIONAL_INPUT and action.DECISION is not _NONE)
                    or seat in search.locked
                ):
                    child = dataclasses.replace(child, asked=len(path.actions))
                return seen, looks, child
            finally:
                state.undo()
        except ValueError:
            return None  # refused by the rules: no step here

    def _progress(
        self,
        observation: Observation,
        search: _Search,
        before: dict[str, Pieces],
        after: dict[str, Pieces],
        moved: frozenset[str],
    ) -> bool:
        """Whether a step brings a changed location closer to what is seen there."""
        for name in moved & search.changed:
            view = observation.view(name)
            if view.seen is Seen.UNKNOWN:
                return True  # covered: it may look like anything (searched only when waiting)
            if self.distance(view, after.get(name, ())) < self.distance(view, before.get(name, ())):
                return True
        return False

    def _taken_off_by_rules(
        self, view: LocationView, pieces: Pieces, table: dict[str, Pieces]
    ) -> bool:
        """Whether the table shows these pieces and more, the more being pieces the rules took
        off the table (a derailed cart), not pieces they moved elsewhere."""
        if view.seen is Seen.EXACT:
            seen = list(self.canonical(view.pieces))
            for piece in pieces:
                if piece not in seen:
                    return False
                seen.remove(piece)
            elsewhere = {p.piece for placed in table.values() for p in placed}
            return bool(seen) and not any(p.piece in elsewhere for p in seen)
        if view.seen is Seen.MAGNET:
            return view.magnet and not any(p.piece in self._magnetic for p in pieces)
        return False

    def distance(self, view: LocationView, pieces: Pieces) -> int:
        """How many pieces would have to come or go for these pieces to look as seen."""
        if view.seen is Seen.EXACT:
            seen = list(self.canonical(view.pieces))
            extra = 0
            for piece in pieces:
                if piece in seen:
                    seen.remove(piece)
                else:
                    extra += 1
            return extra + len(seen)
        if view.seen is Seen.MAGNET:
            return int(not self.fits(view, pieces))
        if view.seen is Seen.ON_TOP:  # pieces seen on top that are not there
            top = self.canonical(view.pieces)
            return len(top) - (len(pieces) - len(without(pieces, top)))
        return 0

    def _next_steps(
        self,
        state: State,
        search: _Search,
        resolve_chance: ChanceResolver | None,
        stirred: frozenset[str] = frozenset(),
    ) -> Iterator[tuple[Action, _StepKind]]:
        """The steps worth trying here; `stirred` are locations the sequence has changed so far
        where the table shows no change (a wagon left, another of the same colour came in)."""
        if state.current_player in search.locked and not _after_seen_draw(state):
            return  # the computer's turn: its actions come from its decision, never the table
        # right after a draw the table shows (a tile the computer turned up, its face now seen),
        # the table may show the computer's next action too, as whoever turned it laid it: a
        # reading may pass through that action, but stops before it (`_child`: the computer
        # decides it, and what lies otherwise becomes its instruction)
        if state.current_player == CHANCE:
            if not state.observed_chance():
                if resolve_chance is not None:  # the digital deck draws it
                    yield resolve_chance(state), _StepKind.DRAWN
                return
            outcomes = [a for a, p in state.chance_outcomes() if p > 0]
            if outcomes and all(a.VISIBILITY is Visibility.TABLE for a in outcomes):
                for outcome in outcomes:  # a real card turned up: the table shows which
                    yield outcome, _StepKind.SEEN_DRAW
            else:  # a real draw nothing shows (a gem from the bag): someone says which
                for outcome in outcomes[: self.limits.max_forced_inputs]:
                    yield outcome, _StepKind.FORCED_INPUT
            return
        actions = state.legal_actions()
        forced = all(a.VISIBILITY is Visibility.INPUT for a in actions)
        inputs = 0
        changed, names = search.changed | stirred, search.names
        getters = _TEXT_VALUES
        for action in actions:
            kind = action.VISIBILITY
            if kind is Visibility.TABLE:
                values = (getters.get(type(action)) or _text_values(type(action)))(action)
                if changed.isdisjoint(values) and not names.isdisjoint(values):
                    continue  # it names locations, none of which changed
                yield action, _StepKind.BY_HAND
            elif kind is Visibility.IMPLIED:
                yield action, _StepKind.IMPLIED
            elif inputs < self.limits.max_forced_inputs:
                inputs += 1
                yield action, _StepKind.FORCED_INPUT if forced else _StepKind.OPTIONAL_INPUT

    def _consider(
        self, state: State, observation: Observation, search: _Search, path: _Path
    ) -> _Candidate | None:
        """The path as an explanation of the table, or None where it is none."""
        table = path.table
        for name in search.changed:
            view = observation.view(name)
            if not self.fits(view, table.get(name, ())) and not (
                name in path.shown and self.fits(view, path.shown[name])
            ):
                return None  # as the rules have it, or as a play was laid (still to resolve)
        touched = changed_locations(table, search.base_table)
        leftover = frozenset(
            n
            for n in touched | search.pending
            if not self.fits(observation.view(n), table.get(n, ()))
        )
        if not all(
            self._taken_off_by_rules(observation.view(n), table.get(n, ()), table)
            for n in leftover - search.pending - path.rules_touched
        ):
            return None  # only the rules' own moves, or pieces they took off, are left to do
        if any(
            observation.view(n).seen is Seen.MAGNET
            for n in (leftover & path.by_hand_at) - search.pending
        ):
            return None  # a magnet still felt where a hand's own move took it: not that move
        covered = frozenset(
            n
            for n in touched
            if self._hides_change(
                observation.view(n), search.base_table.get(n, ()), table.get(n, ())
            )
        )
        key = json.dumps(state.to_json(), sort_keys=True)
        seats = len({s for s in path.seats if s >= 0})
        implied = any(a.VISIBILITY is Visibility.IMPLIED for a in path.actions)
        return _Candidate(
            path.actions, leftover, covered, key, path.by_hand, seats, implied, path.asked
        )

    @staticmethod
    def _best(found: list[_Candidate]) -> list[_Candidate]:
        """The fewest instructions left, then no sequence that merely extends another one (what
        the table does not show is not taken), and none much longer than the shortest."""
        if not found:
            return []
        fewest = min(len(c.leftover) for c in found)
        fitting = [c for c in found if len(c.leftover) == fewest]
        prefixes = {c.actions for c in fitting}
        minimal = [
            c
            for c in fitting
            if not any(c.actions[:k] in prefixes for k in range(1, len(c.actions)))
        ]
        shortest = min(len(c.actions) for c in minimal)
        return [c for c in minimal if len(c.actions) <= shortest + 1]

    # ---- from candidates to a verdict
    def _decide(
        self,
        state: State,
        observation: Observation,
        best: list[_Candidate],
        resolve_chance: ChanceResolver | None,
        locked: frozenset[int] = frozenset(),
    ) -> Verdict:
        # wait for what is hidden for now (a hand); what no input can ever see (a starting area
        # with the sensor board alone, a tile under a wagon) is never waited for: the readings
        # rest on what is seen, and where they differ the seat is asked
        covered = frozenset().union(*(c.covered for c in best)) & observation.covered()
        if covered:
            return Verdict(
                VerdictKind.WAITING,
                "waiting: "
                + ", ".join(sorted(covered))
                + " covered; the move cannot be judged yet",
                locations=tuple(sorted(covered)),
            )
        if observation.covered() and any(c.by_hand > 1 or c.seats > 1 or c.implied for c in best):
            covered_now = tuple(sorted(observation.covered()))
            return Verdict(
                VerdictKind.WAITING,
                "waiting: more than one move, or the end of a turn, while "
                + ", ".join(covered_now)
                + " cannot be seen; uncover them",
                locations=covered_now,
            )
        by_state: dict[str, _Candidate] = {}
        for cand in best:
            known = by_state.get(cand.state_key)
            if known is None or len(cand.actions) < len(known.actions):
                by_state[cand.state_key] = cand
        readings = sorted(by_state.values(), key=lambda c: (len(c.actions), _text(c.actions)))
        # A reading that reaches a question (a seat's own decision, an input the table cannot
        # tell) is applied only up to it: nothing past it is taken for anyone.
        parts: dict[tuple[Action, ...], bool] = {}
        for cand in readings:
            part = cand.actions if cand.asked is None else cand.actions[: cand.asked]
            parts[part] = parts.get(part, False) or cand.asked is not None
        if len(parts) == 1:
            ((part, asks),) = parts.items()
            if asks:
                seat, _ = self._waiting(state, part, resolve_chance)
                if seat is not None and seat in locked:
                    return self._computer_decides(part, seat)
                return self._ask(state, part, resolve_chance)
            return self._applied(state, observation, readings[0], resolve_chance)
        sequences = list(parts)
        prefix = _common_prefix(sequences)
        seat, _ = self._waiting(state, prefix, resolve_chance)
        splits = {p[len(prefix)] for p in sequences if len(p) > len(prefix)}
        if splits and all(a.CHANCE_OUTCOME and a.VISIBILITY is Visibility.TABLE for a in splits):
            # a real draw the table will show, not shown yet (a tile turned up, still in hand)
            before, where = self.table_of(state), set[str]()
            for cand in readings:
                with state.applied(cand.actions):
                    where |= changed_locations(before, self.table_of(state))
            return Verdict(
                VerdictKind.WAITING,
                "waiting: what came up ("
                + " or ".join(sorted(a.describe() for a in splits))
                + ") does not show on the table yet",
                locations=tuple(sorted(where)),
            )
        asking_input = bool(splits) and all(a.VISIBILITY is Visibility.INPUT for a in splits)
        if asking_input:
            return self._ask(
                state, prefix, resolve_chance, sorted(splits, key=lambda a: a.describe())
            )
        options = tuple(
            Alternative(
                p[len(prefix) :],
                _text(p[len(prefix) :]) + (", then a question" if parts[p] else ""),
            )
            for p in sequences
        )
        return Verdict(
            VerdictKind.CHOICE,
            f"seat {seat}: the table fits {len(options)} moves; which one was it? "
            + " | ".join(o.text for o in options),
            actions=prefix,
            options=options,
            seat=seat,
        )

    @staticmethod
    def _computer_decides(prefix: tuple[Action, ...], seat: int) -> Verdict:
        """A reading that reaches a computer seat's action: what came before it is applied (a
        draw the table shows), the action itself is the computer's to decide."""
        if prefix:
            return Verdict(
                VerdictKind.APPLIED,
                f"applied: {_text(prefix)}; now seat {seat} decides its move",
                actions=prefix,
            )
        return Verdict(
            VerdictKind.WAITING,
            f"waiting for seat {seat} to decide its move",
            seat=seat,
        )

    def _ask(
        self,
        state: State,
        prefix: tuple[Action, ...],
        resolve_chance: ChanceResolver | None,
        seen: list[Action] | None = None,
    ) -> Verdict:
        """Apply `prefix`, then ask whoever decides for the input the table cannot show: the
        seat to act, or the host for a real draw or a ruling (`Decision.HOST`). A hidden choice
        (`Decision.HIDDEN`) is asked in words that do not show its options."""
        seat, legal = self._waiting(state, prefix, resolve_chance)
        asked = [a for a in legal if a.VISIBILITY is Visibility.INPUT] or seen or []
        options = tuple(Alternative((a,), a.describe()) for a in asked)
        decisions = {a.DECISION for a in asked} - {_NONE}
        if Decision.HOST in decisions:
            seat = None
        hidden = Decision.HIDDEN in decisions
        if hidden:
            kinds = ", ".join(sorted({a.TYPE.replace("_", " ") for a in asked}))
            text = f"seat {seat}: a hidden choice ({kinds}), made on seat {seat}'s phone alone"
        elif decisions:
            who = f"seat {seat}" if seat is not None else "the host"
            text = f"{who}: yours to decide, the table cannot show it; say which: "
            text += "; ".join(o.text for o in options)
        else:
            who = f"seat {seat}" if seat is not None else "the host (a real draw)"
            text = f"{who}: the table cannot show this; say which: "
            text += "; ".join(o.text for o in options)
        return Verdict(
            VerdictKind.NEEDS_INPUT,
            text,
            actions=prefix,
            options=options,
            seat=seat,
            hidden=hidden,
        )

    def _decision_waiting(
        self, state: State, prefix: tuple[Action, ...], resolve_chance: ChanceResolver | None
    ) -> Verdict | None:
        """The question, if the rules wait for someone's own decision (`Decision`) once
        `prefix` is applied: everything legal then is one, and there is more than one."""
        _, legal = self._waiting(state, prefix, resolve_chance)
        if len(legal) > 1 and all(a.DECISION is not _NONE for a in legal):
            return self._ask(state, prefix, resolve_chance)
        return None

    def _waiting(
        self, state: State, prefix: tuple[Action, ...], resolve_chance: ChanceResolver | None
    ) -> tuple[int | None, list[Action]]:
        """Who is to act once `prefix` is applied and the digital deck has drawn (None for the
        host: a real draw), and what they may do (a real draw: its outcomes)."""
        with state.applied(prefix) as done:
            while (
                state.current_player == CHANCE
                and resolve_chance is not None
                and not state.observed_chance()
                and len(done) < len(prefix) + 64
            ):
                outcome = resolve_chance(state)
                state.apply(outcome)  # taken back with the block, as all it applies
                done.append(outcome)
            seat = state.current_player
            if seat is None:
                legal: list[Action] = []
            elif seat == CHANCE:
                legal = [a for a, p in state.chance_outcomes() if p > 0 and state.observed_chance()]
            else:
                legal = state.legal_actions()
        return (seat if seat is not None and seat >= 0 else None), legal

    def _applied(
        self,
        state: State,
        observation: Observation,
        cand: _Candidate,
        resolve_chance: ChanceResolver | None,
    ) -> Verdict:
        instructions: tuple[Instruction, ...] = ()
        if cand.leftover:
            with state.applied(cand.actions):
                after = self.table_of(state)
            instructions = self._instructions_for(cand.leftover, after, observation)
        text = "applied: " + _text(cand.actions)
        if instructions:
            text += "; now: " + "; ".join(i.text for i in instructions)
        question = self._decision_waiting(state, cand.actions, resolve_chance)
        if question is not None:  # the rules now wait for someone's own decision: ask it
            return dataclasses.replace(
                question,
                text=text + "; " + question.text,
                instructions=instructions,
                locations=tuple(sorted(cand.leftover)),
            )
        return Verdict(
            VerdictKind.APPLIED,
            text,
            actions=cand.actions,
            instructions=instructions,
            locations=tuple(sorted(cand.leftover)),
        )

    def _instructions(
        self,
        state: State,
        observation: Observation,
        expected: dict[str, Pieces],
        mismatch: frozenset[str],
    ) -> Verdict:
        steps = self._instructions_for(mismatch, expected, observation)
        return Verdict(
            VerdictKind.INSTRUCTIONS,
            "to do: " + "; ".join(i.text for i in steps),
            instructions=steps,
            locations=tuple(sorted(mismatch)),
        )

    def _instructions_for(
        self,
        names: Iterable[str],
        expected: Mapping[str, Pieces],
        observation: Observation | None,
    ) -> tuple[Instruction, ...]:
        out = []
        for name in sorted(names):
            view = observation.view(name) if observation is not None else None
            want = expected.get(name, ())
            if view is not None and view.seen is Seen.EXACT:
                have = self.canonical(view.pieces)
                take_off = tuple(p for p in have if p not in want)
                put_on = tuple(p for p in want if p not in have)
            elif view is not None and view.seen is Seen.ON_TOP:  # what it hides is not known
                take_off, put_on = without(self.canonical(view.pieces), want), ()
            elif view is not None and view.seen is Seen.MAGNET:
                wanted_magnets = tuple(p for p in want if p.piece in self._magnetic)
                take_off = () if wanted_magnets else (PlacedPiece(Piece("magnetic", "piece")),)
                put_on = wanted_magnets if not view.magnet else ()
            else:
                take_off, put_on = (), want
            out.append(Instruction(name, self._instruction_text(name, take_off, put_on, want),
                                   take_off, put_on))  # fmt: skip
        return tuple(out)

    def _instruction_text(self, name: str, take_off: Pieces, put_on: Pieces, want: Pieces) -> str:
        parts = []
        turned = {p.piece for p in take_off} & {p.piece for p in put_on}
        for p in put_on:
            label, turn = self._piece_words(p)
            verb = "turn" if p.piece in turned else "put"
            parts.append(f"{verb} {_the(label)} on {name}{turn}")
        for p in take_off:
            if p.piece not in turned:
                parts.append(f"take {_the(self.label(p.piece))} off {name}")
        if not parts:
            what = ", ".join(self.describe_piece(p) for p in want) or "nothing"
            parts.append(f"{name} should hold: {what}")
        return "; ".join(parts)

    def _take_back(
        self, state: State, observation: Observation, changed: frozenset[str]
    ) -> Verdict | None:
        """The table back to how it was before the last actions: offer to take them back.

        A draw the digital deck made goes back with them, as a card goes back on top of the deck
        (made again, the move draws the same card: the deck draws from the game's secret and the
        number of steps). A real draw (a card turned up on the table, a gem said from the bag)
        is not taken back by the referee: the table back to before it is an alert saying so."""
        undone: list[Action] = []
        played = 0
        real: list[Action] = []  # real draws undone on the way
        taken: list[Action] | None = None
        try:
            while played < self.limits.take_back_depth and state.history:
                action = state.undo()
                undone.append(action)
                if action.CHANCE_OUTCOME:
                    if state.observed_chance():
                        real.insert(0, action)
                    continue
                played += 1  # a player's action: its table (a minecart the rules drove, too)
                earlier = self.table_of(state)
                names = set(observation.views) | set(earlier)
                if all(self.fits(observation.view(n), earlier.get(n, ())) for n in names):
                    taken = list(reversed(undone))
                    break
        finally:
            for action in reversed(undone):
                state.apply(action)
        if taken is None:
            return None
        if real:
            alert = self._alert(state, observation, self.table_of(state), changed)
            played_back = tuple(a for a in taken if not a.CHANCE_OUTCOME)
            return dataclasses.replace(
                alert,
                text=f"not taken back: the table is back to before {_text(played_back)}, but "
                f"real draws came since ({', '.join(a.describe() for a in real)}) and the "
                "referee never takes back a real draw: put the pieces back as the rules have "
                "them, or the host undoes it | " + alert.text.removeprefix("not a legal move: "),
            )
        return Verdict(
            VerdictKind.TAKE_BACK,
            "the table is back to before " + _text(tuple(taken)) + ": take it back?",
            actions=tuple(taken),
            undo=len(taken),
            locations=tuple(sorted(changed)),
        )

    def _alert(
        self,
        state: State,
        observation: Observation,
        expected: dict[str, Pieces],
        wrong_names: frozenset[str],
        locked: frozenset[int] = frozenset(),
        resolve_chance: ChanceResolver | None = None,
    ) -> Verdict:
        """Names each location no legal move explains: what lies there, what the rules expect,
        what to do to put it right, and what would be legal there (or whose turn it is, where
        another seat's move came before the seat to act ended its turn)."""
        turn = state.current_player
        computer = turn is not None and turn in locked
        legal = [] if state.is_over or turn == CHANCE or computer else state.legal_actions()
        # what is legal may tell what a seat alone knows (the cards in its hand): then only
        # the kinds of move are said, and that seat's own phone shows which
        secret = bool(legal) and turn is not None and _holds_secrets(state, turn)
        wrong = []
        for name in sorted(wrong_names):
            view = observation.view(name)
            seen = self.describe_view(view)
            should = self.describe_pieces(expected.get(name, ()))
            moves = [
                a for a in legal if a.VISIBILITY is Visibility.TABLE and name in _field_values(a)
            ]
            here = (
                tuple(
                    dict.fromkeys(f"{a.TYPE} (seat {turn}'s own phone shows which)" for a in moves)
                )
                if secret
                else tuple(a.describe() for a in moves)
            )
            text = f"{name}: {seen} lies there, but the rules expect {should}"
            if computer:
                text += f"; seat {turn} is the computer's: it makes its own moves"
            elif here:
                shown = ", ".join(here[:3]) + (
                    f" (and {len(here) - 3} more)" if len(here) > 3 else ""
                )
                text += f"; legal here: {shown}"
            else:
                early = self._out_of_turn(state, name, resolve_chance)
                text += early or "; no legal move puts it there"
            (fix,) = self._instructions_for([name], expected, observation)
            if fix.take_off or fix.put_on:
                text += f"; to put it right: {fix.text}"
            wrong.append(WrongLocation(name, seen, should, here, text))
        return Verdict(
            VerdictKind.ALERT,
            "not a legal move: " + " | ".join(w.text for w in wrong),
            wrong=tuple(wrong),
            locations=tuple(w.location for w in wrong),
        )

    def _out_of_turn(
        self, state: State, name: str, resolve_chance: ChanceResolver | None
    ) -> str | None:
        """Words for a change at `name` that would be a later seat's legal move once the seat
        to act (and any seats between) ended their turns, which the table does not show: whose
        turn it is, and what that seat still has to do (its minecart still to move)."""
        turn = state.current_player
        if turn is None or turn < 0:
            return None
        before = self.table_of(state)
        mover: int | None = None
        todo: list[str] = []
        with state.applied([]) as done:
            for _ in range(8):  # a turn at a time, round the table at most once
                seat = state.current_player
                ends = [
                    a
                    for a in state.legal_actions()
                    if a.VISIBILITY is Visibility.IMPLIED and a.PROVEN_BY_NEXT_SEAT
                ]
                if not ends:
                    return None
                state.apply(ends[0])  # taken back with the block, as all it applies
                done.append(ends[0])
                if seat == turn and not todo:
                    moved = self.table_of(state)
                    for where in sorted(changed_locations(before, moved)):
                        was, now = before.get(where, ()), moved.get(where, ())
                        take_off = tuple(p for p in was if p not in now)
                        put_on = tuple(p for p in now if p not in was)
                        todo.append(self._instruction_text(where, take_off, put_on, now))
                while (
                    state.current_player == CHANCE
                    and resolve_chance is not None
                    and not state.observed_chance()
                    and len(done) < 64
                ):
                    outcome = resolve_chance(state)
                    state.apply(outcome)
                    done.append(outcome)
                after = state.current_player
                if after is None or after < 0 or after == turn:
                    return None
                if any(
                    a.VISIBILITY is Visibility.TABLE and name in _field_values(a)
                    for a in state.legal_actions()
                ):
                    mover = after
                    break
        if mover is None:
            return None
        text = f"; it is seat {turn}'s turn, not seat {mover}'s: seat {turn} has not ended it"
        if todo:
            text += " (still to do: " + "; ".join(todo) + ")"
        return text

    def is_magnetic(self, piece: Piece) -> bool:
        """Whether the piece carries a magnet (the sensor board feels it)."""
        return piece in self._magnetic

    # ---- while a piece is in the air
    def destinations(self, state: State, lifted: str) -> frozenset[str]:
        """Where the rules let the piece lifted from `lifted` go now: the locations a legal
        action (or its consequences) puts that piece on."""
        if state.is_over or state.current_player == CHANCE:
            return frozenset()
        before = self.table_of(state)
        moving = {p.piece for p in before.get(lifted, ()) if p.piece in self._magnetic}
        if not moving:
            return frozenset()
        found: set[str] = set()
        for action in state.legal_actions():
            if action.VISIBILITY is Visibility.INPUT:
                continue
            if action.VISIBILITY is Visibility.TABLE and lifted not in _field_values(action):
                continue
            with state.applied([action]):
                after = self.table_of(state)
            for name in changed_locations(before, after):
                if name != lifted and any(p.piece in moving for p in after.get(name, ())):
                    found.add(name)
        return frozenset(found)

    # ---- words
    def label(self, piece: Piece) -> str:
        return self._labels.get(piece, str(piece))

    def describe_piece(self, placed: PlacedPiece) -> str:
        label, turn = self._piece_words(placed)
        return label + turn

    def _piece_words(self, placed: PlacedPiece) -> tuple[str, str]:
        """The piece's name and how it is turned, apart, so an instruction can name the square
        between them ("put the corner track on B4, joining south and west")."""
        turns = self._rotations.get(placed.piece, 4)
        label = self.label(placed.piece)
        if turns == 1:
            return label, ""
        said = self._turns.get(placed.piece)
        if said:  # the game's words for it: "corner track", ", joining south and west"
            return label, f", {said[placed.rotation % len(said)]}"
        return label, f" turned {'NESW'[placed.rotation % 4]}"

    def describe_pieces(self, pieces: Pieces) -> str:
        return " and ".join(self.describe_piece(p) for p in pieces) or "nothing"

    def describe_view(self, view: LocationView) -> str:
        if view.seen is Seen.EXACT:
            return self.describe_pieces(self.canonical(view.pieces))
        if view.seen is Seen.MAGNET:
            return "a magnetic piece" if view.magnet else "no magnetic piece"
        if view.seen is Seen.ON_TOP:
            return self.describe_pieces(self.canonical(view.pieces)) + " (on what it hides)"
        return "something unseen"


def _field_values(action: Action) -> set[str]:
    """The string values of an action's fields (location names among them)."""
    return {v for v in vars(action).values() if isinstance(v, str)}


def _next_choices(state: State, resolve_chance: ChanceResolver | None) -> frozenset[Action]:
    """What players may do next, past any draws the digital deck makes first."""
    with state.applied([]) as drawn:
        while state.current_player == CHANCE and len(drawn) < 40:
            if resolve_chance is None or state.observed_chance():
                return frozenset(a for a, _ in state.chance_outcomes())
            outcome = resolve_chance(state)
            state.apply(outcome)  # taken back with the block, as all it applies
            drawn.append(outcome)
        return frozenset(state.legal_actions())


_TEXT_VALUES: dict[type[Action], Callable[[Action], tuple[Any, ...]]] = {}


def _text_values(cls: type[Action]) -> Callable[[Action], tuple[Any, ...]]:
    """For an action class, what reads the values of its fields that hold plain text (where
    location names go) as a tuple: the search asks it of every legal action it meets."""
    known = _TEXT_VALUES.get(cls)
    if known is None:
        hints = typing.get_type_hints(cls)
        fields = [f.name for f in dataclasses.fields(cls) if hints.get(f.name) is str]
        getter = operator.attrgetter(*fields) if fields else None
        if getter is None:
            known = _no_values
        elif len(fields) == 1:
            known = _one_value(getter)
        else:
            known = getter
        _TEXT_VALUES[cls] = known
    return known


def _no_values(action: Action) -> tuple[Any, ...]:
    return ()


def _one_value(getter: Callable[[Action], Any]) -> Callable[[Action], tuple[Any, ...]]:
    return lambda action: (getter(action),)


def _holds_secrets(state: State, seat: int) -> bool:
    """Whether `seat` knows something the others do not (a dealt hand)."""
    return state.redeal_secrets(seat, random.Random(0)) is not None


def _the(words: str) -> str:
    """`the red minecart`, and `the Rock` rather than `the the Rock`."""
    return words if words.lower().startswith("the ") else f"the {words}"


def _after_seen_draw(state: State) -> bool:
    """Whether the last action was a draw the table shows (a tile turned up: its face)."""
    history = state.history
    if not history:
        return False
    last = history[-1]
    return bool(last.CHANCE_OUTCOME) and last.VISIBILITY is Visibility.TABLE


def _common_prefix(sequences: list[tuple[Action, ...]]) -> tuple[Action, ...]:
    prefix: list[Action] = []
    for items in zip(*sequences, strict=False):
        if all(i == items[0] for i in items):
            prefix.append(items[0])
        else:
            break
    return tuple(prefix)


def _shown(action: Action) -> bool:
    """A player's action, or a draw the table shows: not a draw only a phone tells (a dealt card
    is private), which verdicts' words and JSON leave out."""
    return not action.CHANCE_OUTCOME or action.VISIBILITY is Visibility.TABLE


def _text(actions: tuple[Action, ...]) -> str:
    """The actions in words; draws nothing shows are left out (a dealt card is private)."""
    return ", ".join(a.describe() for a in actions if _shown(a)) or "nothing"
