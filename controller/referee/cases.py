"""Bot games shown to the referee as tables: the cases its conformance test and its bench judge.

A bot plays; before each stretch of one to three actions that show on the table, the table as those
actions leave it is shown to the referee (also with locations covered, and with a wrong piece
slipped in), and the referee's verdicts are followed as the service would: applied actions are
applied, inputs and choices are answered as the players really played. The case is recovered when
the game ends up in exactly the state the players made.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import LocationView, Observation, Seen
from controller.referee.tables import Pieces, changed_locations
from controller.referee.verdict import Verdict, VerdictKind
from rules.core import CHANCE, Action, Decision, State, Visibility
from rules.game import Game
from rules.physical import PlacedPiece, TableObservation
from rules.playout import Policy, choose
from rules.registry import game_named, new_game


class CaseKind(StrEnum):
    """How the table is shown to the referee."""

    SINGLE = "single"  # one action that shows on the table
    MERGED = "merged"  # two or three at once
    COVERED = "covered"  # as SINGLE or MERGED, with some locations unknown
    WRONG_PIECE = "wrong_piece"  # as SINGLE, with a piece no legal action puts there


@dataclass(frozen=True)
class CaseResult:
    """What became of one case."""

    kind: CaseKind
    verdicts: tuple[VerdictKind, ...]
    recovered: bool  # the state the players made was reached
    false_applied: bool  # something was applied that the players did not do (see `unseen`)
    unseen: bool  # not recovered, but the players' state shows the same table: the difference
    # lies in actions nothing on the table shows (a minecart placed and derailed at once)
    alerted: bool
    first_ms: float  # the first verdict's time (wall clock)
    decisions_taken: int = 0  # someone's own decision the referee took for them: must stay 0
    first_cpu_ms: float = 0.0  # the first verdict's work: the thread's CPU time, which other
    # programs on a busy machine do not stretch as they stretch the wall clock


def _resolve(state: State) -> None:
    while state.current_player == CHANCE:
        state.apply(digital_draw(state))


def _key(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def _from_a_phone(state: State, action: Action, referee: Referee) -> bool:
    """An input nothing waits for, or an implied action with nothing on the table to prove it
    (a turn ended with no cart to move): the service gets these from a phone or seat button."""
    if action.VISIBILITY is Visibility.TABLE:
        return False
    if action.VISIBILITY is Visibility.INPUT:
        return any(a.VISIBILITY is not Visibility.INPUT for a in state.legal_actions())
    before = referee.table_of(state)
    with state.applied([action]):
        _resolve(state)  # the draws it calls for, taken back with it
        return referee.table_of(state) == before


def _stretch(
    state: State, rng: random.Random, shown: int, referee: Referee
) -> tuple[list[Action], list[dict[str, Pieces]]] | None:
    """Play until `shown` actions that show on the table were taken (chance by the digital deck);
    None when an input nothing waits for comes first (it would come from a phone)."""
    taken: list[Action] = []
    placed: list[dict[str, Pieces]] = []  # what each action that shows on the table put where
    while len(placed) < shown and not state.is_over:
        action = state.parse_action(choose(state, rng, Policy.BOT))
        if _from_a_phone(state, action, referee):
            break
        before = referee.table_of(state)
        state.apply(action)
        taken.append(state.history[-1])
        if action.VISIBILITY is Visibility.TABLE:
            after = referee.table_of(state)
            placed.append({n: after.get(n, ()) for n in changed_locations(before, after)})
        _resolve(state)
    return (taken, placed) if placed else None


def follow(
    referee: Referee,
    state: State,
    observation: Observation,
    table: dict[str, Pieces],
    truth: list[Action],
    want: str,
    taken: list[Action] | None = None,
) -> tuple[list[Verdict], list[tuple[float, float]]]:
    """Act on verdicts as the service would until the table is judged settled; answer inputs
    and choices as the players played (`truth`, the actions from the state as given). Someone's
    own decision that the referee took for them is added to `taken`."""
    verdicts: list[Verdict] = []
    times: list[tuple[float, float]] = []  # per verdict: wall clock and CPU time, in ms
    mark = len(state.history)
    for _ in range(6):
        start, work = time.perf_counter(), time.thread_time()
        verdict = referee.judge(state, observation, table, digital_draw)
        times.append(((time.perf_counter() - start) * 1000, (time.thread_time() - work) * 1000))
        verdicts.append(verdict)
        applied = list(verdict.actions)
        unanswered = False  # a question the players have not answered yet
        if verdict.kind in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            answer = _answer(state, verdict, truth[len(state.history) - mark :], want)
            # none the players took (the decision is still to come, after the moves seen): the
            # service applies the verdict's actions all the same, and the question waits
            unanswered = answer is None
            applied += answer or []
        elif verdict.kind is not VerdictKind.APPLIED:
            return verdicts, times
        seen_changed = frozenset(
            n for n, v in observation.views.items() if not referee.fits(v, table.get(n, ()))
        )  # where the table is seen to differ from how it lay
        unproven: list[tuple[int, Action]] = []  # unseen choices read, not yet proven
        for index, action in enumerate(applied):
            # the referee's own reading: the actions it applies, and a CHOICE's options (a
            # choice between readings of the table, not the seat's decision); a question's
            # answer is the seat's, if it was asked of the one who decides
            answered = verdict.kind is VerdictKind.NEEDS_INPUT and index >= len(verdict.actions)
            if taken is not None and decided_for(state, action, verdict.seat if answered else -2):
                taken.append(action)
            seat = state.current_player
            before = referee.table_of(state) if unproven or _unseen_choice(action) else None
            state.apply(action)
            if before is None or seat is None or seat < 0:
                continue
            if any(s != seat for s, _ in unproven):  # another seat acted: never proven now
                if taken is not None:
                    taken.extend(a for s, a in unproven if s != seat)
                unproven = [(s, a) for s, a in unproven if s == seat]
            if changed_locations(before, referee.table_of(state)) & seen_changed:
                unproven = []  # the seat's own move shows on the table: it proves them
            if _unseen_choice(action) and not answered:
                unproven.append((seat, action))
        if taken is not None:
            taken.extend(a for _, a in unproven)  # read for a seat, nothing of its proves it
        _resolve(state)
        if unanswered:
            return verdicts, times
        if verdict.settles_table:
            table = {**table, **_exact(observation)}
    return verdicts, times


def _unseen_choice(action: Action) -> bool:
    """A seat's choice nothing on the table settles by itself (a speed die turned, which jewel):
    the referee may read it only where the same seat's own move on the table proves it."""
    return action.VISIBILITY is Visibility.INPUT and not action.CHANCE_OUTCOME


def decided_for(state: State, action: Action, asked: int | None = -2) -> bool:
    """Whether applying `action` now takes someone's own decision (`Decision`) for them: another
    decision was legal, and it was not answered by whoever decides (`asked`: the seat that
    answered, None for the host, -2 when nobody was asked)."""
    if action.CHANCE_OUTCOME or action.DECISION is Decision.NONE:
        return False
    if sum(a.DECISION is not Decision.NONE for a in state.legal_actions()) < 2:
        return False  # nothing else to pick: no decision
    decider = None if action.DECISION is Decision.HOST else state.current_player
    return asked != decider


def _answer(state: State, verdict: Verdict, rest: list[Action], want: str) -> list[Action] | None:
    """The option the players would pick: the one that makes the state they made, or else the
    one whose actions they took next (after the verdict's own), or else one whose actions they
    took at all."""
    for option in verdict.options:
        with state.applied([*verdict.actions, *option.actions]):
            _resolve(state)
            if _key(state) == want:
                return list(option.actions)
    taken = [a for a in rest if not a.CHANCE_OUTCOME]
    after = _less(taken, [a for a in verdict.actions if not a.CHANCE_OUTCOME])
    for option in verdict.options:  # asked which they did, the players say what they did next
        own = [a for a in option.actions if not a.CHANCE_OUTCOME]
        if own and after[: len(own)] == own:
            return list(option.actions)
    for option in verdict.options:
        if all(a in taken for a in option.actions if not a.CHANCE_OUTCOME):
            return list(option.actions)
    return None


def _less(actions: list[Action], some: list[Action]) -> list[Action]:
    """`actions` less the first occurrence of each of `some`, in order."""
    left = list(actions)
    for action in some:
        if action in left:
            left.remove(action)
    return left


def _exact(observation: Observation) -> dict[str, Pieces]:
    return {n: v.pieces for n, v in observation.views.items() if v.seen is Seen.EXACT and v.pieces}


def cases(
    name: str, players: int, seed: int, referee: Referee | None = None, max_steps: int = 400
) -> Iterator[CaseResult]:
    """Play one bot game and judge its tables; one result per case."""
    info: Game[Any] = game_named(name)
    referee = referee or Referee(info)
    names = [loc.name for loc in info.layout({"players": players}).locations]
    state = new_game(name, {"players": players}, seed)
    rng = random.Random(seed)
    kinds = list(CaseKind)
    steps = 0
    while not state.is_over and steps < max_steps:
        steps += 1
        if state.current_player == CHANCE:
            _resolve(state)
            continue
        kind = kinds[steps % len(kinds)]
        shown = 1 if kind in (CaseKind.SINGLE, CaseKind.WRONG_PIECE) else 2 + steps % 2
        before = referee.table_of(state)
        mark = len(state.history)
        stretch = _stretch(state, rng, shown, referee)
        if stretch is None or referee.table_of(state) == before:
            # from a phone, or nothing shows: apply it, no table to judge
            _take_back(state, mark)
            state.apply(choose(state, rng, Policy.BOT))
            _resolve(state)
            continue
        truth = list(state.history[mark:])
        want = _key(state)
        after = referee.table_of(state)
        in_transit = _in_transit(after, stretch[1])
        _take_back(state, mark)
        whole = Observation.exact(
            TableObservation.of(after), sorted(set(names) | set(after) | set(before))
        )
        kind, observation = _shown_as(kind, whole, referee, info, rng)
        taken: list[Action] = []
        verdicts, times = follow(referee, state, observation, before, truth, want, taken)
        if kind is CaseKind.COVERED:  # the hand moves away: the rest must be recovered then
            more, _ = follow(
                referee, state, whole, before, truth[len(state.history) - mark :], want, taken
            )
            verdicts += more
        recovered = _key(state) == want
        done = list(state.history[mark:])
        if kind is CaseKind.WRONG_PIECE:
            false_applied = bool(done)  # a wrong piece is an alert; nothing is applied
        else:
            false_applied = not recovered and not _taken_by_players(done, truth)
        unseen = not recovered and (in_transit or referee.table_of(state) == after)
        yield CaseResult(
            kind,
            tuple(v.kind for v in verdicts),
            recovered,
            false_applied,
            unseen,
            any(v.kind is VerdictKind.ALERT for v in verdicts),
            times[0][0],
            len(taken),
            times[0][1],
        )
        # carry on from the players' real state
        _take_back(state, mark)
        for action in truth:
            state.apply(action)


def _take_back(state: State, mark: int) -> None:
    """Undo every action after the first `mark` of the history."""
    while len(state.history) > mark:
        state.undo()


def _in_transit(after: dict[str, Pieces], placed: list[dict[str, Pieces]]) -> bool:
    """Whether a piece was placed and moved on (or covered by another) before the table settled:
    that leaves no trace of its placing, nothing it put anywhere still lies there."""
    return any(all(after.get(n, ()) != put for n, put in places.items()) for places in placed)


def _shown_as(
    kind: CaseKind, whole: Observation, referee: Referee, info: Game[Any], rng: random.Random
) -> tuple[CaseKind, Observation]:
    """The table as the case shows it: covered in part, or with a wrong piece slipped in (a
    single case when no piece can be slipped in), else whole."""
    if kind is CaseKind.COVERED:
        return kind, _cover(whole, rng)
    if kind is CaseKind.WRONG_PIECE:
        slipped = _slip(referee, whole, info, rng)
        return (CaseKind.SINGLE, whole) if slipped is None else (kind, slipped)
    return kind, whole


def _taken_by_players(done: list[Action], truth: list[Action]) -> bool:
    """Whether every player's action applied is one the players took (in any order)."""
    left = [a for a in truth if not a.CHANCE_OUTCOME]
    for action in done:
        if action.CHANCE_OUTCOME:
            continue
        if action not in left:
            return False
        left.remove(action)
    return True


def _cover(observation: Observation, rng: random.Random) -> Observation:
    names = sorted(observation.views)
    covered = set(rng.sample(names, max(1, len(names) // 10)))
    views = {
        n: LocationView(Seen.UNKNOWN, reason="a hand") if n in covered else v
        for n, v in observation.views.items()
    }
    return Observation(observation.mode, views)


def _slip(
    referee: Referee, observation: Observation, info: Game[Any], rng: random.Random
) -> Observation | None:
    """A second copy of a one-of-a-kind piece already on the table, on an empty location."""
    unique = {e.piece for e in info.catalogue().entries if e.copies == 1}
    on_table = [p for v in observation.views.values() for p in v.pieces if p.piece in unique]
    empty = sorted(n for n, v in observation.views.items() if v.seen is Seen.EXACT and not v.pieces)
    if not on_table or not empty:
        return None
    piece = rng.choice(sorted(on_table))
    where = rng.choice(empty)
    views = dict(observation.views)
    views[where] = LocationView(Seen.EXACT, (PlacedPiece(piece.piece, piece.rotation),))
    return Observation(observation.mode, views)


def bench(games: list[str], seeds: int, players: int | None = None) -> dict[str, float | int | str]:
    """Figures over bot games: verdict times (wall and CPU) and how many tables were recovered."""
    single: list[float] = []
    single_cpu: list[float] = []
    merged: list[float] = []
    merged_cpu: list[float] = []
    counts = {"cases": 0, "recovered": 0, "judged": 0, "false_applied": 0, "in_transit": 0}
    taken = 0
    wrong = {"cases": 0, "alerted": 0}
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    for name in games:
        info = game_named(name)
        for seed in range(seeds):
            count = players or info.min_players + seed % (info.max_players - info.min_players + 1)
            for result in cases(name, count, seed):
                counts["cases"] += 1
                taken += result.decisions_taken
                counts["false_applied"] += result.false_applied and not result.unseen
                if result.kind is CaseKind.WRONG_PIECE:
                    wrong["cases"] += 1
                    wrong["alerted"] += result.alerted
                    continue
                (single if result.kind is CaseKind.SINGLE else merged).append(result.first_ms)
                (single_cpu if result.kind is CaseKind.SINGLE else merged_cpu).append(
                    result.first_cpu_ms
                )
                if result.unseen:
                    counts["in_transit"] += 1
                    continue
                counts["judged"] += 1
                counts["recovered"] += result.recovered
    single.sort()
    single_cpu.sort()
    merged.sort()
    merged_cpu.sort()
    return {
        "games": ",".join(games),
        "seeds": seeds,
        "cases": counts["cases"],
        "infer_p50_ms": round(_quantile(single, 0.5), 2),
        "infer_p99_ms": round(_quantile(single, 0.99), 2),
        "infer_cpu_p99_ms": round(_quantile(single_cpu, 0.99), 2),
        "merged_infer_p50_ms": round(_quantile(merged, 0.5), 2),
        "merged_infer_p99_ms": round(_quantile(merged, 0.99), 2),
        "merged_infer_cpu_p99_ms": round(_quantile(merged_cpu, 0.99), 2),
        "recovered_fraction": round(counts["recovered"] / max(1, counts["judged"]), 4),
        "false_applied": counts["false_applied"],
        "decisions_taken_for_player": taken,
        "wrong_piece_alerted_fraction": round(wrong["alerted"] / max(1, wrong["cases"]), 4),
        "unseen_cases": counts["in_transit"],
        "cpu_s": round(time.process_time() - cpu_start, 2),
        "wall_s": round(time.perf_counter() - wall_start, 2),
    }


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]
