"""Frame sources: the camera reconnects by itself; recorded frames come back in order."""

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import (
    Backoff,
    CameraSource,
    CameraState,
    CameraThread,
    FolderSource,
    SyntheticSource,
    VideoFileSource,
    camera_address,
    open_recorded,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeCamera:
    """A camera on a USB port: plugged or not; frames are numbered so order can be checked."""

    def __init__(self) -> None:
        self.plugged = True
        self.opens = 0
        self.frames = 0

    def factory(self, address: int | str) -> "FakeCapture":
        self.opens += 1
        return FakeCapture(self)


class FakeCapture:
    def __init__(self, camera: FakeCamera) -> None:
        self.camera = camera
        self.opened = camera.plugged

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if not (self.opened and self.camera.plugged):
            return False, None
        self.camera.frames += 1
        return True, np.full((4, 4, 3), self.camera.frames % 256, np.uint8)

    def release(self) -> None:
        self.opened = False


def test_camera_unplugged_and_plugged_back_is_picked_up_again() -> None:
    cam, clock = FakeCamera(), FakeClock()
    source = CameraSource(0, cam.factory, clock, Backoff(0.5, 2.0))
    assert source.read() is not None and source.state == CameraState.STREAMING
    cam.plugged = False
    assert source.read() is None
    assert source.state == CameraState.DISCONNECTED
    assert "gave no frame" in source.reason
    # while unplugged: one reopen per backoff delay, delays doubling to the longest
    attempts = []
    for _ in range(6):
        assert source.read() is None  # too early: no reopen attempted
        opens = cam.opens
        clock.now += source.backoff.current
        assert source.read() is None
        attempts.append((cam.opens - opens, source.backoff.current))
    assert attempts == [(1, 1.0), (1, 2.0), (1, 2.0), (1, 2.0), (1, 2.0), (1, 2.0)]
    assert source.reason == "camera 0 could not be opened"
    cam.plugged = True
    clock.now += source.backoff.current
    frame = source.read()
    assert frame is not None and source.state == CameraState.STREAMING
    assert source.reconnects == 1 and source.backoff.current == 0.0
    source.close()
    assert source.state == CameraState.CLOSED and source.read() is None


def test_a_camera_that_raises_when_opened_is_retried() -> None:
    clock = FakeClock()
    calls = []

    def factory(address: int | str) -> FakeCapture:
        calls.append(address)
        if len(calls) < 3:
            raise RuntimeError("v4l2: device busy")
        return FakeCapture(FakeCamera())

    source = CameraSource("rtsp://table/cam", factory, clock)
    for _ in range(3):
        assert source.read() is None or source.state == CameraState.STREAMING
        clock.now += 10
    assert source.read() is not None
    assert source.state == CameraState.STREAMING and source.reconnects == 0
    assert len(calls) == 3


def test_camera_thread_keeps_the_latest_frame_across_a_replug() -> None:
    cam = FakeCamera()
    thread = CameraThread(CameraSource(0, cam.factory, backoff=Backoff(0.01, 0.02)), 0.005)
    thread.start()
    try:
        _wait_for(lambda: thread.latest() is not None)
        cam.plugged = False
        _wait_for(lambda: thread.state == CameraState.DISCONNECTED)
        before = cam.frames
        cam.plugged = True
        _wait_for(lambda: thread.state == CameraState.STREAMING and cam.frames > before + 2)
        assert thread.source.reconnects == 1
    finally:
        thread.stop()
    assert thread.state == CameraState.CLOSED


def _wait_for(condition: Any, limit: float = 5.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not reached")
        time.sleep(0.002)


def test_camera_address_parses_device_indexes() -> None:
    assert camera_address("0") == 0
    assert camera_address("/dev/video2") == "/dev/video2"


def test_video_file_is_read_through_real_videocapture(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    source = open_recorded(path)
    assert isinstance(source, VideoFileSource)
    frames = []
    while (f := source.read()) is not None:
        frames.append(f)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert [round(float(f.image.mean()) / 40) for f in frames] == [0, 1, 2, 3, 4]
    source.close()


def test_folder_source_reads_images_in_name_order(tmp_path: Path) -> None:
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"frame{i:03}.png"), np.full((8, 8, 3), 50 * i, np.uint8))
    (tmp_path / "notes.txt").write_text("not a frame")
    source = open_recorded(tmp_path)
    assert isinstance(source, FolderSource)
    values = []
    while (f := source.read()) is not None:
        values.append(int(f.image[0, 0, 0]))
    assert values == [0, 50, 100]


def test_recorded_sources_name_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no image files"):
        FolderSource(tmp_path)
    with pytest.raises(ValueError, match="no such folder or video file"):
        open_recorded(tmp_path / "missing.avi")
    (tmp_path / "broken.avi").write_bytes(b"not a video")
    with pytest.raises(ValueError, match="cannot open video file"):
        VideoFileSource(tmp_path / "broken.avi")


def test_synthetic_source_numbers_frames_and_ends() -> None:
    source = SyntheticSource(iter([np.zeros((2, 2, 3), np.uint8)] * 2))
    assert [source.read() is not None for _ in range(3)] == [True, True, False]
