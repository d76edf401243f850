"""The referee never decides for a player, and takes back across the digital deck's draws.

A seat's own decision that nothing on the table settles (`rules.core.Decision`: which jewel, a
hidden split, the pile dropped, who starts, the host's remedy for a revoke) is asked of whoever
decides, never applied as part of the moves the referee reads off the table. A take-back undoes
the digital deck's draws with the move; a real draw is never taken back by the referee.
"""

from __future__ import annotations

import json
import random

import pytest

import rules
from controller.referee.cases import cases, decided_for
from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import Observation
from controller.referee.verdict import Verdict, VerdictKind
from controller.words.verdicts import plain_line
from rules.core import CHANCE, Action, Decision, State
from rules.physical import Piece, PlacedPiece, TableObservation
from rules.scenario import set_path

OTR = rules.game_info("offtherails")
REFEREE = Referee.for_game(OTR)


def _seen(info: rules.GameInfo, state: State, table: dict[str, object]) -> Observation:
    assert info.layout is not None
    names = [loc.name for loc in info.layout(state.options).locations]
    return Observation.exact(TableObservation.of(table), names)  # type: ignore[arg-type]


def _resolve(state: State) -> None:
    while state.current_player == CHANCE and not state.observed_chance():
        state.apply(digital_draw(state))


def _collision(options: dict[str, object] | None = None) -> State:
    """Off the Rails, 2 players, seat 0 to act: its red minecart (an emerald aboard) will hit
    seat 1's green one (a ruby and a gold aboard) once its action phase ends."""
    state = rules.new_game("offtherails", {"players": 2, **(options or {})}, 1)
    state.apply({"type": "choose_side", "side": "north"})
    while state.current_player == CHANCE:  # the digital deck's draws, or the real cards'
        state.apply(digital_draw(state))
    data = state.to_json()
    straight = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
    data["board"] = {square: dict(straight) for square in ("F11", "F10", "F9", "F8")}
    for path, value in {
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F12",
        "carts.red-white.heading": "S",
        "carts.red-white.speed": 3,
        "carts.red-white.hold": {"emerald": 1},
        "carts.green-white.status": "on_board",
        "carts.green-white.square": "F9",
        "carts.green-white.heading": "S",
        "carts.green-white.hold": {"ruby": 1, "gold": 1},
    }.items():
        set_path(data, path, value)
    return rules.state_from_json(data)


def _table_after(state: State, actions: list[dict[str, object]]) -> dict[str, object]:
    with state.applied([]):
        for action in actions:
            state.apply(action)
            _resolve(state)
        return dict(REFEREE.table_of(state))


def _no_decision_taken(state: State, verdict: Verdict) -> None:
    """Nothing the verdict applies is someone's own decision taken for them."""
    with state.applied([]):
        for action in verdict.actions:
            assert not decided_for(state, action), action.describe()
            state.apply(action)


def test_the_hidden_split_is_asked_of_the_hit_carts_owner_alone() -> None:
    state = _collision()
    before = state.to_json()
    table = _table_after(state, [{"type": "end_actions"}])
    verdict = REFEREE.judge(state, _seen(OTR, state, table), None, digital_draw)
    assert verdict.kind is VerdictKind.NEEDS_INPUT
    assert [a.TYPE for a in verdict.actions] == ["end_actions"]
    assert verdict.seat == 1 and verdict.hidden
    assert sorted(o.actions[0].describe() for o in verdict.options) == [
        "split(pile=[gold])",
        "split(pile=[ruby])",
    ]
    assert "gold" not in plain_line(verdict, OTR) and "ruby" not in plain_line(
        verdict, OTR
    )  # its words show no pile
    assert verdict.to_json()["hidden"] is True
    assert state.to_json() == before


def test_the_players_going_on_never_makes_the_referee_split_or_drop_for_them() -> None:
    state = _collision()
    table = _table_after(
        state,
        [
            {"type": "end_actions"},
            {"type": "split", "pile": ["ruby"]},
            {"type": "drop_pile", "pile": 2},
            {"type": "place_cart", "cart": "green-black", "square": "F1"},
        ],
    )
    seen = _seen(OTR, state, table)
    base = REFEREE.table_of(state)
    verdict = REFEREE.judge(state, seen, base, digital_draw)
    assert verdict.kind is VerdictKind.NEEDS_INPUT and verdict.seat == 1 and verdict.hidden
    assert [a.TYPE for a in verdict.actions] == ["end_actions"]
    _no_decision_taken(state, verdict)
    for action in verdict.actions:
        state.apply(action)
    state.apply({"type": "split", "pile": ["ruby"]})  # seat 1's answer, on its phone
    verdict = REFEREE.judge(state, seen, base, digital_draw)
    assert verdict.kind is VerdictKind.NEEDS_INPUT and verdict.seat == 0 and not verdict.hidden
    assert verdict.actions == () and {o.actions[0].TYPE for o in verdict.options} == {"drop_pile"}
    state.apply({"type": "drop_pile", "pile": 2})  # seat 0's answer
    verdict = REFEREE.judge(state, seen, base, digital_draw)
    assert verdict.kind is VerdictKind.APPLIED
    assert [a.describe() for a in verdict.actions if not a.CHANCE_OUTCOME] == [
        "place_cart(cart=green-black, square=F1)"
    ]


def test_a_decision_the_rules_wait_for_on_a_table_in_sync_is_asked() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    verdict = REFEREE.judge(state, _seen(OTR, state, REFEREE.table_of(state)))
    assert verdict.kind is VerdictKind.NEEDS_INPUT and verdict.seat == 0
    assert {o.actions[0].TYPE for o in verdict.options} == {"choose_side"}


def test_a_decision_is_taken_for_a_seat_unless_that_seat_answered_it() -> None:
    state = _collision()
    state.apply({"type": "end_actions"})
    split, _ = state.legal_actions()  # seat 1's hidden split: two ways
    assert decided_for(state, split)  # applied by the referee
    assert not decided_for(state, split, asked=1)  # seat 1 answered it: its own decision
    assert decided_for(state, split, asked=None)  # the host answered it: not the host's
    assert not decided_for(state, state.parse_action({"type": "route", "exit": "N"}))


DECISIONS = {
    "offtherails": {
        "choose_side": Decision.FREE,
        "take_jewel": Decision.FREE,
        "split": Decision.HIDDEN,
        "drop_pile": Decision.FREE,
        "claim_mission": Decision.FREE,
    },
    "derailed": {"choose_starter": Decision.FREE},
    "trickoftherails": {"settle_revoke": Decision.HOST},
    "minewagons": {},
}


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_each_games_decisions_are_marked(name: str) -> None:
    """The games' own decisions, as docs/rules/<game>.md lists them; chance is nobody's."""
    classes = rules.game_info(name).state_class.CODEC.classes
    marked = {t: c.DECISION for t, c in classes.items() if c.DECISION is not Decision.NONE}
    assert marked == DECISIONS[name]
    assert not any(classes[t].CHANCE_OUTCOME for t in marked)


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_bot_games_shown_to_the_referee_take_no_decision_for_anyone(name: str) -> None:
    info = rules.game_info(name)
    results = [r for seed in range(2) for r in cases(name, info.min_players + seed, seed)]
    assert results and sum(r.decisions_taken for r in results) == 0


# ---- take-backs across a draw


def _derailed() -> State:
    state = rules.new_game("derailed", {"players": 2}, 1)
    _resolve(state)
    return state


def test_a_take_back_undoes_the_digital_draw_and_the_move_again_draws_the_same() -> None:
    info = rules.game_info("derailed")
    referee = Referee.for_game(info)
    state = _derailed()
    before = referee.table_of(state)
    play = state.legal_actions()[0]
    state.apply(play)
    _resolve(state)
    drawn = state.history[-1]
    assert drawn.CHANCE_OUTCOME and drawn.TYPE == "draw"
    after = state.to_json()
    verdict = referee.judge(state, _seen(info, state, before), None, digital_draw)
    assert verdict.kind is VerdictKind.TAKE_BACK
    assert verdict.actions == (play, drawn) and verdict.undo == 2
    assert state.to_json() == after  # judged, not done
    assert "card" not in str(verdict.to_json()["actions"][1:])  # the draw stays on its phone
    assert verdict.to_json()["actions"] == [play.to_json()]
    for _ in range(verdict.undo):
        state.undo()
    assert referee.table_of(state) == before
    state.apply(play)
    _resolve(state)
    assert state.history[-1] == drawn and state.to_json() == after


def test_a_real_draw_is_not_taken_back_and_the_alert_says_so() -> None:
    state = _collision({"deposit_deck": "physical"})
    data = state.to_json()
    data["carts"]["green-white"].update(status="supply", square=None)  # nobody to hit
    data["carts"]["green-white"]["hold"] = {g: 0 for g in data["carts"]["green-white"]["hold"]}
    state = rules.state_from_json(data)
    before = REFEREE.table_of(state)
    state.apply({"type": "end_actions"})
    assert state.current_player == CHANCE and state.observed_chance()
    outcome = next(a for a, p in state.chance_outcomes() if p > 0 and a.TYPE == "reveal_deposit")
    state.apply(outcome)  # the card turned up in the reveal slot
    while state.current_player == CHANCE:
        state.apply(next(a for a, p in state.chance_outcomes() if p > 0))  # gems said
    verdict = REFEREE.judge(state, _seen(OTR, state, before), None, digital_draw)
    assert verdict.kind is VerdictKind.ALERT
    assert "referee never takes back a real draw" in plain_line(verdict, OTR)
    assert outcome.words() in plain_line(verdict, OTR)


def test_a_take_back_reaches_back_over_several_moves_and_their_draws() -> None:
    info = rules.game_info("derailed")
    referee = Referee.for_game(info)
    state = _derailed()
    start = referee.table_of(state)
    rng = random.Random(2)
    played: list[Action] = []
    for _ in range(2):
        action = rng.choice(state.legal_actions())
        played.append(action)
        state.apply(action)
        _resolve(state)
    verdict = referee.judge(state, _seen(info, state, start), None, digital_draw)
    assert verdict.kind is VerdictKind.TAKE_BACK
    assert [a for a in verdict.actions if not a.CHANCE_OUTCOME] == played
    assert verdict.undo == 4  # two plays, each with its draw


class _ReadsAnotherSeatsMove(Referee):
    """A referee that reads green's minecart put down as red's speed change, red's end and
    green's move (issue 36, situation 1), then finds the table in sync."""

    def __init__(self, reading: list[Action]) -> None:
        self.__dict__.update(REFEREE.__dict__)
        self.reading = reading

    def judge(self, state: State, *args: object, **kwargs: object) -> Verdict:
        if state.history[-len(self.reading) :] == self.reading:
            return Verdict(VerdictKind.IN_SYNC, "the table is as the rules expect")
        return Verdict(VerdictKind.APPLIED, "applied", actions=tuple(self.reading))


def test_the_bench_counts_a_speed_change_read_to_explain_another_seats_move() -> None:
    from controller.referee.cases import follow

    state = rules.new_game("offtherails", {"players": 2}, 1)
    state.apply({"type": "choose_side", "side": "north"})
    _resolve(state)
    data = state.to_json()
    straight = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
    data["board"] = {square: dict(straight) for square in ("F11", "F10", "F9")}
    for path, value in {
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F12",
        "carts.red-white.heading": "S",
        "carts.red-white.speed": 3,
    }.items():
        set_path(data, path, value)
    state = rules.state_from_json(data)
    table = dict(REFEREE.table_of(state))
    mark = len(state.history)
    with state.applied([]):
        state.apply({"type": "set_speed", "cart": "red-white", "speed": 4})
        state.apply({"type": "end_actions"})
        _resolve(state)
        state.apply({"type": "place_cart", "cart": "green-white", "square": "F1"})
        reading = list(state.history[mark:])
        seen = dict(REFEREE.table_of(state))
    seen["F12"] = table["F12"]  # red's minecart still there: nothing of red's shows
    taken: list[Action] = []
    follow(
        _ReadsAnotherSeatsMove(reading), state, _seen(OTR, state, seen), table, reading, "", taken
    )  # type: ignore[arg-type]
    assert [a.TYPE for a in taken] == ["set_speed"]


def test_an_alert_in_a_digital_deal_names_no_card_of_a_hand() -> None:
    """What is legal on a slot tells the cards in the seat's hand: with a digital deal an alert
    names only the kind of move (the seat's own phone shows which), never a card it holds."""
    info = rules.game_info("derailed")
    state = rules.new_game("derailed", {"players": 2}, 1)
    _resolve(state)
    referee = Referee.for_game(info)
    table = dict(referee.table_of(state))
    hand = state.to_json()["hands"][state.current_player]
    slot = next(a for a in state.legal_actions() if a.TYPE == "play").slot  # type: ignore[attr-defined]
    table[slot] = (PlacedPiece(Piece("rail", "bridge"), 1),)
    verdict = referee.judge(state, _seen(info, state, table), None, digital_draw)
    assert verdict.kind is VerdictKind.ALERT and verdict.locations == (slot,)
    data = verdict.to_json()
    assert data["wrong"][0]["legal_kinds"] == ["play"] and not data["wrong"][0]["legal_here"]
    said = json.dumps(data) + plain_line(verdict, info)
    assert "own phone shows which" in plain_line(verdict, info)
    assert not [card for card in hand if card in said and card != "bridge"]
