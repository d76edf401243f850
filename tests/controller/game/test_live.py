"""The event log and the table game: every accepted change is on disk, and replays exactly."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from controller.game.access import Asker, Refused
from controller.game.ending import EndedBy
from controller.game.live import LiveGame
from controller.game.store import EventKind, EventLog, StoreError
from controller.referee.observe import Observation
from controller.referee.verdict import VerdictKind
from controller.words.language import Language
from controller.words.verdicts import plain_line
from rules.core import CHANCE
from rules.physical import PlacedPiece, TableObservation
from rules.playout import Policy, choose


def _game(tmp_path: Path) -> LiveGame:
    return LiveGame(EventLog(tmp_path / "log.sqlite3"))


def _seen(game: LiveGame, table: dict[str, tuple]) -> Observation:  # type: ignore[type-arg]
    assert game.open is not None
    names = [loc.name for loc in game.open.info.layout(game.open.state.options).locations]
    return Observation.exact(TableObservation.of(table), names)


def test_a_game_replays_exactly_from_the_log(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 3}, seed=5)
    rng = random.Random(5)
    for _ in range(60):
        state = game.opened().state
        assert state is not None
        seat = state.current_player
        assert seat is not None and seat != CHANCE
        game.act(Asker.at(seat), choose(state, rng, Policy.BOT).to_json())
    live = game.open.state.to_json() if game.open else None
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume() == (live is not None)
    if live is not None:
        assert again.open is not None and again.open.state.to_json() == live


def test_a_table_change_is_logged_before_it_is_published(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    seen: list[int] = []
    game.listeners.append(lambda e: seen.append(len(game.log.events(after=e.id - 1))))
    assert game.open is not None
    table = dict(game.open.table)
    state = game.open.state
    assert state is not None
    state.apply({"type": "place_tile", "square": "F11", "exits": "NS"})
    table = game.open.referee.table_of(state)
    state.undo()
    verdict = game.observe(_seen(game, table))
    assert verdict is not None and verdict.kind is VerdictKind.APPLIED
    assert seen and all(n >= 1 for n in seen)  # each event was readable from disk when published
    kinds = [e.kind for e in game.log.events(game.opened().record.id)]
    assert EventKind.ACTION in kinds and EventKind.VERDICT in kinds


def test_seats_act_only_for_themselves_and_spectators_not_at_all(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    with pytest.raises(Refused, match="spectator"):
        game.act(Asker.spectator(), {"type": "choose_side", "side": "north"})
    with pytest.raises(Refused, match="not seat 1's turn"):
        game.act(Asker.at(1), {"type": "choose_side", "side": "north"})
    with pytest.raises(Refused, match="only the host can undo"):
        game.undo(Asker.at(0))
    with pytest.raises(Refused, match="unknown action type"):
        game.act(Asker.at(0), {"type": "fly"})
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    before = game.open.state.to_json()  # type: ignore[union-attr]
    with pytest.raises(Refused, match="centre square of a mine"):
        game.act(Asker.at(0), {"type": "place_tile", "square": "D9", "exits": "NS"})
    assert game.open.state.to_json() == before  # type: ignore[union-attr]


def test_undo_takes_back_the_players_action_and_replays(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    before = game.open.state.to_json()  # type: ignore[union-attr]
    game.act(Asker.at(0), {"type": "place_tile", "square": "F11", "exits": "NS"})
    game.undo(Asker.host())
    assert game.open.state.to_json() == before  # type: ignore[union-attr]
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume() and again.open.state.to_json() == before  # type: ignore[union-attr]


def test_a_host_undo_stays_undone_while_the_table_still_shows_the_move(tmp_path: Path) -> None:
    """Issue 36: the host undoes a tile the table still shows; the referee does not read it
    again as the same move, but says to take it off, until the table changes."""
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert game.open is not None
    state = game.open.state
    before = state.to_json()
    state.apply({"type": "place_tile", "square": "C4", "exits": "EW"})
    with_tile = game.open.referee.table_of(state)
    state.undo()
    verdict = game.observe(_seen(game, with_tile))
    assert verdict is not None and verdict.kind is VerdictKind.APPLIED
    game.undo(Asker.host())
    assert state.to_json() == before
    for _ in range(2):  # judged again and again from the same table: still not the move
        again = game.observe(_seen(game, with_tile))
        assert again is not None and again.kind is VerdictKind.INSTRUCTIONS
        assert again.locations == ("C4",) and "take the straight track" in plain_line(
            again, game.open.info
        )
        assert state.to_json() == before
    cleared = game.observe(_seen(game, game.open.referee.table_of(state)))
    assert cleared is not None and cleared.kind is VerdictKind.IN_SYNC
    laid_again = game.observe(_seen(game, with_tile))
    assert laid_again is not None and laid_again.kind is VerdictKind.APPLIED


def test_bad_games_and_options_are_refused(tmp_path: Path) -> None:
    game = _game(tmp_path)
    with pytest.raises(Refused, match="unknown game 'chess'"):
        game.start("chess", {})
    with pytest.raises(Refused, match=r"players. is 9"):
        game.start("offtherails", {"players": 9})
    with pytest.raises(Refused, match="no game is open"):
        game.act(Asker.host(), {"type": "end_actions"})


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

    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    game.act(Asker.at(0), {"type": "place_tile", "square": "F11", "exits": "NS"})
    assert game.open is not None
    record = game.log.record_json(game.open.record.id)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["rules", "replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["actions"] == len(record["actions"])
    record["actions"][-1]["action"]["square"] = "D9"
    path.write_text(json.dumps(record))
    assert main(["rules", "replay", str(path)]) == 1
    assert "centre square of a mine" in capsys.readouterr().out


def test_real_draws_nothing_shows_are_asked_of_the_host(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2, "deposit_deck": "physical"}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    question = game.verdict
    assert question is not None and question.kind is VerdictKind.NEEDS_INPUT
    assert question.seat is None and "the host" in plain_line(question, game.opened().info)
    with pytest.raises(Refused, match="the question is for the host"):
        game.answer(Asker.at(0), 0)
    before = len(game.open.state.history)  # type: ignore[union-attr]
    game.answer(Asker.host(), 0)
    assert len(game.open.state.history) == before + 1  # type: ignore[union-attr]


def test_a_new_game_on_a_table_with_pieces_asks_to_clear_them(tmp_path: Path) -> None:
    from controller.referee.observe import Observation as Seen
    from rules.physical import TableObservation

    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert game.open is not None
    names = [loc.name for loc in game.open.info.layout({}).locations]
    state, referee = game.open.state, game.open.referee
    assert state is not None and referee is not None
    state.apply({"type": "place_tile", "square": "F11", "exits": "NS"})
    left = referee.table_of(state)
    state.undo()
    game.observe(Seen.exact(TableObservation.of(left), names))  # the tile is laid and seen
    game.start("offtherails", {"players": 2}, seed=2)
    verdict = game.observe(Seen.exact(TableObservation.of(left), names))
    assert verdict is not None and verdict.kind is VerdictKind.INSTRUCTIONS
    assert "take the straight track" in plain_line(verdict, game.open.info) and "F11" in plain_line(
        verdict, game.open.info
    )


def test_a_game_on_another_mat_keeps_no_piece_on_a_place_that_mat_lacks(tmp_path: Path) -> None:
    """Trick of the Rails' shares, then Derailed!: the shares' place is on no Derailed! mat, so
    the new game's table holds nothing there (a simulated camera could draw no frame of it)."""
    game = _game(tmp_path)
    game.start("trickoftherails", {"players": 3}, seed=1)
    assert game.open is not None
    card = next(e.piece for e in game.open.info.catalogue().entries if e.piece.identity == "bo-3")
    # the table as last seen: a share lying in seat 0's shares
    game.open.table = {**game.open.table, "seat.0.shares": (PlacedPiece(card, 0),)}
    game.start("derailed", {"players": 2}, seed=1)
    mat = {loc.name for loc in game.open.info.layout(game.open.state.options).locations}
    assert set(game.open.table) <= mat


def test_a_full_disk_refuses_changes_in_words_and_says_so_until_it_is_back(tmp_path: Path) -> None:
    from controller.game.access import Refusal
    from controller.game.snapshot import take

    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    db = game.log.db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 2}")  # SQLite's own 'disk is full'
    with pytest.raises(sqlite3.OperationalError):
        for _ in range(100):  # fill it with rows replay passes over
            db.execute(
                "INSERT INTO events (game_id, at, seat, kind, data) VALUES (?, 0, NULL, ?, ?)",
                (game.open.record.id, "input", json.dumps({"pad": "x" * 2000})),  # type: ignore[union-attr]
            )
    history = list(game.open.state.history)  # type: ignore[union-attr]
    with pytest.raises(Refused) as refused:
        game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert game.open.state.history == history  # type: ignore[union-attr]
    assert refused.value.why is Refusal.UNAVAILABLE
    assert str(refused.value) == "event log: disk full — play is paused until space returns"
    status = take(game, 1, 0).status()["store"]
    assert status["state"] == "failing" and "full" in status["detail"]
    replayed = game.log.replay(game.opened().record)
    assert replayed.to_json() == game.open.state.to_json()  # type: ignore[union-attr]
    game.log.db.execute("PRAGMA max_page_count = 1073741823")
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert len(game.open.state.history) > len(history)  # type: ignore[union-attr]
    assert take(game, 2, 0).status()["store"]["state"] == "ok"


def test_a_verdict_that_has_not_changed_is_not_written_again(tmp_path: Path) -> None:
    game = _game(tmp_path)
    game.start("offtherails", {"players": 2}, seed=1)
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert game.open is not None
    wrong = dict(game.open.referee.table_of(game.open.state))
    catalogue = game.open.info.catalogue()
    cart = next(e.piece for e in catalogue.entries if e.piece.kind == "minecart")
    wrong["F6"] = (PlacedPiece(cart),)
    for _ in range(3):
        verdict = game.observe(_seen(game, wrong))
        assert verdict is not None and verdict.kind is VerdictKind.ALERT
    rows = game.log.events(game.opened().record.id)
    assert sum(1 for e in rows if e.kind is EventKind.ALERT) == 1


def test_the_last_games_end_screen_is_recalled_after_a_restart(tmp_path: Path) -> None:
    game = _game(tmp_path)
    assert not game.recall()  # a new table: nothing to recall
    game.start("offtherails", {"players": 2}, seed=1)
    game.name_player(Asker.host(), 1, "Bob")
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert not LiveGame(EventLog(tmp_path / "log.sqlite3")).recall()  # a game is open
    game.end(EndedBy.HOST)
    shown = game.finished
    assert shown is not None and shown["reason"] == "ended by the host"
    german = game.finished_said[Language.DE]["reason"]
    assert german != shown["reason"] and "{" not in german  # said again in each language
    again = _game(tmp_path)
    assert not again.resume() and again.recall()
    assert again.finished == shown and again.open is None
    assert again.finished_said[Language.DE]["reason"] == german  # the log keeps who ended it
    assert shown is not None and shown["players"][1]["name"] == "Bob"
    again.start("offtherails", {"players": 2}, seed=2)
    assert again.finished is None
