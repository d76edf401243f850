"""The referee's alerts: which changed locations no legal move explains, and what to say of
each (what lies there, what the rules expect, how to put it right, whose turn it is)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping

from controller.referee.instructions import instructions_for
from controller.referee.moves import (
    ChanceResolver,
    draw_digitally,
    field_values,
    holds_secrets,
)
from controller.referee.observe import LocationView, Observation, Seen
from controller.referee.pieces import PieceKnowledge
from controller.referee.search import Limits, Query, Shared, readings
from controller.referee.tables import Pieces, changed_locations
from controller.referee.verdict import (
    Instruction,
    Reason,
    Verdict,
    VerdictKind,
    Wrong,
    WrongLocation,
)
from rules.core import CHANCE, State, Visibility
from rules.physical import Piece, PlacedPiece


def alert_copies(
    pieces: PieceKnowledge, too_many: dict[Piece, list[str]], expected: Mapping[str, Pieces]
) -> Verdict:
    """A piece seen on more locations than the game has of it (with where the rules have it,
    `expected`, so the alert can say which to take it off)."""
    wrong = []
    for piece, names in sorted(too_many.items()):
        seen = LocationView(Seen.EXACT, (PlacedPiece(piece),))
        belongs = tuple(n for n in names if any(p.piece == piece for p in expected.get(n, ())))
        for name in names:
            wrong.append(
                WrongLocation(
                    name,
                    seen,
                    (),
                    Wrong.TOO_MANY,
                    places=tuple(names),
                    copies=pieces.copies(piece),
                    belongs=belongs,
                )
            )
    return Verdict(
        VerdictKind.ALERT,
        Reason.TOO_MANY,
        wrong=tuple(wrong),
        locations=tuple(sorted({w.location for w in wrong})),
    )


def unexplained(
    pieces: PieceKnowledge,
    limits: Limits,
    state: State,
    observation: Observation,
    query: Query,
    wrong: frozenset[str],
    resolve_chance: ChanceResolver | None,
    shared: Shared | None = None,
) -> frozenset[str]:
    """The changed locations no legal reading explains. Where a legal reading explains the
    others exactly (a lead laid before a revoke), the alert names only the rest: the fewest
    locations (one or two) that, seen as they were, leave a table the rules explain."""
    if len(wrong) < 2:
        return wrong
    expected, every = query.base_table, query.names
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
            pending = frozenset(
                n for n in every if not pieces.fits(seen.view(n), expected.get(n, ()))
            )
            tried = Query(
                query.changed - frozenset(rest),
                pending,
                expected,
                every,
                False,
                seen.covered() & every,
                min(left, limits.node_budget // 8),
                locked=query.locked,
            )
            found = readings(state, seen, tried, pieces, limits, resolve_chance, shared)
            left -= found.nodes
            if any(not (c.leftover - pending) for c in found.best):
                return frozenset(rest)
    return wrong


def alert(
    pieces: PieceKnowledge,
    state: State,
    observation: Observation,
    expected: Mapping[str, Pieces],
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
    secret = bool(legal) and turn is not None and holds_secrets(state, turn)
    wrong = []
    for name in sorted(wrong_names):
        view = observation.view(name)
        seen = LocationView(view.seen, pieces.canonical(view.pieces), view.magnet)
        (fix,) = instructions_for(pieces, [name], expected, observation)
        found = WrongLocation(
            name,
            seen,
            expected.get(name, ()),
            Wrong.NO_LEGAL_MOVE,
            turn=turn,
            fix=fix if fix.does_something else None,
        )
        moves = [a for a in legal if a.VISIBILITY is Visibility.TABLE and name in field_values(a)]
        if computer:
            found = dataclasses.replace(found, why=Wrong.COMPUTER_SEAT)
        elif moves and secret:  # only the kinds: that seat's own phone shows which
            kinds = tuple(dict.fromkeys(a.TYPE for a in moves))
            found = dataclasses.replace(found, why=Wrong.LEGAL_HERE, legal_kinds=kinds)
        elif moves:
            found = dataclasses.replace(found, why=Wrong.LEGAL_HERE, legal_here=tuple(moves))
        else:
            early = out_of_turn(pieces, state, name, resolve_chance)
            if early is not None:
                mover, todo = early
                found = dataclasses.replace(found, why=Wrong.OUT_OF_TURN, mover=mover, todo=todo)
        wrong.append(found)
    return Verdict(
        VerdictKind.ALERT,
        Reason.NOT_LEGAL,
        wrong=tuple(wrong),
        locations=tuple(w.location for w in wrong),
    )


def out_of_turn(
    pieces: PieceKnowledge, state: State, name: str, resolve_chance: ChanceResolver | None
) -> tuple[int, tuple[Instruction, ...]] | None:
    """For a change at `name` that would be a later seat's legal move once the seat to act (and
    any seats between) ended their turns, which the table does not show: whose move it would be,
    and what the seat to act still has to do (its minecart still to move)."""
    turn = state.current_player
    if turn is None or turn < 0:
        return None
    before = pieces.table_of(state)
    mover: int | None = None
    todo: tuple[Instruction, ...] = ()
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
                todo = _still_to_do(before, pieces.table_of(state))
            draw_digitally(state, resolve_chance, done, 64)
            after = state.current_player
            if after is None or after < 0 or after == turn:
                return None
            if any(
                a.VISIBILITY is Visibility.TABLE and name in field_values(a)
                for a in state.legal_actions()
            ):
                mover = after
                break
    if mover is None:
        return None
    return mover, todo


def _still_to_do(
    before: Mapping[str, Pieces], moved: Mapping[str, Pieces]
) -> tuple[Instruction, ...]:
    """What ending the turn moves on the table: the seat still has to do it by hand."""
    todo = []
    for where in sorted(changed_locations(before, moved)):
        was, now = before.get(where, ()), moved.get(where, ())
        take_off = tuple(p for p in was if p not in now)
        put_on = tuple(p for p in now if p not in was)
        todo.append(Instruction(where, take_off, put_on, now))
    return tuple(todo)
