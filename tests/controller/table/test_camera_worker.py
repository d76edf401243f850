"""The camera's frames in a process of their own; a simulated table at rest costs no frames; a view
of an older table is never taken as still; freed memory handed back."""

from __future__ import annotations

import os
from pathlib import Path

from controller.simulated.table import PhysicalTable
from controller.table.camera_process import CameraProcess
from controller.table.camera_worker import CameraWorker
from controller.table.memory import give_back, map_big_blocks
from controller.table.service import ServiceSettings, TableService
from rules.physical import PlacedPiece
from tests.support.waiting import wait_until


def _alive(pid: int) -> bool:
    """The process runs (a zombie nobody reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _one_piece_laid(table: PhysicalTable) -> None:
    """A change on the table: a minecart set down on the first location."""
    pieces, version = table.pieces(), table.version
    where = table.layout.locations[0].name
    cart = next(p for p in table.by_piece if p.kind == "minecart")
    table.lay({**pieces, where: (*pieces.get(where, ()), PlacedPiece(cart))})
    assert table.version == version + 1


def _until_still(eyes: CameraWorker, frames: int = 40) -> None:
    for _ in range(frames):
        eyes.step()
        if eyes.latest.still:
            return
    raise AssertionError(f"the view never settled: {eyes.latest}")


def test_the_camera_is_read_in_its_own_process_never_the_services(tmp_path: Path) -> None:
    settings = ServiceSettings(data_dir=tmp_path, pin="1", players=2, seed=4, bots=False,
                               camera_period_s=0.02, tick_s=0.02)  # fmt: skip
    service = TableService(settings)
    service.start()
    try:
        eyes = service.inputs.eyes
        assert isinstance(eyes, CameraProcess) and service.inputs.camera is None
        wait_until(lambda: service.owner.status["camera"]["state"] == "calibrated", 60,
                   "the camera calibrated")  # fmt: skip
        child = eyes.pid
        assert child is not None and child != os.getpid()
        assert eyes.frames > 0
        assert service.camera_jpeg() is not None  # asked of the child, from this thread
    finally:
        service.stop()
    assert eyes.pid is None and not _alive(child)  # a clean stop ends it


def test_a_table_at_rest_costs_no_frames_and_a_change_is_looked_at_at_once(
    tmp_path: Path,
) -> None:
    settings = ServiceSettings(data_dir=tmp_path, pin="1", players=2, seed=4, bots=False,
                               board="none")  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    try:
        eyes, physical = service.inputs.eyes, service.inputs.physical
        assert isinstance(eyes, CameraWorker) and physical is not None  # stepped here
        _until_still(eyes)
        frames = eyes.frames
        for _ in range(20):
            eyes.step()
        assert eyes.frames == frames  # settled, unchanged: nothing drawn, nothing read
        _one_piece_laid(physical)
        eyes.step()
        assert eyes.frames == frames + 1
        assert not eyes.latest.still  # the hand that made the change crosses the view
    finally:
        service.stop()


def test_a_view_older_than_the_table_is_never_still(tmp_path: Path) -> None:
    """A change laid on the simulated table and not yet in a frame: the tick must wait (a view
    of the table before the change, fused with the board after it, was judged as a mistake)."""
    settings = ServiceSettings(data_dir=tmp_path, pin="1", players=2, seed=4, bots=False,
                               camera_period_s=3600.0, tick_s=0.0)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    try:
        eyes, physical = service.inputs.eyes, service.inputs.physical
        assert isinstance(eyes, CameraWorker) and physical is not None  # stepped here
        _until_still(eyes)
        service.tick()
        assert service.settler.camera_still
        _one_piece_laid(physical)  # laid, no frame of it yet
        assert eyes.latest.still and eyes.latest.version != physical.version
        service.tick()  # the camera is not due for an hour: the view stays old
        assert not service.settler.camera_still
    finally:
        service.stop()


def test_freed_memory_goes_back_to_the_system() -> None:
    assert map_big_blocks() and give_back()  # glibc (Debian, Raspberry Pi OS)
