"""The last card of a trick lands in its slot before the trick is resolved by hand: the referee
applies the play and asks for the resolution, instead of calling the laid card illegal."""

from __future__ import annotations

import random

import rules
from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import Observation
from controller.referee.verdict import VerdictKind
from controller.words.verdicts import plain_line
from rules.core import CHANCE, State
from rules.physical import TableObservation
from rules.trickoftherails import physical
from rules.trickoftherails.actions import Play

INFO = rules.game_info("trickoftherails")
REFEREE = Referee.for_game(INFO)
NAMES = [loc.name for loc in physical.layout().locations]


def _last_card_of_a_trick(seed: int) -> tuple[State, Play]:
    """A game at the moment the last card of a trick is to be played."""
    state = rules.new_game("trickoftherails", {"players": 3}, seed)
    rng = random.Random(seed)
    for _ in range(400):
        while state.current_player == CHANCE:
            state.apply(digital_draw(state))
        plays = [a for a in state.legal_actions() if isinstance(a, Play)]
        for play in plays:
            laid = REFEREE.table_as_laid(state, play)
            with state.applied([play]):
                after = REFEREE.table_of(state)
            if laid is not None and laid != after:
                return state, play
        state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no trick ended")


def test_the_last_card_of_a_trick_is_applied_and_the_resolution_asked_for() -> None:
    for seed in (1, 2, 3):
        state, play = _last_card_of_a_trick(seed)
        laid = INFO.table_while_played(state, play)  # type: ignore[misc]
        assert laid is not None
        observation = Observation.exact(TableObservation.of(dict(laid.pieces)), NAMES)
        verdict = REFEREE.judge(state, observation, None, digital_draw)
        assert verdict.kind is VerdictKind.APPLIED, plain_line(verdict, INFO)
        assert verdict.actions[0] == play, plain_line(verdict, INFO)
        assert verdict.instructions, "the trick's resolution is left for players to carry out"
        for action in verdict.actions:
            state.apply(action)
        resolved = Observation.exact(TableObservation.of(REFEREE.table_of(state)), NAMES)
        assert REFEREE.judge(state, resolved, laid, digital_draw).kind is VerdictKind.IN_SYNC


def _two_plays(seed: int) -> tuple[State, list[Play]]:
    """A trick's lead and the next seat's card, both legal, at the start of a trick."""
    state = rules.new_game("trickoftherails", {"players": 3}, seed)
    rng = random.Random(seed)
    for _ in range(400):
        while state.current_player == CHANCE:
            state.apply(digital_draw(state))
        plays = [a for a in state.legal_actions() if isinstance(a, Play)]
        if plays and not state.d.trick:  # type: ignore[attr-defined]
            lead = plays[0]
            with state.applied([lead]):
                while state.current_player == CHANCE:
                    state.apply(digital_draw(state))
                follow = [a for a in state.legal_actions() if isinstance(a, Play)]
            if follow:
                return state, [lead, follow[0]]
        state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no trick began")


def test_a_move_under_a_hand_is_waited_for_not_alerted() -> None:
    state, (lead, follow) = _two_plays(4)
    lead_slot = f"seat.{state.current_player}.trick"
    with state.applied([lead, follow]):
        after = REFEREE.table_of(state)
    covered = Observation.exact(TableObservation.of(after, (lead_slot,)), NAMES)
    verdict = REFEREE.judge(state, covered, None, digital_draw)
    assert verdict.kind is VerdictKind.WAITING, plain_line(verdict, INFO)
    assert lead_slot in verdict.locations
    seen = Observation.exact(TableObservation.of(after), NAMES)
    verdict = REFEREE.judge(state, seen, None, digital_draw)
    assert verdict.kind is VerdictKind.APPLIED and list(verdict.actions[:1]) == [lead], plain_line(
        verdict, INFO
    )
