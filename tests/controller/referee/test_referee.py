"""The referee and the fusion of camera and sensor board, on Off the Rails positions."""

from __future__ import annotations

import dataclasses

import pytest

import rules
from controller.referee.cases import CaseKind, cases
from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import InputMode, LocationView, Observation, Seen, fuse
from controller.referee.search import Query, Shared, readings
from controller.referee.verdict import VerdictKind
from controller.words.book import Book
from controller.words.verdicts import plain_line, verdict_line
from rules.core import CHANCE, Action, State
from rules.offtherails import OffTheRails, physical
from rules.physical import PlacedPiece, TableObservation

INFO = rules.game_named("offtherails")
REFEREE = Referee(INFO)
LAYOUT = physical.layout()
NAMES = [loc.name for loc in LAYOUT.locations]


def _game(seed: int = 3) -> State:
    state = rules.new_game("offtherails", {"players": 2}, seed)
    state.apply({"type": "choose_side", "side": "north"})
    while state.current_player == CHANCE:
        state.apply(digital_draw(state))
    return state


def _seen(table: dict[str, tuple[PlacedPiece, ...]], covered: tuple[str, ...] = ()) -> Observation:
    return Observation.exact(TableObservation.of(table, covered), NAMES)


def _after(state: State, action: dict[str, object]) -> dict[str, tuple[PlacedPiece, ...]]:
    state.apply(action)
    table = REFEREE.table_of(state)
    state.undo()
    return table


def test_the_table_as_expected_is_in_sync() -> None:
    state = _game()
    verdict = REFEREE.judge(state, _seen(REFEREE.table_of(state)))
    assert verdict.kind is VerdictKind.IN_SYNC


def test_a_placed_tile_is_applied_and_the_state_is_left_alone() -> None:
    state = _game()
    before = state.to_json()
    table = _after(state, {"type": "place_tile", "square": "F6", "exits": "NS"})
    verdict = REFEREE.judge(state, _seen(table))
    assert verdict.kind is VerdictKind.APPLIED
    assert [a.to_json() for a in verdict.actions] == [
        {"type": "place_tile", "square": "F6", "exits": "NS"}
    ]
    assert state.to_json() == before


def test_a_straight_turned_half_round_is_the_same_track() -> None:
    state = _game()
    table = _after(state, {"type": "place_tile", "square": "F6", "exits": "NS"})
    (tile,) = table["F6"]
    turned = {**table, "F6": (PlacedPiece(tile.piece, tile.rotation + 2),)}
    assert REFEREE.judge(state, _seen(turned)).kind is VerdictKind.APPLIED


def test_a_tile_on_a_mine_centre_is_an_alert_naming_the_square() -> None:
    state = _game()
    table = _after(state, {"type": "place_tile", "square": "F6", "exits": "NS"})
    wrong = {**REFEREE.table_of(state), "D9": table["F6"]}
    verdict = REFEREE.judge(state, _seen(wrong))
    assert verdict.kind is VerdictKind.ALERT
    assert verdict.locations == ("D9",)
    assert "D9" in plain_line(verdict, INFO) and "straight track" in plain_line(verdict, INFO)


def test_a_covered_change_waits() -> None:
    state = _game()
    table = _after(state, {"type": "place_tile", "square": "F6", "exits": "NS"})
    table = {**table}
    # F6 visible, but the minecart starting track a player reaches for is covered and changed
    verdict = REFEREE.judge(state, _seen(table, covered=("F6",)))
    assert verdict.kind is VerdictKind.IN_SYNC  # nothing visible changed: nothing is judged


def test_a_take_back_is_offered_when_the_table_is_as_before() -> None:
    state = _game()
    earlier = REFEREE.table_of(state)
    state.apply({"type": "place_tile", "square": "F6", "exits": "NS"})
    placed = REFEREE.table_of(state)
    verdict = REFEREE.judge(state, _seen(earlier), placed)
    assert verdict.kind is VerdictKind.TAKE_BACK
    assert verdict.undo == 1
    assert len(state.history) > 0 and state.history[-1].TYPE == "place_tile"


def test_fusion_agrees_disagrees_and_covers() -> None:
    state = _game()
    assert isinstance(state, OffTheRails)
    state.apply({"type": "place_cart", "cart": "red-white", "square": "F12"})
    table = TableObservation.of(INFO.expected_table(state))
    cart_square = LAYOUT.location("F12")
    assert cart_square.sensor is not None
    both = fuse(LAYOUT, physical.catalogue(), table, frozenset({cart_square.sensor}))
    assert both.mode is InputMode.CAMERA_AND_SENSORS
    assert both.view("F12").seen is Seen.EXACT
    no_magnet = fuse(LAYOUT, physical.catalogue(), table, frozenset())
    assert no_magnet.view("F12").seen is Seen.UNKNOWN
    assert "sensor board" in no_magnet.view("F12").reason
    covered = TableObservation(table.pieces, frozenset({"F12"}))
    hand = fuse(LAYOUT, physical.catalogue(), covered, frozenset({cart_square.sensor}))
    assert hand.view("F12") == LocationView(
        Seen.MAGNET, magnet=True, reason="covered from the camera"
    )
    sensors = fuse(LAYOUT, physical.catalogue(), None, frozenset({cart_square.sensor}))
    assert sensors.mode is InputMode.SENSORS_ONLY and sensors.view("F12").magnet
    assert fuse(LAYOUT, physical.catalogue(), None, None).mode is InputMode.NONE


def test_sensors_alone_recognise_a_placed_minecart() -> None:
    state = _game()
    state.apply({"type": "place_tile", "square": "F6", "exits": "NS"})
    square = LAYOUT.location("F12").sensor
    assert square is not None
    observed = fuse(LAYOUT, physical.catalogue(), None, frozenset({square}))
    verdict = REFEREE.judge(state, observed)
    assert verdict.kind in (VerdictKind.APPLIED, VerdictKind.CHOICE)
    if verdict.kind is VerdictKind.APPLIED:
        assert verdict.actions[0].TYPE == "place_cart"


@pytest.mark.parametrize("seed", [0, 1])
def test_bot_games_shown_to_the_referee(seed: int) -> None:
    results = list(cases("offtherails", 2 + seed, seed))
    wrong = [r for r in results if r.kind is CaseKind.WRONG_PIECE]
    assert wrong and all(r.alerted and not r.false_applied for r in wrong)
    single = [r for r in results if r.kind is CaseKind.SINGLE]
    recovered = sum(r.recovered for r in single) / len(single)
    assert recovered >= 0.9, recovered  # known gap: see the issue note


@pytest.mark.parametrize("name", sorted(rules.GAMES))
def test_every_game_is_refereed(name: str) -> None:
    info = rules.game_named(name)
    results = [r for seed in range(2) for r in cases(name, info.max_players - seed, seed)]
    assert results
    assert not [r for r in results if r.false_applied and not r.unseen]
    wrong = [r for r in results if r.kind is CaseKind.WRONG_PIECE]
    assert all(r.alerted for r in wrong)
    judged = [r for r in results if r.kind is not CaseKind.WRONG_PIECE and not r.unseen]
    assert sum(r.recovered for r in judged) / len(judged) >= 0.95


def test_a_one_of_a_kind_piece_seen_twice_is_an_alert_naming_both() -> None:
    state = _game()
    table = _after(state, {"type": "place_cart", "cart": "red-white", "square": "F12"})
    (cart,) = table["F12"]
    twice = {**table, "D12": (cart,)}
    verdict = REFEREE.judge(state, _seen(twice))
    assert verdict.kind is VerdictKind.ALERT
    assert verdict.locations == ("D12", "F12")
    assert "lies on 2 squares; the game has 1" in plain_line(verdict, INFO)
    said = verdict_line(verdict, Book.of(INFO, ["Ann", "Bob"]))
    assert "the game has one, and it lies on D12 and F12" in said, said
    back = REFEREE.judge(state, _seen(twice), table=table)  # it lay on F12: the fix says so
    said = verdict_line(back, Book.of(INFO, ["Ann", "Bob"]))
    assert (
        "put the red minecart, white die back on F12 (take it off D12): "
        "the game has one, and it lies on D12 and F12"
    ) in said, said


def test_a_lifted_minecart_is_shown_where_the_rules_let_it_go() -> None:
    from rules.registry import state_from_json
    from rules.scenario import set_path

    data = _game(1).to_json()
    straight = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
    for square in ("F11", "F10", "F9", "F8"):
        set_path(data, f"board.{square}", straight)
    for path, value in {
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F12",
        "carts.red-white.heading": "S",
        "carts.red-white.speed": 3,
    }.items():
        set_path(data, path, value)  # fmt: skip
    state = state_from_json(data)
    assert REFEREE.destinations(state, "F12") == {"F9"}  # three squares along the track
    assert REFEREE.destinations(state, "A1") == frozenset()  # nothing magnetic lies there


def test_a_table_step_after_actions_that_list_their_draws_draws_nothing_again() -> None:
    from controller.checks.scenario import _table_after

    state = rules.new_game("offtherails", {"players": 2}, 1)
    choose = {"type": "choose_side", "side": "north"}
    with state.applied([choose]):
        draws = []
        while state.current_player == CHANCE:
            draw = digital_draw(state)
            draws.append(draw.to_json())
            state.apply(draw)
    assert draws
    listed = _table_after(state, REFEREE, [choose, *draws])
    assert listed == _table_after(state, REFEREE, [choose])
    assert state.history == []


def test_the_bench_answers_a_question_with_what_the_players_did_next() -> None:
    # Off the Rails, 4 players, seed 3: in some stretches the table shows several actions at once
    # and the referee must ask twice (which jewel a minecart took first, say); the bench answers
    # each question with what the players did next, and the rest is then read off the table
    results = list(cases("offtherails", 4, 3))
    merged = [r for r in results if r.kind is CaseKind.MERGED and not r.unseen]
    asked_twice = [r for r in merged if r.verdicts[:2] == (VerdictKind.NEEDS_INPUT,) * 2]
    assert asked_twice
    assert all(VerdictKind.APPLIED in r.verdicts[2:] for r in asked_twice)
    assert all(r.recovered for r in merged)


def test_searches_from_one_state_share_what_the_rules_made_of_each_step() -> None:
    # two tiles laid at once; the same search again with what the first worked out applies no
    # action, and finds the same readings; another search (inputs allowed) walks the first's tree
    state = _game()
    state.apply({"type": "place_tile", "square": "F6", "exits": "NS"})
    table = _after(state, {"type": "place_tile", "square": "F5", "exits": "NS"})
    state.undo()
    base, seen = REFEREE.table_of(state), _seen(table)
    every = frozenset(NAMES) | frozenset(table) | frozenset(base)
    changed = frozenset(n for n in every if table.get(n, ()) != base.get(n, ()))
    query = Query(changed, changed, base, every, False, budget=3000)
    applied: list[Action] = []
    real = state.apply_legal

    def counted(action: Action) -> None:
        applied.append(action)
        real(action)

    state.apply_legal = counted  # type: ignore[method-assign]
    shared = Shared()
    first = readings(state, seen, query, REFEREE.pieces, REFEREE.limits, digital_draw, shared)
    assert applied and [len(c.actions) for c in first.best] == [2]
    applied.clear()
    again = readings(state, seen, query, REFEREE.pieces, REFEREE.limits, digital_draw, shared)
    assert not applied and [c.actions for c in again.best] == [c.actions for c in first.best]
    with_inputs = dataclasses.replace(query, optional_inputs=True)
    alone = readings(state, seen, with_inputs, REFEREE.pieces, REFEREE.limits, digital_draw)
    applied.clear()
    also = readings(state, seen, with_inputs, REFEREE.pieces, REFEREE.limits, digital_draw, shared)
    assert len(applied) < alone.nodes
    assert [c.actions for c in also.best] == [c.actions for c in alone.best]
