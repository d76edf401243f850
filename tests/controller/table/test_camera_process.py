"""The camera's process dies with the service (killed, it leaves no camera behind); a camera
process that crashes or hangs is started again with one line in the log, the camera away
meanwhile; the simulated table's changes reach it."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from controller.table.camera_process import CameraProcess
from controller.table.service import ServiceSettings, TableService
from tests.controller.table.test_camera_worker import _alive, _one_piece_laid
from tests.support.serving import MAIN, free_port
from tests.support.waiting import wait_until

_SERVICE = """
import sys, time
from pathlib import Path
from controller.table.service import ServiceSettings, TableService
service = TableService(ServiceSettings(data_dir=Path(sys.argv[1]), pin="1", players=2, seed=4,
                                       bots=False, board="none"))
service.start()
while service.inputs.eyes.pid is None:
    time.sleep(0.05)
print(service.inputs.eyes.pid, flush=True)
time.sleep(600)
"""


def _service(tmp_path: Path, **settings: object) -> TableService:
    service = TableService(
        ServiceSettings(data_dir=tmp_path, pin="1", players=2, seed=4, bots=False,
                        board="none", **settings)  # type: ignore[arg-type]
    )  # fmt: skip
    service.start()
    return service


def _calibrated(service: TableService) -> None:
    wait_until(lambda: service.owner.status["camera"]["state"] == "calibrated", 60,
               "the camera calibrated")  # fmt: skip


def test_a_killed_service_leaves_no_camera_process(tmp_path: Path) -> None:
    service = subprocess.Popen(
        [sys.executable, "-c", _SERVICE, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert service.stdout is not None
        child = int(service.stdout.readline())
        assert _alive(child)
    finally:
        service.kill()  # no atexit, no clean stop: SIGKILL
        service.wait(10)
    wait_until(lambda: not _alive(child), 10, f"camera process {child} still running")


def test_a_service_stopped_as_systemd_stops_it_does_not_start_its_camera_again(
    tmp_path: Path,
) -> None:
    """systemd stops the unit with SIGTERM to every process of its group, the camera's too: the
    camera waits for the service's word, and the log says no restart."""
    port = free_port()
    command = [sys.executable, "-c", MAIN, "serve", "--data", str(tmp_path), "--port", str(port),
               "--pin", "2468", "--players", "2", "--no-bots", "--board", "none"]  # fmt: skip
    service = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # a group of its own, as a unit's control group
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"

        def calibrated() -> bool:
            try:
                status = httpx.get(url + "/api/status", timeout=2).json()
            except (httpx.HTTPError, ValueError):
                return False
            return bool(status["camera"]["state"] == "calibrated")

        wait_until(lambda: calibrated() or service.poll() is not None, 90, "the camera calibrated")
        os.killpg(service.pid, signal.SIGTERM)
        out, _ = service.communicate(timeout=30)
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait(10)
    # uvicorn raises the signal it caught again once it has stopped: systemd counts that clean
    assert service.returncode in (0, -signal.SIGTERM), out
    assert "starting it again" not in out, out


@pytest.mark.parametrize("fault", ["crash", "hang"])
def test_a_crashed_or_hung_camera_process_is_started_again(
    tmp_path: Path, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    service = _service(tmp_path)
    try:
        eyes = service.inputs.eyes
        assert isinstance(eyes, CameraProcess)
        eyes.hang_s = 2.0
        _calibrated(service)
        child = eyes.pid
        assert child is not None
        with caplog.at_level(logging.WARNING, "railtable"):
            os.kill(child, signal.SIGKILL if fault == "crash" else signal.SIGSTOP)
            wait_until(lambda: eyes.started == 2, 30, "a second camera process")
            assert eyes.latest.state == "disconnected"  # the camera away meanwhile
            wait_until(lambda: eyes.pid not in (None, child), 30, "the new camera process")
        said = [r.getMessage() for r in caplog.records if "camera's process" in r.message]
        why = "stopped (exit code -9)" if fault == "crash" else "was silent for 2 s"
        assert said == [f"the camera's process {why}; starting it again in 1 s"]
        assert not _alive(child)  # a hung one is killed, not left behind
        _calibrated(service)  # and the table is seen again
    finally:
        service.stop()


def test_the_simulated_tables_changes_reach_the_camera_process(tmp_path: Path) -> None:
    service = _service(tmp_path)
    try:
        eyes, physical = service.inputs.eyes, service.inputs.physical
        assert isinstance(eyes, CameraProcess) and physical is not None
        _calibrated(service)
        wait_until(lambda: eyes.latest.still and eyes.latest.version == physical.version, 30)
        frames = eyes.frames
        _one_piece_laid(physical)
        wait_until(lambda: eyes.latest.still and eyes.latest.version == physical.version, 30,
                   lambda: eyes.latest)  # fmt: skip
        assert eyes.latest.table is not None and eyes.frames > frames
        # the frames' reading is counted apart from the simulated frames' drawing
        assert 0 < eyes.read_cpu_s < eyes.cpu_s
        service.owner.call_sync(lambda _: service.tick())
        assert service.settler.camera_still
    finally:
        service.stop()
