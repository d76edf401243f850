"""The camera module through Picamera2, against a stand-in that follows the manual's API: every
format's colours come out in OpenCV's order, padded rows are cut, only the controls a camera has
are set, exposure and white balance are held once settled, and the camera is reopened, retried
and released as a webcam is."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.camera_module import (
    CameraSettings,
    Mains,
    PixelFormat,
    camera_number,
    picamera2_factory,
    to_bgr,
)
from vision.sources import Backoff, CameraSource, CameraState

STANDIN = Path(__file__).parent / "picamera2_standin"
sys.path.insert(0, str(STANDIN))
import picamera2  # noqa: E402 - the stand-in, found on the path just put first

QUICK = CameraSettings(settle_s=0)  # no settling: a frame at once


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def fresh_standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("CAMERAS", "MODEL", "FORMAT", "PAD", "SCENE"):
        monkeypatch.delenv(f"RAILTABLE_STANDIN_{name}", raising=False)
    monkeypatch.setenv("RAILTABLE_STANDIN_PACE", "0")
    monkeypatch.setenv("RAILTABLE_STANDIN_SCENE", "red")
    picamera2.Picamera2.opened.clear()
    picamera2.Picamera2.fail_capture_at = None
    yield
    picamera2.Picamera2.fail_capture_at = None


def _source(settings: CameraSettings = QUICK, address: str = "picamera2", **more: Any) -> Any:
    return CameraSource(
        address, picamera2_factory(settings), width=settings.width, height=settings.height, **more
    )


def _camera() -> Any:
    (camera,) = picamera2.Picamera2.opened
    return camera


@pytest.mark.parametrize("pixel_format", [f.value for f in PixelFormat])
def test_a_red_square_stays_red_in_every_format(
    monkeypatch: pytest.MonkeyPatch, pixel_format: str
) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_FORMAT", pixel_format)  # whatever was asked for
    source = _source()
    frame = source.read()
    assert frame is not None
    image = frame.image
    assert image.shape == (720, 1280, 3) and image.dtype == np.uint8
    assert image.flags["C_CONTIGUOUS"]
    assert tuple(image[300, 400]) == (0, 0, 255)  # B, G, R: red
    assert tuple(image[50, 50]) == (128, 128, 128)
    assert source.granted == (1280, 720) and source.state is CameraState.STREAMING
    source.close()


@pytest.mark.parametrize("pixel_format", ["RGB888", "XBGR8888"])
def test_padded_rows_are_cut_to_the_asked_width(
    monkeypatch: pytest.MonkeyPatch, pixel_format: str
) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_FORMAT", pixel_format)
    monkeypatch.setenv("RAILTABLE_STANDIN_PAD", "32")
    source = _source(CameraSettings(width=640, height=480, settle_s=0))
    frame = source.read()
    assert frame is not None
    assert frame.image.shape == (480, 640, 3)
    assert not (frame.image == 77).all(axis=2).any()  # none of the padding's bytes came along
    assert tuple(frame.image[150, 200]) == (0, 0, 255)
    assert source.reason == "streaming 640x480"
    source.close()


def test_channels_that_contradict_the_format_decide() -> None:
    bgrx = np.zeros((2, 3, 4), np.uint8)
    bgrx[..., 2] = 255  # red in B, G, R, X order
    assert tuple(to_bgr(bgrx, "RGB888")[0, 0]) == (0, 0, 255)  # 4 channels: XRGB8888
    rgb = np.zeros((2, 3, 3), np.uint8)
    rgb[..., 0] = 255  # red in R, G, B order
    assert tuple(to_bgr(rgb, "XBGR8888")[0, 0]) == (0, 0, 255)  # 3 channels: BGR888
    with pytest.raises(ValueError, match="YUV420 frames, which railtable does not read"):
        to_bgr(rgb, "YUV420")


def test_a_camera_module_3_gets_fixed_focus_flicker_and_frame_rate() -> None:
    settings = CameraSettings(frame_rate=10, mains=Mains.HZ60, lens_position=1.5, settle_s=0)
    source = _source(settings)
    assert source.read() is not None
    config = _camera().config
    assert config["main"]["size"] == (1280, 720) and config["main"]["format"] == "RGB888"
    assert config["controls"] == {
        "FrameDurationLimits": (100_000, 100_000),
        "AeFlickerMode": 1,  # manual: the period given
        "AeFlickerPeriod": 8_333,  # 60 Hz mains: lamps flicker at 120 Hz
        "AfMode": 0,  # manual: the lens stays where it is put
        "LensPosition": 1.5,
    }
    source.close()


def test_controls_a_camera_does_not_list_are_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_MODEL", "imx219")  # Camera Module 2: fixed focus
    source = _source(CameraSettings(settle_s=0.5))
    assert source.read() is not None  # the stand-in refuses any control its camera lacks
    camera = _camera()
    assert set(camera.config["controls"]) == {"FrameDurationLimits"}
    assert "AfMode" not in camera.controls and "AeFlickerPeriod" not in camera.controls
    source.close()


def test_exposure_and_white_balance_settle_then_hold() -> None:
    source = _source(CameraSettings(frame_rate=10, settle_s=0.5))
    assert source.read() is not None
    camera = _camera()
    assert camera.calls[:3] == ["create_video_configuration", "configure", "start"]
    assert camera.calls[3:8] == ["capture_metadata"] * 5  # 0.5 s at 10 frames a second
    assert camera.calls[8] == "set_controls" and camera.calls.count("set_controls") == 1
    held = camera.controls
    assert held["AeEnable"] is False and held["AwbEnable"] is False
    assert held["ExposureTime"] == 20_000  # 23456 us settled: two whole 100 Hz periods
    assert held["AnalogueGain"] == pytest.approx(2.0 * 23_456 / 20_000)  # as bright as settled
    assert held["ColourGains"] == (1.93, 1.61)
    assert camera.capture_metadata()["ExposureTime"] == 20_000  # held, frame after frame
    source.close()


def test_no_settling_leaves_exposure_and_white_balance_automatic() -> None:
    source = _source(CameraSettings(settle_s=0))
    assert source.read() is not None
    assert "set_controls" not in _camera().calls
    source.close()


def test_a_capture_that_raises_drops_the_camera_and_it_is_reopened() -> None:
    clock = Clock()
    source = _source(clock=clock, backoff=Backoff(first=1.0, longest=4.0))
    assert source.read() is not None
    picamera2.Picamera2.fail_capture_at = 2  # the frontend times out at the next capture
    assert source.read() is None
    first = _camera()
    assert first.calls.count("stop") == 1 and first.calls.count("close") == 1
    assert source.state is CameraState.DISCONNECTED
    assert "Camera frontend has timed out!" in source.reason
    picamera2.Picamera2.fail_capture_at = None
    assert source.read() is None  # not before the backoff's delay
    assert len(picamera2.Picamera2.opened) == 1
    clock.now += 1.0
    frame = source.read()
    assert frame is not None and len(picamera2.Picamera2.opened) == 2
    assert source.state is CameraState.STREAMING and source.reconnects == 1
    source.close()


def test_a_closed_source_stops_and_closes_the_camera_once() -> None:
    source = _source()
    assert source.read() is not None
    source.close()
    source.close()
    camera = _camera()
    assert camera.calls.count("stop") == 1 and camera.calls.count("close") == 1
    assert camera.calls[-2:] == ["stop", "close"]
    assert source.read() is None and len(picamera2.Picamera2.opened) == 1


def test_no_camera_module_is_said_once_and_retried_with_backoff(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAILTABLE_STANDIN_CAMERAS", "0")
    looked: list[int] = []
    listing = picamera2.Picamera2.global_camera_info

    def counted() -> list[dict[str, Any]]:
        looked.append(1)
        return listing()

    monkeypatch.setattr(picamera2.Picamera2, "global_camera_info", staticmethod(counted))
    clock = Clock()
    source = _source(clock=clock, backoff=Backoff(first=1.0, longest=4.0))
    for _ in range(50):
        assert source.read() is None
    assert len(looked) == 1 and not picamera2.Picamera2.opened  # not hammered
    assert source.state is CameraState.CONNECTING
    assert source.reason == (
        "camera 'picamera2': no camera module found by libcamera: check the ribbon cable and "
        "`rpicam-hello --list-cameras`"
    )
    for delay in (1.0, 2.0, 4.0, 4.0):
        clock.now += delay
        assert source.read() is None
    assert len(looked) == 5  # once a delay: 1, 2, 4, 4 s
    monkeypatch.setenv("RAILTABLE_STANDIN_CAMERAS", "1")  # the ribbon cable pushed home
    clock.now += 4.0
    assert source.read() is not None and source.state is CameraState.STREAMING
    source.close()


def test_a_second_camera_that_is_not_there_names_those_that_are() -> None:
    source = _source(address="picamera2:1")
    assert source.read() is None
    assert "no camera module 1: libcamera sees 1 (0: imx708" in source.reason
    assert 'write source = "picamera2" for the first' in source.reason


def test_picamera2_not_installed_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 fails
    source = _source()
    assert source.read() is None
    assert source.reason == (
        "camera 'picamera2': picamera2 is not installed: sudo apt install python3-picamera2 "
        "and make the venv with --system-site-packages (docs/install-pi.md)"
    )


def test_camera_numbers() -> None:
    assert camera_number("picamera2") == 0 and camera_number("picamera2:1") == 1
    assert camera_number("0") is None and camera_number("/dev/video0") is None
    with pytest.raises(ValueError, match="must be a whole number"):
        camera_number("picamera2:one")
