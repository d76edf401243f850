"""The sensor board before the camera: a magnet felt reaches the phones at once (the square marked
as felt), a move the magnets alone make certain is applied before the camera has seen it, and
nothing else is said until the camera has."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from controller.game.access import Asker
from controller.game.snapshot import take
from controller.game.store import EventKind
from controller.referee.observe import COVERED, Seen, fuse, magnet_changes
from controller.table.camera_worker import CameraWorker
from controller.table.service import ServiceSettings, TableService
from rules.physical import PlacedPiece, TableObservation
from rules.registry import game_named, new_game


def _rows(service: TableService) -> list[tuple[EventKind, str]]:
    record = service.game.opened().record
    assert record is not None
    return [
        (e.kind, str(e.data.get("kind", ""))) for e in service.log.events(record.id, limit=100_000)
    ]


def _verdicts(service: TableService, since: int, kind: str) -> list[dict[str, object]]:
    record = service.game.opened().record
    assert record is not None
    rows = list(service.log.events(record.id, limit=100_000))[since:]
    return [e.data for e in rows if e.kind is EventKind.VERDICT and e.data.get("kind") == kind]


def _own_choice(verdict: dict[str, object]) -> bool:
    """A question that is the seat's own decision (nothing the camera could tell)."""
    return verdict.get("reason") == "own_decision" and verdict.get("seat") is not None


def _board_settles(service: TableService) -> None:
    """Ticks while the sensor board reports; the camera takes no frame (its period is long)."""
    for _ in range(8):
        service.owner.pump()
        service.tick()
        time.sleep(service.settings.tick_s)


def _camera_catches_up(service: TableService) -> None:
    eyes = service.inputs.eyes
    assert isinstance(eyes, CameraWorker)  # stepped here, not in a process of its own
    for _ in range(30):
        eyes.step()
        service.owner.pump()
        service.tick()
        if service.settled() and service.game.felt == ():
            return
        time.sleep(service.settings.tick_s)


@pytest.mark.parametrize("game", ["offtherails", "minewagons"])
def test_magnets_are_felt_and_a_certain_move_applied_before_the_camera_sees_it(
    tmp_path: Path, game: str
) -> None:
    settings = ServiceSettings(
        data_dir=tmp_path,
        pin="1234",
        game=game,
        players=2,
        seed=11,
        camera_period_s=1000.0,  # the test takes the camera's frames itself
        mistake_rate=0.25,
    )
    service = TableService(settings)
    service.start(thread=False)
    try:
        bots = service.inputs.bots
        assert bots is not None and service.inputs.eyes is not None
        _camera_catches_up(service)
        felt_early = applied_early = 0
        wanted = 1 if game == "minewagons" else 0  # a wagon moved on: the magnets tell it (no
        # Off the Rails move by hand moves a magnet the camera knew: a cart placed may be any)
        for _ in range(200):
            before = len(_rows(service))
            bots.go()
            _board_settles(service)
            written = _rows(service)[before:]
            if service.game.felt:
                felt_early += 1
                assert not service.settler.camera_still
                table = take(service.game, 0, 0).for_asker(Asker.spectator())["table"]
                assert table is not None and table["felt"] == list(service.game.felt)
            if (EventKind.VERDICT, "applied") in written:
                applied_early += 1
            # before the camera has seen the table, nothing but an applied move (or what a
            # bot said from a phone, and the seat's own next choice it calls for: which jewel
            # a minecart takes) is said: no alert, no question about the table
            said = {k for kind, k in written if kind is EventKind.VERDICT}
            assert said <= {"applied", "instructions", "needs_input"}, written
            assert all(_own_choice(row) for row in _verdicts(service, before, "needs_input"))
            assert (EventKind.ALERT, "") not in written, written
            _camera_catches_up(service)
            assert service.game.felt == (), "felt squares stay marked after the camera saw them"
            if service.game.open is None or service.game.open.state.is_over:
                break
            if felt_early and applied_early >= wanted and bots.stats.mistakes_alerted >= 2:
                break
        assert felt_early >= 1 and applied_early >= wanted, (felt_early, applied_early)
        assert bots.stats.mistakes_alerted >= 2 and bots.stats.mistakes_applied == 0
        record, live = service.game.opened().record, service.game.opened().state
        assert record is not None and live is not None
        assert service.log.replay(record).to_json() == live.to_json()
    finally:
        service.stop()


def test_a_disagreement_while_the_camera_catches_up_is_the_boards_magnet_covered() -> None:
    info = game_named("minewagons")
    state = new_game("minewagons", {"players": 2}, 1)
    layout, catalogue = info.layout(state.options), info.catalogue()
    square = next(loc for loc in layout.locations if loc.sensor is not None)
    assert square.sensor is not None
    camera = TableObservation.of({})
    occupied = frozenset({square.sensor})
    assert magnet_changes(layout, catalogue, camera, occupied) == (
        frozenset({square.name}),
        frozenset(),
    )
    settled = fuse(layout, catalogue, camera, occupied).view(square.name)
    assert settled.seen is Seen.UNKNOWN and settled.reason.startswith("the sensor board")
    early = fuse(layout, catalogue, camera, occupied, catching_up=True).view(square.name)
    assert (early.seen, early.magnet, early.reason) == (Seen.MAGNET, True, COVERED)
    wagon = next(e.piece for e in catalogue.entries if e.magnetic)
    shown = TableObservation.of({square.name: (PlacedPiece(wagon),)})
    assert magnet_changes(layout, catalogue, shown, frozenset()) == (
        frozenset(),
        frozenset({square.name}),
    )
