"""The service on the simulated table: pixels and serial bytes in, refereed moves in the log."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path

from controller.game.store import EventKind, EventLog
from controller.simulated.camera import SimulatedCamera
from controller.table.service import ServiceSettings, TableService


async def _play(service: TableService, seconds: float, moves: int, applied: int = 0) -> None:
    """Run the service until the bots played `moves` moves, one of their mistakes was alerted,
    and the referee applied `applied` moves it saw on the table (or `seconds` passed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        service.owner.pump()
        service.tick()
        await asyncio.sleep(service.settings.tick_s)
        bots = service.inputs.bots
        if bots is not None and bots.stats.played >= moves and bots.stats.mistakes_alerted:
            record = service.game.opened().record
            seen = 0
            if applied and record is not None:
                seen = sum(
                    1
                    for e in service.log.events(record.id, limit=100_000)
                    if e.kind is EventKind.VERDICT and e.data["kind"] == "applied"
                )
            if seen >= applied:
                return


def test_bots_play_on_the_simulated_table_and_the_referee_follows(tmp_path: Path) -> None:
    settings = ServiceSettings(
        data_dir=tmp_path,
        pin="1234",
        players=2,
        seed=11,
        bot_period_s=0.3,
        camera_period_s=0.1,
        mistake_rate=0.25,
    )
    service = TableService(settings)
    service.start(thread=False)
    try:
        asyncio.run(_play(service, 60.0, 6, applied=3))
        bots = service.inputs.bots
        assert bots is not None
        assert service.inputs.health.camera.state == "calibrated"
        assert service.inputs.health.board.state == "connected"
        record = service.game.opened().record
        assert record is not None
        events = service.log.events(record.id, limit=100_000)
        verdicts = [e.data["kind"] for e in events if e.kind is EventKind.VERDICT]
        assert verdicts.count("applied") >= 3, verdicts
        assert bots.stats.mistakes >= 1 and bots.stats.mistakes_alerted >= 1
        assert not [
            e
            for e in events
            if e.kind is EventKind.VERDICT
            and e.data["kind"] == "applied"
            and any(a.get("type") == "wrong" for a in e.data["actions"])
        ]
        live = service.game.opened().state
        assert live is not None
        assert service.log.replay(record).to_json() == live.to_json()  # the log is the state
    finally:
        service.stop()


async def _until(service: TableService, check: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        service.owner.pump()
        service.tick()
        if check():  # type: ignore[operator]
            return True
        await asyncio.sleep(service.settings.tick_s)
    return False


def test_pulled_cables_degrade_and_recover_without_a_restart(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=2, bots=False,
                               camera_period_s=0.1)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)

    async def scenario() -> None:
        status = service.status
        assert await _until(service, lambda: status()["mode"] == "camera_and_sensors", 30)
        assert service.inputs.virtual_board is not None and service.inputs.camera is not None
        service.inputs.virtual_board.unplug(1.5)
        assert await _until(service, lambda: status()["board"]["state"] != "connected", 10)
        lost = status()["board"]
        assert lost["since"] > 0 and status()["mode"] == "camera_only"
        assert await _until(service, lambda: status()["board"]["state"] == "connected", 20)
        assert isinstance(service.inputs.camera, SimulatedCamera)
        service.inputs.camera.unplug(1.0)
        assert await _until(service, lambda: status()["camera"]["state"] == "disconnected", 10)
        assert await _until(service, lambda: status()["mode"] == "sensors_only", 5)
        assert await _until(service, lambda: status()["mode"] == "camera_and_sensors", 30)

    try:
        asyncio.run(scenario())
    finally:
        service.stop()


def test_a_seat_button_ends_its_action_phase(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    from controller.game.access import Asker
    from controller.table.gpio import GpioPins, TableIO

    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=2, bots=False,
                               camera="none", board="none")  # fmt: skip
    factory = MockFactory()
    service = TableService(
        settings, TableIO(GpioPins(seat_buttons=(5, 6), seat_leds=(17, 27)), factory)
    )
    service.start(thread=False)
    service.game.act(Asker.at(0), {"type": "choose_side", "side": "north"})

    async def press() -> None:
        factory.pin(5).drive_low()
        await _until(service, lambda: service.game.open.state.history[-1].TYPE != "choose_side", 5)  # type: ignore[union-attr]

    try:
        asyncio.run(press())
        state = service.game.opened().state
        assert state is not None
        assert any(a.TYPE == "end_actions" for a in state.history)
    finally:
        service.stop()


def test_a_whole_game_on_the_simulated_table(tmp_path: Path) -> None:
    """From rendered frames and serial bytes to the log: the game ends, its scores are those of
    its actions applied directly to the engine, and every deliberate mistake was an alert."""
    from controller.bench.table import _board_caught_up
    from rules.registry import new_game

    # flat out, as `railtable bench table` plays: no real-time pacing, so a busy machine makes
    # the game slower, never cut short
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=21,
                               bot_period_s=0.0, camera_period_s=0.0, tick_s=0.0,
                               mistake_rate=0.1)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    record_id = service.game.open.record.id if service.game.open else 0
    try:
        idle, moves = 0, -1
        while service.game.open is not None and idle < 200:  # a stall: the game never ends
            service.owner.pump()
            service.tick()
            _board_caught_up(service)
            now = len(service.game.open.state.history) if service.game.open else moves
            idle, moves = (idle + 1, moves) if now == moves else (0, now)
    finally:
        service.stop()
    log = EventLog(tmp_path / "railtable.sqlite3")
    record = log.game(record_id)
    assert record is not None and record.ended_at is not None, "the game did not end"
    exported = log.record_json(record_id)
    engine = new_game(exported["game"], exported["options"], exported["seed"])
    for entry in exported["actions"]:
        engine.apply(entry["action"])
    assert engine.is_over and engine.scores() == record.scores
    bots = service.inputs.bots
    assert bots is not None and bots.stats.mistakes >= 1
    assert bots.stats.mistakes_alerted == bots.stats.mistakes
    assert bots.stats.mistakes_applied == 0


def test_a_real_camera_source_feeds_the_referee(tmp_path: Path) -> None:
    """A video file through the camera path (cv2.VideoCapture, its thread, the pipeline)."""
    import cv2

    from controller.simulated.table import PhysicalTable
    from rules.registry import game_named

    info = game_named("offtherails")
    layout, catalogue = info.layout({}), info.catalogue()
    camera = SimulatedCamera(PhysicalTable(layout, catalogue), layout, catalogue)
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (1280, 720))
    for _ in range(40):
        writer.write(camera.frame())
    writer.release()
    settings = ServiceSettings(data_dir=tmp_path / "data", pin="1234", players=2, seed=1,
                               camera=str(video), board="none", camera_period_s=0.02)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)

    async def look() -> bool:
        return await _until(service, lambda: service.status()["mode"] == "camera_only", 20)

    try:
        assert asyncio.run(look()), service.status()
        assert service.inputs.health.camera.state == "calibrated"
    finally:
        service.stop()


def test_lifting_a_minecart_lights_where_it_may_go(tmp_path: Path) -> None:
    from controller.referee.observe import LocationView, Observation, Seen
    from firmware_bridge.messages import Square
    from rules.registry import state_from_json
    from rules.scenario import set_path

    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=1, bots=False,
                               camera="none", board="none")  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    from controller.game.access import Asker

    service.game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    assert service.game.open is not None
    data = service.game.open.state.to_json()
    straight = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
    for square in ("F11", "F10", "F9"):
        set_path(data, f"board.{square}", straight)
    for path, value in {
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F12",
        "carts.red-white.heading": "S",
        "carts.red-white.speed": 3,
    }.items():
        set_path(data, path, value)  # fmt: skip
    state = state_from_json(data)
    service.game.open.state = state
    service.game.open.table = service.game.open.referee.table_of(state)
    asked: list[dict[Square, object]] = []

    class Link:
        def set_leds(self, colours: Mapping[Square, object]) -> None:
            asked.append(dict(colours))

    views = {"F12": LocationView(Seen.MAGNET, magnet=False)}
    mode = service.observe().mode
    try:
        service.lights.show_destinations(Observation(mode, views), Link())
        assert asked, "no LEDs were asked for"
        layout = service.game.open.info.layout(state.options)
        sensor = layout.location("F9").sensor
        assert sensor is not None and Square(*sensor) in asked[-1]
    finally:
        service.stop()


def test_a_game_on_another_mat_moves_the_simulated_table_along(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=4,
                               bot_period_s=0.1, camera_period_s=0.03)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)

    async def switch() -> bool:
        service.game.start("minewagons", {"players": 2}, seed=3)
        return await _until(
            service,
            lambda: (
                service.inputs.bots is not None
                and service.inputs.bots.stats.played >= 2
                and service.status()["mode"] == "camera_and_sensors"
            ),
            60,
        )

    try:
        assert asyncio.run(switch()), service.status()
        layout = service.inputs.physical.layout if service.inputs.physical else None
        assert layout is not None and layout.name.startswith("minewagons")
    finally:
        service.stop()


def test_a_restart_keeps_the_last_games_end_screen_until_the_host_starts_another(
    tmp_path: Path,
) -> None:
    """A new table starts its default game; after a game is over, a restart opens none: every
    phone still sees who won, and the inputs wait for the host's next game."""
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=4, camera="none")
    first = TableService(settings)
    first.start(thread=False)
    assert first.game.open is not None and first.inputs.physical is not None  # the default game
    first.game.end()
    shown = first.game.finished
    first.stop()
    again = TableService(settings)
    again.start(thread=False)
    try:
        assert again.game.open is None  # no game started
        assert again.game.finished == shown and shown is not None
        assert shown["reason"] == "ended by the host" and len(shown["scores"]) == 2
        assert again.inputs.physical is None and again.status()["board"]["state"] == "waiting"
        again.tick()  # nothing to judge, nothing fails
        again.game.start("offtherails", {"players": 2}, seed=5)
        again.tick()  # the inputs follow the host's new game
        assert again.inputs.physical is not None and again.game.finished is None
    finally:
        again.stop()
