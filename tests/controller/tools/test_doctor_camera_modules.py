"""`railtable doctor` and camera modules: the ones libcamera sees with the `source` for each, a
V4L2 index on a Pi whose camera is a camera module, and a camera module that is not there."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.config import Config
from controller.tools.doctor import check_camera, check_camera_modules

STANDIN = Path(__file__).parents[2] / "vision" / "picamera2_standin"


@pytest.fixture(autouse=True)
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(STANDIN))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.setenv("RAILTABLE_STANDIN_PACE", "0")
    monkeypatch.setenv("RAILTABLE_STANDIN_SCENE", "red")
    yield


def test_the_camera_modules_libcamera_sees_and_the_source_for_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_CAMERAS", "2")
    found = check_camera_modules(dataclasses.replace(Config(), camera="picamera2:1"))
    assert found.ok, found.line()
    assert found.detail.startswith("libcamera sees 2: 0: imx708 (")
    assert 'source = "picamera2";' in found.detail and 'source = "picamera2:1"' in found.detail
    camera = check_camera(dataclasses.replace(Config(), camera="picamera2:1"))
    assert camera.ok and camera.detail == "'picamera2:1' (imx708) gives 1280x720 pictures"


def test_a_v4l2_index_on_a_camera_module_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_CAMERAS", "1")
    found = check_camera_modules(dataclasses.replace(Config(), camera="7"))  # nothing there
    assert not found.ok
    assert "source = '7' reads through V4L2" in found.detail
    assert 'write source = "picamera2"' in found.detail


def test_no_camera_module_and_no_picamera2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_CAMERAS", "0")
    wanted = dataclasses.replace(Config(), camera="picamera2")
    missing = check_camera_modules(wanted)
    assert not missing.ok and "rpicam-hello --list-cameras" in missing.detail
    assert not check_camera(wanted).ok
    assert check_camera_modules(Config()).ok  # the simulated camera wants none
    monkeypatch.setitem(sys.modules, "picamera2", None)
    absent = check_camera_modules(wanted)
    assert not absent.ok and "sudo apt install python3-picamera2" in absent.detail
    elsewhere = check_camera_modules(Config())
    assert elsewhere.ok and "not installed" in elsewhere.detail
