"""From the readings a search found to one verdict: apply, ask, offer a choice or wait."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from controller.referee.alerts import alert
from controller.referee.instructions import instructions_for
from controller.referee.moves import ChanceResolver, common_prefix, waiting
from controller.referee.observe import Observation
from controller.referee.paths import Candidate
from controller.referee.pieces import PieceKnowledge
from controller.referee.tables import Pieces, changed_locations
from controller.referee.verdict import (
    Alternative,
    Instruction,
    Reason,
    Verdict,
    VerdictKind,
    shown,
)
from rules.core import Action, Decision, State, Visibility

_NONE = Decision.NONE


def decide(
    pieces: PieceKnowledge,
    state: State,
    observation: Observation,
    best: list[Candidate],
    resolve_chance: ChanceResolver | None,
    locked: frozenset[int] = frozenset(),
) -> Verdict:
    """The verdict on the best readings of a table."""
    wait = _waiting_for_covered(observation, best)
    if wait is not None:
        return wait
    by_state: dict[str, Candidate] = {}
    for cand in best:
        known = by_state.get(cand.state_key)
        if known is None or len(cand.actions) < len(known.actions):
            by_state[cand.state_key] = cand
    readings = sorted(by_state.values(), key=lambda c: (len(c.actions), _described(c.actions)))
    # A reading that reaches a question (a seat's own decision, an input the table cannot
    # tell) is applied only up to it: nothing past it is taken for anyone.
    parts: dict[tuple[Action, ...], bool] = {}
    for cand in readings:
        part = cand.actions if cand.asked is None else cand.actions[: cand.asked]
        parts[part] = parts.get(part, False) or cand.asked is not None
    if len(parts) == 1:
        ((part, asks),) = parts.items()
        if asks:
            seat, _ = waiting(state, part, resolve_chance)
            if seat is not None and seat in locked:
                return computer_decides(part, seat)
            return ask(state, part, resolve_chance)
        return applied(pieces, state, observation, readings[0], resolve_chance)
    return _between(pieces, state, readings, parts, resolve_chance)


def _waiting_for_covered(observation: Observation, best: list[Candidate]) -> Verdict | None:
    """Wait for what is hidden for now (a hand); what no input can ever see (a starting area
    with the sensor board alone, a tile under a wagon) is never waited for: the readings rest
    on what is seen, and where they differ the seat is asked."""
    covered = frozenset().union(*(c.covered for c in best)) & observation.covered()
    if covered:
        return Verdict(VerdictKind.WAITING, Reason.COVERED, locations=tuple(sorted(covered)))
    if observation.covered() and any(c.by_hand > 1 or c.seats > 1 or c.implied for c in best):
        covered_now = tuple(sorted(observation.covered()))
        return Verdict(VerdictKind.WAITING, Reason.COVERED_MANY, locations=covered_now)
    return None


def _between(
    pieces: PieceKnowledge,
    state: State,
    readings: list[Candidate],
    parts: dict[tuple[Action, ...], bool],
    resolve_chance: ChanceResolver | None,
) -> Verdict:
    """More than one reading: wait for a draw to show, ask for an input, or offer a choice."""
    sequences = list(parts)
    prefix = common_prefix(sequences)
    seat, _ = waiting(state, prefix, resolve_chance)
    splits = {p[len(prefix)] for p in sequences if len(p) > len(prefix)}
    if splits and all(a.CHANCE_OUTCOME and a.VISIBILITY is Visibility.TABLE for a in splits):
        # a real draw the table will show, not shown yet (a tile turned up, still in hand)
        before, where = pieces.table_of(state), set[str]()
        for cand in readings:
            with state.applied(cand.actions):
                where |= changed_locations(before, pieces.table_of(state))
        return Verdict(
            VerdictKind.WAITING,
            Reason.DRAW_NOT_SHOWN,
            locations=tuple(sorted(where)),
            drawn=tuple(sorted(splits, key=lambda a: a.describe())),
        )
    if splits and all(a.VISIBILITY is Visibility.INPUT for a in splits):
        return ask(state, prefix, resolve_chance, sorted(splits, key=lambda a: a.describe()))
    options = tuple(Alternative(p[len(prefix) :], parts[p]) for p in sequences)
    return Verdict(
        VerdictKind.CHOICE, Reason.MANY_READINGS, actions=prefix, options=options, seat=seat
    )


def computer_decides(prefix: tuple[Action, ...], seat: int) -> Verdict:
    """A reading that reaches a computer seat's action: what came before it is applied (a
    draw the table shows), the action itself is the computer's to decide."""
    if prefix:
        return Verdict(VerdictKind.APPLIED, Reason.COMPUTER_DECIDES, actions=prefix, seat=seat)
    return Verdict(VerdictKind.WAITING, Reason.COMPUTER_DECIDES, seat=seat)


def ask(
    state: State,
    prefix: tuple[Action, ...],
    resolve_chance: ChanceResolver | None,
    seen: list[Action] | None = None,
) -> Verdict:
    """Apply `prefix`, then ask whoever decides for the input the table cannot show: the
    seat to act, or the host for a real draw or a ruling (`Decision.HOST`). A hidden choice
    (`Decision.HIDDEN`) is asked in words that do not show its options."""
    seat, legal = waiting(state, prefix, resolve_chance)
    asked = [a for a in legal if a.VISIBILITY is Visibility.INPUT] or seen or []
    options = tuple(Alternative((a,)) for a in asked)
    decisions = {a.DECISION for a in asked} - {_NONE}
    if Decision.HOST in decisions:
        seat = None
    hidden = Decision.HIDDEN in decisions
    if hidden:
        reason = Reason.HIDDEN_CHOICE
    elif decisions:
        reason = Reason.OWN_DECISION
    else:
        reason = Reason.UNSEEN_INPUT
    return Verdict(
        VerdictKind.NEEDS_INPUT,
        reason,
        actions=prefix,
        options=options,
        seat=seat,
        hidden=hidden,
        asked_kinds=tuple(sorted({a.TYPE for a in asked})) if hidden else (),
    )


def decision_waiting(
    state: State, prefix: tuple[Action, ...], resolve_chance: ChanceResolver | None
) -> Verdict | None:
    """The question, if the rules wait for someone's own decision (`Decision`) once
    `prefix` is applied: everything legal then is one, and there is more than one."""
    _, legal = waiting(state, prefix, resolve_chance)
    if len(legal) > 1 and all(a.DECISION is not _NONE for a in legal):
        return ask(state, prefix, resolve_chance)
    return None


def applied(
    pieces: PieceKnowledge,
    state: State,
    observation: Observation,
    cand: Candidate,
    resolve_chance: ChanceResolver | None,
) -> Verdict:
    """Apply one reading; what it leaves to players to do becomes instructions."""
    instructions: tuple[Instruction, ...] = ()
    if cand.leftover:
        with state.applied(cand.actions):
            after = pieces.table_of(state)
        instructions = instructions_for(pieces, cand.leftover, after, observation)
    question = decision_waiting(state, cand.actions, resolve_chance)
    if question is not None:  # the rules now wait for someone's own decision: ask it
        return dataclasses.replace(
            question,
            follows=Reason.SEEN,
            instructions=instructions,
            locations=tuple(sorted(cand.leftover)),
        )
    return Verdict(
        VerdictKind.APPLIED,
        Reason.SEEN,
        actions=cand.actions,
        instructions=instructions,
        locations=tuple(sorted(cand.leftover)),
    )


def instructions(
    pieces: PieceKnowledge,
    observation: Observation,
    expected: Mapping[str, Pieces],
    mismatch: frozenset[str],
) -> Verdict:
    """Players are carrying out what the rules did: what is left to do."""
    steps = instructions_for(pieces, mismatch, expected, observation)
    return Verdict(
        VerdictKind.INSTRUCTIONS,
        Reason.FOLLOWING,
        instructions=steps,
        locations=tuple(sorted(mismatch)),
    )


def take_back(
    pieces: PieceKnowledge,
    depth: int,
    state: State,
    observation: Observation,
    changed: frozenset[str],
) -> Verdict | None:
    """The table back to how it was before the last actions: offer to take them back.

    A draw the digital deck made goes back with them, as a card goes back on top of the deck
    (made again, the move draws the same card: the deck draws from the game's secret and the
    number of steps). A real draw (a card turned up on the table, a gem said from the bag)
    is not taken back by the referee: the table back to before it is an alert saying so."""
    found = _back_to(pieces, depth, state, observation)
    if found is None:
        return None
    taken, real = found
    if real:
        said = alert(pieces, state, observation, pieces.table_of(state), changed)
        played_back = tuple(a for a in taken if not a.CHANCE_OUTCOME)
        return dataclasses.replace(
            said, reason=Reason.REAL_DRAW_KEPT, taken=played_back, drawn=tuple(real)
        )
    return Verdict(
        VerdictKind.TAKE_BACK,
        Reason.BACK_TO_BEFORE,
        actions=taken,
        undo=len(taken),
        locations=tuple(sorted(changed)),
    )


def _back_to(
    pieces: PieceKnowledge, depth: int, state: State, observation: Observation
) -> tuple[tuple[Action, ...], list[Action]] | None:
    """The last actions (at most `depth` players' ones) the table is back to before, and the
    real draws among them; the state is left as it was."""
    undone: list[Action] = []
    played = 0
    real: list[Action] = []  # real draws undone on the way
    try:
        while played < depth and state.history:
            action = state.undo()
            undone.append(action)
            if action.CHANCE_OUTCOME:
                if state.observed_chance():
                    real.insert(0, action)
                continue
            played += 1  # a player's action: its table (a minecart the rules drove, too)
            earlier = pieces.table_of(state)
            names = set(observation.views) | set(earlier)
            if all(pieces.fits(observation.view(n), earlier.get(n, ())) for n in names):
                return tuple(reversed(undone)), real
    finally:
        for action in reversed(undone):
            state.apply(action)
    return None


def _described(actions: tuple[Action, ...]) -> str:
    """A stable order for readings of the same length (the short forms of the actions shown)."""
    return ", ".join(a.describe() for a in actions if shown(a)) or "nothing"
