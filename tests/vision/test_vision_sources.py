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
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
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


class RaisingCapture(FakeCapture):
    """A capture whose driver raises (as OpenCV's V4L2 backend does on an unplug) on one read."""

    def __init__(self, camera: FakeCamera, raise_on: int) -> None:
        super().__init__(camera)
        self.reads = 0
        self.raise_on = raise_on

    def read(self) -> tuple[bool, Any]:
        self.reads += 1
        if self.reads == self.raise_on:
            raise cv2.error("VIDIOC_DQBUF: No such device")
        return super().read()


def test_a_capture_that_raises_is_a_failed_read_and_is_reopened() -> None:
    cam, clock = FakeCamera(), FakeClock()
    captures: list[RaisingCapture] = []

    def factory(address: int | str) -> RaisingCapture:
        captures.append(RaisingCapture(cam, 5 if not captures else 0))
        return captures[-1]

    source = CameraSource(0, factory, clock, Backoff(0.5, 2.0))
    assert all(source.read() is not None for _ in range(4))
    assert source.read() is None
    assert source.state == CameraState.DISCONNECTED
    assert "No such device" in source.reason
    assert not captures[0].opened  # released
    clock.now += 0.5
    assert source.read() is not None and source.state == CameraState.STREAMING
    assert source.reconnects == 1 and len(captures) == 2


def test_camera_thread_survives_a_raising_read_and_stale_frames_are_not_served() -> None:
    cam, clock = FakeCamera(), FakeClock()
    captures: list[RaisingCapture] = []

    def factory(address: int | str) -> RaisingCapture:
        captures.append(RaisingCapture(cam, 5 if not captures else 0))
        return captures[-1]

    source = CameraSource(0, factory, clock, Backoff(0.5, 2.0))
    thread = CameraThread(source, 0.002, stale_after_s=1.0).start()
    try:
        _wait_for(lambda: thread.state == CameraState.DISCONNECTED)
        assert thread._thread.is_alive()
        last = thread.latest()
        assert last is not None and last.index == 3  # four frames, then the raise
        clock.now += 1.5  # no new frame for longer than stale_after_s
        assert thread.latest() is None
        clock.now += 0.5  # past the backoff: reopened, frames flow again
        _wait_for(lambda: thread.latest() is not None)
        assert thread.state == CameraState.STREAMING and source.reconnects == 1
    finally:
        thread.stop()
    assert thread.state == CameraState.CLOSED and thread.latest() is None


def test_stop_while_the_camera_is_still_opening_leaves_it_closed() -> None:
    import threading

    gate = threading.Event()
    made: list[FakeCapture] = []

    def slow_factory(address: int | str) -> FakeCapture:
        gate.wait(10)  # a dead RTSP stream or a slow USB re-enumeration
        made.append(FakeCapture(FakeCamera()))
        return made[-1]

    source = CameraSource("rtsp://cam", slow_factory)
    thread = CameraThread(source, 0.002).start()
    thread.stop(timeout=0.01)
    assert thread._thread.is_alive()  # still inside the factory
    assert source.state == CameraState.CLOSED
    gate.set()
    thread._thread.join(10)
    assert not thread._thread.is_alive()
    assert source.state == CameraState.CLOSED
    assert len(made) == 1 and not made[0].opened and source._capture is None
    assert source.read() is None


class SizedCapture(FakeCapture):
    """A capture that grants what it can (640x480 at most, like many V4L2 webcams)."""

    def __init__(self, camera: FakeCamera) -> None:
        super().__init__(camera)
        self.props: dict[int, float] = {}

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = min(value, {cv2.CAP_PROP_FRAME_WIDTH: 640}.get(prop, 480))
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def read(self) -> tuple[bool, Any]:
        ok, _ = super().read()
        w, h = int(self.props[cv2.CAP_PROP_FRAME_WIDTH]), int(self.props[cv2.CAP_PROP_FRAME_HEIGHT])
        return ok, np.zeros((h, w, 3), np.uint8)


def test_camera_asks_for_720p_and_reports_what_it_got() -> None:
    cam = FakeCamera()
    asked: list[SizedCapture] = []

    def factory(address: int | str) -> SizedCapture:
        asked.append(SizedCapture(cam))
        return asked[-1]

    source = CameraSource(0, factory, FakeClock())
    assert (source.width, source.height) == (1280, 720)
    frame = source.read()
    assert frame is not None
    assert asked[0].props == {cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480}
    assert source.granted == (640, 480)
    assert "640x480" in source.reason and "1280x720" in source.reason
    hd = CameraSource(0, factory, FakeClock(), width=1920, height=1080)
    assert hd.read() is not None and asked[1].props[cv2.CAP_PROP_FRAME_HEIGHT] == 480
