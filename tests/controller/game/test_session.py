"""The event log and the table session: every accepted change is on disk, and replays exactly."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from controller.game.access import Asker, Refused
from controller.game.live import LiveGame
from controller.game.store import EventKind, EventLog, StoreError
from controller.referee.judge import VerdictKind
from controller.referee.observe import Observation
from rules.core import CHANCE
from rules.physical import TableObservation
from rules.playout import Policy, choose


def _session(tmp_path: Path) -> LiveGame:
    return LiveGame(EventLog(tmp_path / "log.sqlite3"))


def _seen(session: LiveGame, table: dict[str, tuple]) -> Observation:  # type: ignore[type-arg]
    assert session.info is not None and session.info.layout is not None
    names = [loc.name for loc in session.info.layout(session.state.options).locations]  # type: ignore[union-attr]
    return Observation.exact(TableObservation.of(table), names)


def test_a_game_replays_exactly_from_the_log(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.start("offtherails", {"players": 3}, seed=5)
    rng = random.Random(5)
    for _ in range(60):
        state = session.state
        assert state is not None
        seat = state.current_player
        assert seat is not None and seat != CHANCE
        session.act(Asker.at(seat), choose(state, rng, Policy.BOT).to_json())
    live = session.state.to_json() if session.state else None
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume() == (live is not None)
    if live is not None:
        assert again.state is not None and again.state.to_json() == live


def test_a_table_change_is_logged_before_it_is_published(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.start("offtherails", {"players": 2}, seed=1)
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    seen: list[int] = []
    session.listeners.append(lambda e: seen.append(len(session.log.events(after=e.id - 1))))
    assert session.referee is not None
    table = dict(session.table)
    state = session.state
    assert state is not None
    state.apply({"type": "place_tile", "square": "F11", "exits": "NS"})
    table = session.referee.table_of(state)
    state.undo()
    verdict = session.observe(_seen(session, table))
    assert verdict is not None and verdict.kind is VerdictKind.APPLIED
    assert seen and all(n >= 1 for n in seen)  # each event was readable from disk when published
    kinds = [e.kind for e in session.log.events(session.record.id)]  # type: ignore[union-attr]
    assert EventKind.ACTION in kinds and EventKind.VERDICT in kinds


def test_seats_act_only_for_themselves_and_spectators_not_at_all(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.start("offtherails", {"players": 2}, seed=1)
    with pytest.raises(Refused, match="spectator"):
        session.act(Asker.spectator(), {"type": "choose_side", "side": "north"})
    with pytest.raises(Refused, match="not seat 1's turn"):
        session.act(Asker.at(1), {"type": "choose_side", "side": "north"})
    with pytest.raises(Refused, match="only the host can undo"):
        session.undo(Asker.at(0))
    with pytest.raises(Refused, match="unknown action type"):
        session.act(Asker.at(0), {"type": "fly"})
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    before = session.state.to_json()  # type: ignore[union-attr]
    with pytest.raises(Refused, match="centre square of a mine"):
        session.act(Asker.at(0), {"type": "place_tile", "square": "D9", "exits": "NS"})
    assert session.state.to_json() == before  # type: ignore[union-attr]


def test_undo_takes_back_the_players_action_and_replays(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.start("offtherails", {"players": 2}, seed=1)
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    before = session.state.to_json()  # type: ignore[union-attr]
    session.act(Asker.at(0), {"type": "place_tile", "square": "F11", "exits": "NS"})
    session.undo(Asker.host())
    assert session.state.to_json() == before  # type: ignore[union-attr]
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume() and again.state.to_json() == before  # type: ignore[union-attr]


def test_bad_games_and_options_are_refused(tmp_path: Path) -> None:
    session = _session(tmp_path)
    with pytest.raises(Refused, match="unknown game 'chess'"):
        session.start("chess", {})
    with pytest.raises(Refused, match=r"players. is 9"):
        session.start("offtherails", {"players": 9})
    with pytest.raises(Refused, match="no game is open"):
        session.act(Asker.host(), {"type": "end_actions"})


def test_a_corrupt_log_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=r"log\.sqlite3"):
        EventLog(path)


def test_the_log_is_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert isinstance(log.db, sqlite3.Connection)


def test_an_exported_record_replays_with_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from controller.cli import main

    session = _session(tmp_path)
    session.start("offtherails", {"players": 2}, seed=1)
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    session.act(Asker.at(0), {"type": "place_tile", "square": "F11", "exits": "NS"})
    assert session.record is not None
    record = session.log.record_json(session.record.id)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["rules", "replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["actions"] == len(record["actions"])
    record["actions"][-1]["action"]["square"] = "D9"
    path.write_text(json.dumps(record))
    assert main(["rules", "replay", str(path)]) == 1
    assert "centre square of a mine" in capsys.readouterr().out


def test_real_draws_nothing_shows_are_asked_of_the_host(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.start("offtherails", {"players": 2, "deposit_deck": "physical"}, seed=1)
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    question = session.verdict
    assert question is not None and question.kind is VerdictKind.NEEDS_INPUT
    assert question.seat is None and "the host" in question.text
    with pytest.raises(Refused, match="the question is for the host"):
        session.answer(Asker.at(0), 0)
    before = len(session.state.history)  # type: ignore[union-attr]
    session.answer(Asker.host(), 0)
    assert len(session.state.history) == before + 1  # type: ignore[union-attr]


def test_a_new_game_on_a_table_with_pieces_asks_to_clear_them(tmp_path: Path) -> None:
    from controller.referee.observe import Observation as Seen
    from rules.physical import TableObservation

    session = _session(tmp_path)
    session.start("offtherails", {"players": 2}, seed=1)
    session.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert session.info is not None and session.info.layout is not None
    names = [loc.name for loc in session.info.layout({}).locations]
    state, referee = session.state, session.referee
    assert state is not None and referee is not None
    state.apply({"type": "place_tile", "square": "F11", "exits": "NS"})
    left = referee.table_of(state)
    state.undo()
    session.observe(Seen.exact(TableObservation.of(left), names))  # the tile is laid and seen
    session.start("offtherails", {"players": 2}, seed=2)
    verdict = session.observe(Seen.exact(TableObservation.of(left), names))
    assert verdict is not None and verdict.kind is VerdictKind.INSTRUCTIONS
    assert "take the straight track" in verdict.text and "F11" in verdict.text
