"""The referee: what lies on the table, against what the rules expect, as one verdict.

Pure and generic: it reaches a game only through the `State` interface and its `Game`: the
expected table of a state (`Game.expected_table`) and the catalogue. Given the state, the table as
last accepted (`table`: what is believed to lie physically on each location) and a settled
observation, it searches short sequences of legal actions for the ones that leave the table
exactly as observed:

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

The parts follow the flow: `pieces` (what a piece is and how it fits what is seen), `search`
(the readings of a table), `rulings` and `alerts` (from readings to a verdict), `verdict`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from controller.referee import alerts, rulings
from controller.referee.moves import ChanceResolver, after_seen_draw, field_values
from controller.referee.observe import LocationView, Observation
from controller.referee.pieces import PieceKnowledge
from controller.referee.search import Limits, Query, Shared, readings
from controller.referee.tables import Pieces, changed_locations
from controller.referee.verdict import Reason, Verdict, VerdictKind
from rules.core import CHANCE, Action, State, Visibility
from rules.game import Game
from rules.physical import Piece, PlacedPiece, Table

__all__ = ["ChanceResolver", "Limits", "Referee"]


class Referee:
    """Judges settled tables for one game (its `Game` gives the physical form)."""

    def __init__(self, game: Game[Any], limits: Limits | None = None) -> None:
        self.pieces = PieceKnowledge(game.catalogue(), game.expected_table, game.table_while_played)
        self.limits = limits or Limits()

    # ---- what the pieces know, for the game's owner
    def canonical(self, pieces: Iterable[PlacedPiece]) -> Pieces:
        return self.pieces.canonical(pieces)

    def table_of(self, state: State) -> dict[str, Pieces]:
        return self.pieces.table_of(state)

    def table_as_laid(self, state: State, action: Action) -> dict[str, Pieces] | None:
        return self.pieces.table_as_laid(state, action)

    def fits(self, view: LocationView, pieces: Pieces) -> bool:
        return self.pieces.fits(view, pieces)

    def is_magnetic(self, piece: Piece) -> bool:
        return self.pieces.is_magnetic(piece)

    def describe_piece(self, placed: PlacedPiece) -> str:
        return self.pieces.describe_piece(placed)

    # ---- the verdict
    def judge(
        self,
        state: State,
        observation: Observation,
        table: Table | None = None,
        resolve_chance: ChanceResolver | None = None,
        locked: frozenset[int] = frozenset(),
    ) -> Verdict:
        """One verdict for a settled observation. `table` is what was believed to lie on the table
        before it (None: what the rules expect now). The state is left as it was.

        `locked` seats (computer players) act only through their own decisions: no reading of
        the table takes an action of theirs, so pieces moved on a computer's turn before its
        decision (or elsewhere than it said) are an alert, never a move of its."""
        pieces = self.pieces
        expected = pieces.table_of(state)
        too_many = pieces.too_many(observation)
        if too_many:
            before = expected if table is None else pieces.base(table)
            return alerts.alert_copies(pieces, too_many, before)
        base = expected if table is None else pieces.base(table)
        names = sorted(set(observation.views) | set(expected) | set(base))
        changed = frozenset(
            n for n in names if not pieces.fits(observation.view(n), base.get(n, ()))
        )
        mismatch = frozenset(
            n for n in names if not pieces.fits(observation.view(n), expected.get(n, ()))
        )
        if not mismatch:
            return self._in_sync(state, resolve_chance)
        turn = state.current_player
        if turn is not None and turn in locked and after_seen_draw(state):
            # the computer's move right after a draw the table shows (the tile it turned up,
            # laid as whoever turned it laid it): it decides, then the table follows it
            return rulings.computer_decides((), turn)
        if not changed & mismatch:
            # every change brings the table closer to the rules: players are following them
            return rulings.instructions(pieces, observation, expected, mismatch)
        if state.is_over:
            return alerts.alert(pieces, state, observation, expected, changed & mismatch)
        every = frozenset(names)
        hidden = observation.covered() & every
        query = Query(
            changed,
            mismatch,
            expected,
            every,
            False,
            hidden,
            self.limits.node_budget,
            locked=locked,
        )
        return self._read(state, observation, query, resolve_chance)

    def _in_sync(self, state: State, resolve_chance: ChanceResolver | None) -> Verdict:
        question = rulings.decision_waiting(state, (), resolve_chance)
        if question is not None:  # the rules wait for someone's own decision: ask it
            return dataclasses.replace(question, follows=Reason.AS_EXPECTED)
        return Verdict(VerdictKind.IN_SYNC, Reason.AS_EXPECTED)

    def _read(
        self,
        state: State,
        observation: Observation,
        query: Query,
        resolve_chance: ChanceResolver | None,
    ) -> Verdict:
        """Search the readings of a changed table; failing them, wait for what is covered,
        offer a take-back, or alert."""
        pieces, limits = self.pieces, self.limits
        shared = Shared()  # the rules' side of each step, for every search below
        best = readings(state, observation, query, pieces, limits, resolve_chance, shared).best
        if not best:
            with_inputs = dataclasses.replace(
                query, optional_inputs=True, budget=limits.input_budget
            )
            found = readings(
                state, observation, with_inputs, pieces, limits, resolve_chance, shared
            )
            best = found.best
        if best:
            return rulings.decide(pieces, state, observation, best, resolve_chance, query.locked)
        hidden = query.covered
        if hidden:  # unknown locations are never evidence for an alert: could they explain it?
            any_reading = dataclasses.replace(
                query, changed=query.changed | hidden, one_is_enough=True
            )
            if readings(
                state, observation, any_reading, pieces, limits, resolve_chance, shared
            ).best:
                return Verdict(
                    VerdictKind.WAITING, Reason.NEEDS_COVERED, locations=tuple(sorted(hidden))
                )
        back = rulings.take_back(pieces, limits.take_back_depth, state, observation, query.changed)
        if back is not None:
            return back
        wrong = alerts.unexplained(
            pieces,
            limits,
            state,
            observation,
            query,
            query.changed & query.pending,
            resolve_chance,
            shared,
        )
        return alerts.alert(
            pieces, state, observation, query.base_table, wrong, query.locked, resolve_chance
        )

    # ---- while a piece is in the air
    def destinations(self, state: State, lifted: str) -> frozenset[str]:
        """Where the rules let the piece lifted from `lifted` go now: the locations a legal
        action (or its consequences) puts that piece on."""
        if state.is_over or state.current_player == CHANCE:
            return frozenset()
        pieces = self.pieces
        before = pieces.table_of(state)
        moving = {p.piece for p in before.get(lifted, ()) if pieces.is_magnetic(p.piece)}
        if not moving:
            return frozenset()
        found: set[str] = set()
        for action in state.legal_actions():
            if action.VISIBILITY is Visibility.INPUT:
                continue
            if action.VISIBILITY is Visibility.TABLE and lifted not in field_values(action):
                continue
            with state.applied([action]):
                after = pieces.table_of(state)
            for name in changed_locations(before, after):
                if name != lifted and any(p.piece in moving for p in after.get(name, ())):
                    found.add(name)
        return frozenset(found)
