"""A seat's own decision at the live table: asked of that seat, a hidden one seen by it alone (not
by the other seats, spectators or the host), answered on its phone; the simulated table's bots
answer as the seat would; the host's rulings are the host's."""

from __future__ import annotations

from pathlib import Path

import pytest

import rules
from controller.game.access import Asker, Refused
from controller.game.live import LiveGame
from controller.game.privacy import audiences, event_for, verdict_for
from controller.game.snapshot import choices, take
from controller.game.store import EventKind, EventLog
from controller.referee.deck import digital_draw
from controller.referee.observe import Observation
from controller.referee.verdict import VerdictKind
from controller.simulated.bots import Bots
from controller.simulated.table import PhysicalTable
from controller.words.book import Book
from controller.words.verdicts import said
from rules.core import CHANCE, State
from rules.physical import TableObservation
from rules.scenario import set_path


def _collision() -> State:
    """Off the Rails, 2 players: seat 0's red minecart hits seat 1's green one (a ruby and a
    gold aboard) once seat 0's action phase ends."""
    state = rules.new_game("offtherails", {"players": 2}, 1)
    state.apply({"type": "choose_side", "side": "north"})
    while state.current_player == CHANCE:
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


def _live(tmp_path: Path) -> LiveGame:
    """A live game laid out at the collision (the log holds its start; the test lays it out)."""
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    game.start("offtherails", {"players": 2}, seed=1)
    state = _collision()
    game.opened().state = state
    assert game.open is not None
    game.open.table = game.open.referee.table_of(state)
    return game


def _seen(game: LiveGame, table: dict[str, object]) -> Observation:
    assert game.open is not None
    names = [loc.name for loc in game.open.info.layout(game.open.state.options).locations]
    return Observation.exact(TableObservation.of(table), names)  # type: ignore[arg-type]


def _moved(game: LiveGame) -> Observation:
    """The table once seat 0's minecart has moved into seat 1's."""
    state, referee = game.opened().state, game.opened().referee
    assert state is not None and referee is not None
    with state.applied([{"type": "end_actions"}]):
        return _seen(game, dict(referee.table_of(state)))


def test_the_hidden_split_is_seen_and_answered_by_its_seat_alone(tmp_path: Path) -> None:
    game = _live(tmp_path)
    verdict = game.observe(_moved(game))
    assert verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT
    assert verdict.seat == 1 and verdict.hidden
    data = verdict.to_json()
    mine = verdict_for(data, Asker.at(1))
    assert [o["actions"][0]["type"] for o in mine["options"]] == ["split", "split"]
    for who in (Asker.host(), Asker.spectator(), Asker.at(0)):
        seen = said(verdict_for(data, who), Book.of(game.opened().info, plain=True))
        assert seen["options"] == [] and "ruby" not in str(seen) and "gold" not in str(seen)
        assert seen["text"] == "seat 1 makes a hidden choice on their own phone"
    with pytest.raises(Refused, match="seat 1 alone"):
        game.answer(Asker.host(), 0)
    with pytest.raises(Refused, match="seat 1"):
        game.answer(Asker.at(0), 0)
    with pytest.raises(Refused, match="hidden choice is seat 1's alone"):
        game.act(Asker.host(), {"type": "split", "pile": ["ruby"]})
    (event,) = game.answer(Asker.at(1), 0)
    assert event.kind is EventKind.ACTION and event.seat == 1
    for who in audiences(2):
        shown = event_for(event, "offtherails", game.opened().state, who)["data"]["action"]
        if who == Asker.at(1):
            assert shown["pile"] in (["gold"], ["ruby"])
        else:  # the host too: a hidden split is its seat's alone
            assert shown == {"type": "split", "hidden": True, "size": 1}


def test_the_mover_is_asked_for_the_pile_once_the_split_is_made(tmp_path: Path) -> None:
    game = _live(tmp_path)
    moved = _moved(game)
    game.observe(moved)
    game.answer(Asker.at(1), 0)
    verdict = game.observe(moved)  # the table as it was: judged again after the answer
    assert verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT
    assert verdict.seat == 0 and not verdict.hidden
    assert verdict_for(verdict.to_json(), Asker.host())["options"]  # a free choice: the host sees
    game.answer(Asker.at(0), 1)
    assert game.open is not None and game.open.state.current_player == 1  # seat 1's turn now


def test_the_bots_answer_their_own_decisions_as_the_seat_would(tmp_path: Path) -> None:
    game = _live(tmp_path)
    assert game.open is not None
    info = game.open.info
    table = PhysicalTable(info.layout(game.open.state.options), info.catalogue())
    bots = Bots(game, table, seed=3)
    moved = _moved(game)
    game.observe(moved)
    assert game.verdict is not None and game.verdict.seat == 1
    bots.go()  # seat 1 splits, as its bot decides: nothing it did on the table says how
    state = game.open.state
    assert state.history[-1].TYPE == "split"
    game.observe(moved)
    assert game.verdict is not None and game.verdict.seat == 0
    bots.go()  # seat 0 picks the pile to drop
    assert [a.TYPE for a in state.history if not a.CHANCE_OUTCOME][-2:] == ["split", "drop_pile"]


def _revoked() -> State:
    """Trick of the Rails with real cards, 5 players: seat 1 did not follow B&O in the first
    trick and has just played a B&O card: the revoke is proven, the game waits for the host."""
    state = rules.new_game("trickoftherails", {"players": 5, "hands": "table"}, 1)
    for kind, cards in (
        ("lay_lane", ["bo-exchange", "co-exchange", "erie-exchange", "nyc-exchange"]),
        ("lay_lane", ["prr-exchange"]),
        ("start_railway", ["bo-1", "co-1", "erie-1", "nyc-1", "prr-1"]),
        ("play", ["bo-3", "co-4", "bo-5", "erie-2", "nyc-2"]),
        ("play", ["prr-2", "prr-3", "prr-4", "prr-5", "bo-6"]),
    ):
        for card in cards:
            state.apply({"type": kind, "card": card})
    assert state.to_json()["phase"] == "revoke" and state.current_player == 1
    return state


def test_a_revoke_is_settled_by_the_host_not_by_the_offender() -> None:
    state = _revoked()
    assert choices(state, 1) == []  # the offender is not offered its own remedy
    assert {c["action"]["type"] for c in choices(state, None, host=True)} == {"settle_revoke"}
    assert choices(state, None) == []  # nor is a spectator


def test_only_the_host_gives_a_ruling(tmp_path: Path) -> None:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    game.start("trickoftherails", {"players": 5, "hands": "table"}, seed=1)
    game.opened().state = state = _revoked()
    with pytest.raises(Refused, match="only the host decides settle_revoke"):
        game.act(Asker.at(1), {"type": "settle_revoke", "remedy": "waive"})
    game.act(Asker.host(), {"type": "settle_revoke", "remedy": "waive"})
    assert state.to_json()["revokes"][0]["remedy"] == "waive"


def test_a_question_is_answered_in_one_place_on_the_phone(tmp_path: Path) -> None:
    game = _live(tmp_path)
    game.observe(_moved(game))
    snapshot = take(game, 1, 0)
    seat1 = snapshot.for_asker(Asker.at(1))
    assert [o["actions"][0]["type"] for o in seat1["verdict"]["options"]] == ["split", "split"]
    assert seat1["choices"] == []  # the question holds them: no second set of buttons
    for who in (Asker.host(), Asker.spectator(), Asker.at(0)):
        seen = snapshot.for_asker(who)
        assert seen["verdict"]["options"] == [] and seen["choices"] == []
    assert "gold" not in str(snapshot.status()) and "ruby" not in str(snapshot.status())
