"""`railtable serve --camera picamera2` as a process, a Picamera2 stand-in on its PYTHONPATH: it
calibrates on the rendered mat and reads what lies there; with no camera module it says so in
one line and referees on the sensor board alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.serving import MAIN, free_port
from tests.support.waiting import wait_until

STANDIN = Path(__file__).parents[2] / "vision" / "picamera2_standin"


@contextmanager
def _serve(tmp_path: Path, scene: str, cameras: int) -> Iterator[tuple[str, Path]]:
    """The service on a free port with the virtual sensor board and no bots; yields its address
    and the file its stderr goes to."""
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(STANDIN), *sys.path]),
        "RAILTABLE_STANDIN_SCENE": scene,
        "RAILTABLE_STANDIN_CAMERAS": str(cameras),
    }
    errors = tmp_path / "stderr"
    with errors.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", MAIN, "serve", "--camera", "picamera2", "--board",
             "simulated", "--no-bots", "--data", str(tmp_path / "data"), "--port", str(port),
             "--host", "127.0.0.1", "--pin", "2468", "--game", "offtherails", "--players", "2",
             "--seed", "3"],
            env=env, stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
        try:
            yield f"http://127.0.0.1:{port}", errors
        finally:
            process.terminate()
            process.wait(20)


def _until(url: str, check: Callable[[dict[str, Any]], bool], seconds: float) -> dict[str, Any]:
    """The table's status once `check` holds for it."""
    status: dict[str, Any] = {}

    def holds() -> bool:
        try:
            answer = httpx.get(f"{url}/api/status", timeout=2).json()
        except httpx.HTTPError:
            return False
        status.clear()
        status.update(answer)
        return check(status)

    wait_until(holds, seconds, status, every=0.2)
    return status


def test_serve_with_a_camera_module_calibrates_and_reads_the_table(tmp_path: Path) -> None:
    with _serve(tmp_path, "offtherails:2:3", cameras=1) as (url, errors):
        status = _until(url, lambda s: s["camera"]["state"] == "calibrated", 60)
        assert "4 of 4 corner markers seen" in status["camera"]["detail"]
        # the camera's settled table fused with the board's: the referee judges both
        status = _until(url, lambda s: s["mode"] == "camera_and_sensors", 30)
        assert status["board"]["state"] == "connected"
        assert status["camera"]["detail"].endswith("view settled")
    said = errors.read_text()
    assert "camera 'picamera2': streaming 1280x720" in said and "Traceback" not in said


def test_serve_without_a_camera_module_says_so_once_and_runs_on_the_board(
    tmp_path: Path,
) -> None:
    with _serve(tmp_path, "offtherails:2:3", cameras=0) as (url, errors):
        status = _until(
            url,
            lambda s: s["mode"] == "sensors_only" and "libcamera" in s["camera"]["detail"],
            60,
        )
        assert status["board"]["state"] == "connected"
        assert status["camera"]["state"] in ("connecting", "disconnected")
        assert "no camera module found by libcamera" in status["camera"]["detail"]
        time.sleep(6)  # a few retries with backoff (0.5, 1, 2 s ...)
    said = errors.read_text()
    lines = [line for line in said.splitlines() if "camera" in line]
    assert lines == [
        "WARNING railtable: camera 'picamera2': no camera module found by libcamera: check the "
        "ribbon cable and `rpicam-hello --list-cameras`; trying again now and then"
    ], said
    assert "Traceback" not in said
