"""The mine-wagon race on the simulated table (issue 20): what the camera reads of wagons on
their tiles and of an emptied starting area, and whole races with the sensor board alone."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from controller.game.store import EventLog
from controller.simulated.camera import SimulatedCamera
from controller.simulated.table import PhysicalTable
from controller.table.service import ServiceSettings, TableService
from controller.vision_bridge import observation, stickers
from rules.minewagons import physical
from rules.minewagons.components import Colour, Shape
from rules.physical import PlacedPiece, TableObservation
from vision.pipeline import VisionPipeline

RED = PlacedPiece(physical.wagon_piece(Colour.RED))
ROCK = PlacedPiece(physical.ROCK)
TILE = PlacedPiece(physical.tile_piece(Colour.BLUE, Shape.I), 1)


class _Camera:
    """The simulated camera and the vision pipeline over a simulated 2-player mat."""

    def __init__(self) -> None:
        layout, catalogue = physical.layout({"players": 2}), physical.catalogue()
        self.table = PhysicalTable(layout, catalogue)
        self.camera = SimulatedCamera(self.table, layout, catalogue)
        self.pipeline = VisionPipeline(self.camera.geometry, stickers(catalogue))
        self.catalogue = catalogue
        self.seen: TableObservation | None = None

    def look(self, pieces: dict[str, tuple[PlacedPiece, ...]]) -> TableObservation | None:
        """Lay the table so and let the view settle; the settled view, if a new one formed."""
        self.table.lay(pieces)
        new = None
        for _ in range(12):
            report = self.pipeline.process(self.camera.frame())
            if report.settled is not None:
                new = self.seen = observation(report.settled, self.catalogue)
        return new


def test_the_last_wagon_taken_off_a_starting_area_is_seen() -> None:
    """A wagon is small beside a starting area as long as the board: its going changed too few
    of the area's cells, and the camera went on seeing it there (the race stalled)."""
    camera = _Camera()
    for count in (3, 2, 1, 0):
        seen = camera.look({"start-red": (RED,) * count})
        assert seen is not None, f"no new view with {count} wagons"
        assert len(seen.at("start-red")) == count


def test_a_wagon_on_its_tile_is_read_on_top_and_the_rock_lies_over_its_tile() -> None:
    camera = _Camera()
    camera.look({"E3": (TILE,), "C3": (TILE,)})
    seen = camera.look({"E3": (TILE, RED), "C3": (TILE, ROCK)})
    assert seen is not None
    assert seen.at("E3") == (RED,) and seen.at("C3") == (ROCK,)
    assert {"E3", "C3"} <= seen.on_top and not seen.unknown
    seen = camera.look({"E3": (TILE,), "C3": (TILE,)})
    assert seen is not None and seen.at("E3") == (TILE,) and "E3" not in seen.on_top


def test_an_empty_square_with_tiles_on_all_four_sides_reads_empty() -> None:
    """Its outline shows between it and its neighbours' tiles, 2-3 mm beyond: the line was
    taken at the tiles' darker edge, no side could tell, the square stayed unknown for good and
    a race stalled (D4, issue 23's vision)."""
    camera = _Camera()
    around: dict[str, tuple[PlacedPiece, ...]] = {
        "C4": (TILE,),
        "E4": (TILE,),
        "D3": (TILE,),
        "D5": (TILE,),
    }
    seen = camera.look(around)
    assert seen is not None
    assert not seen.unknown, seen.unknown
    assert seen.at("D4") == ()
    seen = camera.look({**around, "D4": (TILE,)})
    assert seen is not None and seen.at("D4") == (TILE,)
    seen = camera.look(around)
    assert seen is not None and seen.at("D4") == () and not seen.unknown


def _race(tmp_path: Path, players: int, seed: int, camera: str, board: str) -> TableService:
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", game="minewagons", players=players,
                               seed=seed, bot_period_s=0.05, camera_period_s=0.03, tick_s=0.01,
                               camera=camera, board=board)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    deadline = time.monotonic() + 120
    try:
        while service.game.open is not None and time.monotonic() < deadline:
            service.owner.pump()
            service.tick()
            time.sleep(0.002)
    finally:
        service.stop()
    return service


@pytest.mark.parametrize("players", [2, 4])
def test_the_race_plays_to_its_end_with_the_sensor_board_alone(
    tmp_path: Path, players: int
) -> None:
    """With the camera off no tile shows: the bots say them on a phone (a tile's face too, when
    asked), wagons are felt; the race used to stall before its first move."""
    service = _race(tmp_path, players, 3, camera="none", board="simulated")
    assert service.game.open is None, "the race did not end"
    bots = service.inputs.bots
    assert bots is not None and bots.stats.played > 10 and bots.stats.said > 10
    (record,) = EventLog(tmp_path / "railtable.sqlite3").games()
    assert record.game == "minewagons" and record.ended_at is not None
