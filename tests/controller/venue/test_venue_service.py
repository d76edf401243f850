"""The table service publishes to the venue when `[venue]` is set; `railtable venue` says in one
line what is wrong with its flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.game.access import Asker
from controller.table.service import ServiceSettings, TableService
from controller.venue.broker import Mosquitto
from controller.venue.evening import Evening
from controller.venue.listener import VenueListener
from tests.controller.venue.venue_testkit import settings
from tests.support.waiting import wait_until


def test_the_table_service_publishes_its_game(broker: Mosquitto, tmp_path: Path) -> None:
    venue = VenueListener(settings(broker), Evening()).start()
    service = TableService(
        ServiceSettings(tmp_path, game="offtherails", players=2, seed=3, camera="none",
                        board="none", bots=False, venue=settings(broker, "table-1"))
    )  # fmt: skip
    service.start()
    try:
        service.owner.call_sync(
            lambda g: g.act(Asker.at(0), {"type": "choose_side", "side": "north"})
        )
        last = service.reader.last_id()
        wait_until(lambda: venue.evening.tables.get("table-1") is not None
                   and venue.evening.tables["table-1"].upto == last)  # fmt: skip
        line = venue.evening.tables["table-1"]
        turn = service.owner.snapshot.current_player
        wait_until(lambda: line.state is not None and line.state["published_to"] == last
                   and line.state["game"]["current_player"] == turn)  # fmt: skip
        assert service.status()["venue"]["state"] == "connected"
    finally:
        service.stop()
        venue.stop()
    assert (tmp_path / "venue-published.json").exists()


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        ([], "railtable venue: no broker: give --broker mqtt://host or set [venue] broker"),
        (["--broker", "http://x"], "railtable venue: --broker = 'http://x': must be \"mqtt://"),
        (["--broker", "mqtt://x", "--venue", "a b"], "railtable venue: --venue = 'a b': must be"),
    ],
)
def test_railtable_venue_names_a_wrong_flag_in_one_line(
    flags: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAILTABLE_CONFIG", raising=False)
    monkeypatch.setattr("controller.config.DEFAULT_PATHS", ())
    assert main(["venue", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1
