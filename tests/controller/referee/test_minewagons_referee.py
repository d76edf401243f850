"""The referee on the mine-wagon race (issue 20): a turn's end proven by the next player's move, a
green tile's face read from the table, the sensor board alone, a wagon hiding its tile."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rules
from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.store import EventLog
from controller.referee.deck import digital_draw
from controller.referee.judge import Referee
from controller.referee.observe import COVERED, NO_INPUT, LocationView, Observation, Seen, fuse
from controller.referee.tables import as_laid
from controller.referee.verdict import VerdictKind
from controller.words.verdicts import plain_line
from rules.core import CHANCE, State, Visibility
from rules.minewagons import physical
from rules.minewagons.components import Colour, Shape
from rules.physical import PlacedPiece, TableObservation
from rules.playout import choose

INFO = rules.game_named("minewagons")
REFEREE = Referee(INFO)
LAYOUT = physical.layout({"players": 2})
NAMES = [loc.name for loc in LAYOUT.locations]
RED = PlacedPiece(physical.wagon_piece(Colour.RED))
BLUE = PlacedPiece(physical.wagon_piece(Colour.BLUE))


def _tile(colour: Colour, shape: Shape, rotation: int = 0) -> PlacedPiece:
    return PlacedPiece(physical.tile_piece(colour, shape), rotation)


def _race(seed: int = 2) -> State:
    """A 2-player race just begun: the setup played out by random players."""
    state = rules.new_game("minewagons", {"players": 2}, seed)
    rng = random.Random(seed)
    while state.to_json()["phase"] != "play":
        state.apply(choose(state, rng))
    return state


def _sensors(table: dict[str, tuple[PlacedPiece, ...]]) -> Observation:
    magnets = frozenset(
        loc.sensor
        for loc in LAYOUT.locations
        if loc.sensor is not None
        and any(REFEREE.is_magnetic(p.piece) for p in table.get(loc.name, ()))
    )
    return fuse(LAYOUT, physical.catalogue(), None, magnets)


PROVEN = {("minewagons", "end_turn"), ("derailed", "keep_hand"), ("offtherails", "end_actions")}


def test_only_a_turns_end_is_proven_by_the_next_seat() -> None:
    """The game supplies the fact: the race's end_turn, Derailed!'s keep_hand (between rounds,
    option exchange) and Off the Rails' end of the action phase (a player with no minecart to
    move lays nothing more: the next player's move proves it); no other implied action (Off the
    Rails' routes and first moves are the same seat's)."""
    for name in rules.GAMES:
        state = rules.new_game(name, {}, 1)
        for cls in state.CODEC.classes.values():
            proven = cls.PROVEN_BY_NEXT_SEAT
            assert proven == ((name, cls.TYPE) in PROVEN), cls
            assert not proven or cls.VISIBILITY is Visibility.IMPLIED


def test_off_the_rails_the_other_sides_move_proves_the_end_of_the_action_phase() -> None:
    """Seat 0 has no minecart and lays nothing; seat 1's minecart put down proves seat 0's action
    phase ended (the deposits phase's digital draws between): applied, not an alert."""
    state = rules.new_game("offtherails", {"players": 2}, 3)
    state.apply({"type": "choose_side", "side": "north"})
    while state.current_player == CHANCE:
        state.apply(digital_draw(state))
    otr = Referee(rules.game_named("offtherails"))
    # what seat 1 could do first once seat 0's actions and carts are done: its own minecart
    later = state.clone()
    rng = random.Random(1)
    while later.current_player != 1 or not any(
        a.TYPE == "place_cart" for a in later.legal_actions()
    ):
        later.apply(choose(later, rng))
    place = next(a for a in later.legal_actions() if a.TYPE == "place_cart")
    before = otr.table_of(later)
    with later.applied([place]):
        after = otr.table_of(later)
    table = otr.table_of(state)
    for name, pieces in after.items():
        if before.get(name, ()) != pieces:
            table[name] = pieces
    names = [loc.name for loc in rules.game_named("offtherails").layout(state.options).locations]
    seen = Observation.exact(TableObservation.of(table), names)
    verdict = otr.judge(state, seen, resolve_chance=digital_draw)  # the service's digital deck
    assert verdict.kind is VerdictKind.APPLIED, plain_line(verdict, INFO)
    types = [a.TYPE for a in verdict.actions if not a.CHANCE_OUTCOME]
    assert types[0] == "end_actions" and types[-1] == "place_cart", types


def test_a_green_tiles_face_is_observed_chance() -> None:
    state = rules.new_game("minewagons", {"players": 2}, 1)
    rng = random.Random(1)
    while state.to_json()["phase"] != "turn_up":
        assert not state.observed_chance()  # where the green tiles go: the digital deck
        state.apply(choose(state, rng))
    state.apply(next(a for a in state.legal_actions() if a.TYPE == "turn_up"))
    assert state.current_player == CHANCE and state.observed_chance()
    assert all(a.VISIBILITY is Visibility.TABLE for a, _ in state.chance_outcomes())


def test_sensors_alone_ask_the_seat_for_a_tiles_face_and_the_camera_reads_it(
    tmp_path: Path,
) -> None:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    state = game.start("minewagons", {"players": 2}, seed=1)
    rng = random.Random(1)
    while state.to_json()["phase"] != "turn_up":
        seat = state.current_player
        assert seat is not None and seat >= 0
        game.act(Asker.at(seat), choose(state, rng).to_json())
    assert game.open is not None
    table = game.open.referee.table_of(state)
    game.observe(Observation.exact(TableObservation.of(table), NAMES))  # a camera
    square = next(a for a in state.legal_actions() if a.TYPE == "turn_up").to_json()["square"]
    game.act(Asker.at(0), {"type": "turn_up", "square": square})
    assert state.current_player == CHANCE
    assert game.verdict is None  # the camera will read the face
    game.undo(Asker.host())
    game.observe(_sensors(table))  # the camera unplugged: the sensor board alone
    game.act(Asker.at(0), {"type": "turn_up", "square": square})
    verdict = game.verdict
    assert verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT
    assert verdict.seat == 0 and "seat 0" in plain_line(verdict, INFO)
    shapes = [o.actions[0].to_json()["shape"] for o in verdict.options]
    assert shapes and set(shapes) <= {"L", "I", "T"}
    game.answer(Asker.at(0), shapes.index(shapes[-1]))
    assert state.current_player == 0 and state.to_json()["phase"] == "orient"


def test_what_no_input_sees_is_unseen_for_good_not_covered() -> None:
    seen = _sensors({"A1": (RED,)})
    assert seen.view("start-red") == LocationView(Seen.UNKNOWN, reason=NO_INPUT)
    assert seen.view("A1").seen is Seen.MAGNET
    assert not seen.covered()
    hand = Observation(seen.mode, {"A1": LocationView(Seen.MAGNET, magnet=True, reason=COVERED)})
    assert hand.covered() == {"A1"}


def test_sensors_alone_a_wagon_entering_is_applied() -> None:
    state = _race()
    entering = next(a for a in state.legal_actions() if a.TYPE == "enter_wagon")
    with state.applied([entering]):
        after = REFEREE.table_of(state)
    verdict = REFEREE.judge(state, _sensors(after), None, digital_draw)
    assert verdict.kind is VerdictKind.APPLIED, plain_line(verdict, INFO)
    assert verdict.actions == (entering,)


def test_a_wagon_on_its_tile_is_seen_on_top() -> None:
    tile = _tile(Colour.GREEN, Shape.I, 1)
    on_top = Observation(
        Observation.exact(TableObservation(), []).mode,
        {"C3": LocationView(Seen.ON_TOP, (RED,))},
    )
    view = on_top.view("C3")
    assert REFEREE.fits(view, (tile, RED)) and REFEREE.fits(view, (RED,))
    assert not REFEREE.fits(view, (tile,)) and not REFEREE.fits(view, (tile, BLUE))
    assert not on_top.covered()
    laid = as_laid({"C3": (tile,)}, on_top)
    assert sorted(laid["C3"]) == sorted((tile, RED))  # the tile under it stays believed
    ruled = as_laid({"C3": (tile,)}, on_top, {"C3": (tile, RED)}, REFEREE.fits)
    assert ruled["C3"] == (tile, RED)


def test_the_believed_table_follows_the_rules_where_only_magnets_show() -> None:
    tile = _tile(Colour.GREEN, Shape.I)
    seen = _sensors({"B1": (RED,)})
    before = {"A1": (tile, RED), "start-red": (RED, RED)}
    rules_now = {"A1": (tile,), "B1": (tile, RED), "start-red": (RED, RED)}
    laid = as_laid(before, seen, rules_now, REFEREE.fits)
    assert laid["A1"] == (tile,) and laid["B1"] == (tile, RED)


@pytest.mark.parametrize("seed", [1, 2])
def test_bot_races_shown_to_the_referee(seed: int) -> None:
    from controller.referee.cases import CaseKind, cases

    results = list(cases("minewagons", 2 + seed, seed))
    wrong = [r for r in results if r.kind is CaseKind.WRONG_PIECE]
    assert all(r.alerted and not r.false_applied for r in wrong)
    single = [r for r in results if r.kind is CaseKind.SINGLE]
    assert single and all(r.recovered or r.unseen for r in single)


def _turning_up(seed: int = 3) -> tuple[State, int]:
    """A game at a seat's turning a green tile up (random players until one does)."""
    state = rules.new_game("minewagons", {"players": 2}, seed)
    rng = random.Random(seed)
    while True:
        seat = state.current_player
        assert seat is not None
        if seat >= 0:
            turns = [a for a in state.legal_actions() if a.TYPE == "turn_up"]
            if turns:
                state.apply(turns[0])
                return state, seat
        state.apply(choose(state, rng))


def test_a_tile_the_computer_turned_up_shows_its_face_and_the_computer_lays_it() -> None:
    """The computer turns a green tile up; whoever turns it for it lays it some way. The face is
    read from the table (chance), how it lies is the computer's to decide: nothing of the
    computer's is taken from the table, and its decision then says how to lay it."""
    state, seat = _turning_up()
    computer = frozenset({seat})
    before = REFEREE.table_of(state)
    outcome = next(a for a, p in state.chance_outcomes() if p > 0)
    with state.applied([outcome]):
        orients = [a for a in state.legal_actions() if a.VISIBILITY is Visibility.TABLE]
        laid_as, decided = orients[0], orients[-1]
        assert laid_as != decided
        with state.applied([laid_as]):
            shown = REFEREE.table_of(state)
    seen = Observation.exact(TableObservation.of(shown), NAMES)
    verdict = REFEREE.judge(state, seen, before, locked=computer)
    assert verdict.kind is VerdictKind.APPLIED and verdict.actions == (outcome,)
    assert f"now seat {seat} decides its move" in plain_line(verdict, INFO)
    state.apply(outcome)
    verdict = REFEREE.judge(state, seen, shown, locked=computer)
    assert verdict.kind is VerdictKind.WAITING and verdict.seat == seat and not verdict.actions
    state.apply(decided)  # the computer lays it otherwise: the table is to follow it
    verdict = REFEREE.judge(state, seen, shown, locked=computer)
    assert verdict.kind is VerdictKind.INSTRUCTIONS and not verdict.actions
    # a person's seat: the face and how it lies are read together, as one move
    state.undo()
    state.undo()
    verdict = REFEREE.judge(state, seen, before)
    assert verdict.kind is VerdictKind.APPLIED and verdict.actions == (outcome, laid_as)


def test_a_tile_turned_up_on_the_computers_turn_is_no_move_of_its() -> None:
    """Before the computer's decision, a tile turned up by someone else is an alert."""
    state, seat = _turning_up()
    state.undo()  # the computer has not decided to turn it up
    before = REFEREE.table_of(state)
    turn = next(a for a in state.legal_actions() if a.TYPE == "turn_up")
    with state.applied([turn]):
        outcome = next(a for a, p in state.chance_outcomes() if p > 0)
        with state.applied([outcome]):
            laid = next(a for a in state.legal_actions() if a.VISIBILITY is Visibility.TABLE)
            with state.applied([laid]):
                shown = REFEREE.table_of(state)
    seen = Observation.exact(TableObservation.of(shown), NAMES)
    verdict = REFEREE.judge(state, seen, before, locked=frozenset({seat}))
    assert verdict.kind is VerdictKind.ALERT and "the computer's" in plain_line(verdict, INFO)
