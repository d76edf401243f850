"""A pulled plug loses nothing accepted and applies nothing twice (SIGKILL at random points)."""

from __future__ import annotations

from pathlib import Path

from controller.bench.crash import run
from controller.game.live import LiveGame
from controller.game.store import EventKind, EventLog, action_entry
from rules.core import CHANCE


def test_kills_at_random_points_lose_nothing(tmp_path: Path) -> None:
    report = run(8, tmp_path, rng_seed=3)
    assert report.restarts == 8
    assert report.lost == 0 and report.mismatches == 0
    assert report.steps_in_log >= report.acknowledged > 0


def test_a_plug_pulled_between_a_move_and_its_draws_is_drawn_on_restart(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    session = LiveGame(log)
    session.start("offtherails", {"players": 2}, seed=1)
    assert session.open is not None
    state = session.open.state
    state.apply({"type": "choose_side", "side": "north"})  # as if killed before the draws
    log.append(session.open.record.id, [action_entry(0, state.history[-1])])
    assert state.current_player == CHANCE
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume()
    assert again.open is not None and again.open.state.current_player != CHANCE
    draws = [e for e in again.log.events(session.open.record.id) if e.kind is EventKind.ACTION]
    assert len(draws) > 1
