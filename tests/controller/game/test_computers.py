"""Computer players at the table (issue 24): seated by the host and kept in the log, their moves
as instructions the referee waits for, searched off the owner's thread, hints for a seat alone."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from controller.game.access import Asker, Refused
from controller.game.computers import ComputerPlayers, Hint
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventKind, EventLog
from controller.referee.observe import Observation
from controller.referee.verdict import VerdictKind
from controller.table.service import ServiceSettings, TableService
from controller.words.book import Book
from controller.words.verdicts import plain_line, said
from rules.core import Visibility
from rules.physical import TableObservation

ITERATIONS = 20  # a small search: fast, and the same decision for the same game and move


def _game(tmp_path: Path) -> LiveGame:
    return LiveGame(EventLog(tmp_path / "log.sqlite3"))


def _seen(game: LiveGame, table: dict[str, Any]) -> Observation:
    assert game.open is not None
    names = [loc.name for loc in game.open.info.layout(game.open.state.options).locations]
    return Observation.exact(TableObservation.of(table), names)


def _offtherails_at_a_tile(tmp_path: Path) -> LiveGame:
    """Off the Rails, two players, seat 0 to lay its first tile; the table as the rules have it."""
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    game.observe(_seen(game, game.opened().table))
    return game


def test_the_host_seats_the_computer_and_it_survives_a_restart(tmp_path: Path) -> None:
    game = _offtherails_at_a_tile(tmp_path)
    with pytest.raises(Refused, match="only the host"):
        game.set_computer(Asker.at(1), 1, "normal")
    with pytest.raises(Refused, match="level 'clever': one of easy, normal, strong"):
        game.set_computer(Asker.host(), 1, "clever")
    player = game.set_computer(Asker.host(), 1, "strong")
    assert player.computer == "strong" and player.name.startswith("the computer (")
    game.set_hints(Asker.host(), False)
    again = _game(tmp_path)
    assert again.resume()
    assert again.computers == {1: "strong"} and not again.hints
    assert again.players[1].to_json()["computer"] == "strong"
    again.set_computer(Asker.host(), 1, None)  # taken back: a person plays it again
    assert again.computers == {} and again.players[1].name == "Player 2"
    with pytest.raises(Refused, match="computer's"):
        game.name_player(Asker.host(), 1, "Robo")


def test_real_cards_cannot_seat_the_computer(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("trickoftherails", {"players": 3, "hands": "table"}, seed=2)
    with pytest.raises(Refused) as refused:
        game.set_computer(Asker.host(), 1, "normal")
    assert "cannot play with real cards" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_computers_move_is_an_instruction_the_referee_waits_for(tmp_path: Path) -> None:
    game = _offtherails_at_a_tile(tmp_path)
    game.set_computer(Asker.host(), 0, "normal")
    state, referee = game.opened().state, game.opened().referee
    assert state is not None and referee is not None
    tiles = [a for a in state.legal_actions() if a.VISIBILITY is Visibility.TABLE]
    chosen, other = tiles[0], tiles[-1]
    before, steps = dict(game.opened().table), len(state.history)
    with state.applied([other]):
        elsewhere = referee.table_of(state)
    # a person lays a legal tile on the computer's turn: no move of the computer's
    verdict = game.observe(_seen(game, elsewhere))
    assert verdict is not None and verdict.kind is VerdictKind.ALERT
    assert "the computer's: it makes its own moves" in plain_line(verdict, game.opened().info)
    assert len(state.history) == steps  # nothing applied
    with pytest.raises(Refused, match="the computer's"):
        game.act(Asker.host(), chosen.to_json())
    game.observe(_seen(game, before))  # put back
    assert game.computer_to_act() == 0
    # a stale decision (made for an older state) is dropped; the current one is taken
    assert not game.play_computer(0, game.moves - 1, chosen)
    assert game.play_computer(0, game.moves, chosen)
    assert state.history[-1] == chosen
    verdict = game.verdict
    assert verdict is not None and verdict.kind is VerdictKind.INSTRUCTIONS
    assert verdict.seat == 0 and plain_line(verdict, game.opened().info).startswith(
        "seat 0: " + chosen.words()
    )
    assert verdict.locations  # what the sensor board's LEDs light
    phone = game.book.verdict(verdict.to_json())
    assert phone is not None and phone["text"].startswith("the computer (")
    assert game.computer_to_act() is None  # its next step waits for the table
    # the pieces laid elsewhere: an alert naming the computer's move
    verdict = game.observe(_seen(game, elsewhere))
    assert verdict is not None and verdict.kind is VerdictKind.ALERT
    assert chosen.words() in plain_line(verdict, game.opened().info)
    # laid as it said: the table is in sync, the game goes on
    verdict = game.observe(_seen(game, referee.table_of(state)))
    assert verdict is not None and verdict.kind is VerdictKind.IN_SYNC
    assert game.opened().computer_move is None
    rows = game.log.events(game.open.record.id if game.open else 0, limit=1000)
    assert any(
        e.kind is EventKind.INSTRUCTION
        and said(e.data, Book.of(game.opened().info, plain=True))["text"].startswith("seat 0: ")
        for e in rows
    )


def test_decisions_are_searched_off_the_owner_and_stale_ones_dropped(tmp_path: Path) -> None:
    game = _offtherails_at_a_tile(tmp_path)
    owner = GameOwner(game)
    computers = ComputerPlayers(owner, iterations=ITERATIONS)
    game.set_computer(Asker.host(), 0, "normal")
    computers.step()  # the search starts on the worker; the owner goes on
    assert computers._asked is not None
    game.undo(Asker.host())  # the state changes while it searches: its decision is stale
    deadline = time.monotonic() + 30
    while computers.stats.decided < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    owner.pump()
    assert computers.stats.dropped == 1 and computers.stats.played == 0
    computers.stop()


def test_a_whole_game_with_a_computer_seat_on_the_simulated_table(tmp_path: Path) -> None:
    """Seat 1 is the computer: its moves are laid by the bots as instructions, the bots play
    seat 0, nothing of seat 1 is ever taken from the table, and the game goes on."""
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", game="minewagons", players=2,
                               seed=5, bot_period_s=0.05, camera_period_s=0.03, tick_s=0.02,
                               mistake_rate=0.0, ai_iterations=ITERATIONS)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    service.game.set_computer(Asker.host(), 1, "normal")

    async def play() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and service.computers.stats.played < 6:
            service.owner.pump()
            service.tick()
            await asyncio.sleep(0.01)

    try:
        asyncio.run(play())
        record = service.game.opened().record
        assert record is not None
        rows = service.log.events(record.id, limit=100_000)
    finally:
        service.stop()
    stats = service.computers.stats
    assert stats.played >= 6, vars(stats)
    mine = [e for e in rows if e.kind is EventKind.ACTION and e.seat == 1]
    assert len(mine) == stats.played  # every action of seat 1 was the computer's decision
    told = [
        e
        for e in rows
        if e.kind is EventKind.INSTRUCTION
        and "seat 1: " in said(e.data, Book.of(service.game.opened().info, plain=True))["text"]
    ]
    assert told, "no computer move was said as an instruction"
    first_computer = min(e.id for e in mine)
    assert any(e.kind is EventKind.ACTION and e.seat == 0 and e.id > first_computer for e in rows)
    assert service.inputs.bots is not None and service.inputs.bots.stats.played > 0


def _answer(owner: GameOwner, future: Future[Hint]) -> Hint:
    """Pump the owner on this thread (it owns the log) until the hint comes."""
    deadline = time.monotonic() + 30
    while not future.done() and time.monotonic() < deadline:
        owner.pump()
        time.sleep(0.005)
    return future.result(0)


def test_a_hint_is_the_asking_seats_alone_and_the_host_switches_it_off(tmp_path: Path) -> None:
    game = _offtherails_at_a_tile(tmp_path)
    owner = GameOwner(game)
    computers = ComputerPlayers(owner, iterations=ITERATIONS)
    try:
        hint = _answer(owner, computers.hint(Asker.at(0)))
        assert game.open is not None
        legal = [a.to_json() for a in game.open.state.legal_actions()]
        assert hint.seat == 0 and hint.action in legal and hint.why  # seat 0's own legal move
        assert hint.move.startswith(("lay a ", "place the "))  # in words: which
        # one is the search's (a tile laid, or a minecart placed)
        with pytest.raises(Refused, match="your turn"):
            _answer(owner, computers.hint(Asker.at(1)))
        with pytest.raises(Refused, match="a seat's own phone"):
            _answer(owner, computers.hint(Asker.spectator()))
        game.set_hints(Asker.host(), False)
        with pytest.raises(Refused, match="switched hints off"):
            _answer(owner, computers.hint(Asker.at(0)))
    finally:
        computers.stop()


def test_no_phone_sees_the_computers_hand(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("trickoftherails", {"players": 3}, seed=4)
    owner = GameOwner(game)
    owner.pump()
    seat_view = owner.snapshot.for_asker(Asker.at(2))["state"]
    assert seat_view["private"], "a seat sees its own hand"
    game.set_computer(Asker.host(), 2, "easy")
    owner.pump()
    assert owner.snapshot.for_asker(Asker.at(2)) == owner.snapshot.for_asker(Asker.spectator())
