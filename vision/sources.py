"""Frame sources: a camera that reconnects by itself, recorded frames (folder or video), synthetic.

Every source has `read() -> Frame | None` (None: no frame now, or the recording has ended) and
`close()`. The camera's only I/O seam is its capture factory (`cv2.VideoCapture` by default; a
camera module's `Picamera2Capture`, vision/camera_module.py), so tests plug in a fake that fails
and recovers. `CameraThread` is the one place with a thread.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from vision.camera_module import (
    CameraSettings,
    CameraUnavailable,
    camera_number,
    picamera2_factory,
)
from vision.markers import Image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


@dataclass(frozen=True)
class Frame:
    """One picture from a source: its number from the source's start, the image, when it came."""

    index: int
    image: Image
    timestamp: float


class FrameSource(Protocol):
    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class Capture(Protocol):
    """The part of `cv2.VideoCapture` a source uses."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


CaptureFactory = Callable[[int | str], Capture]


def _opencv_capture(address: int | str) -> Capture:
    import cv2

    capture: Capture = cv2.VideoCapture(address)
    return capture


def camera_address(text: str) -> int | str:
    """A device index ("0") as an int; a file path or stream URL as it is."""
    return int(text) if text.isdigit() else text


def open_camera(source: str, settings: CameraSettings | None = None) -> CameraSource:
    """The live camera a `[camera] source` names: a camera module through Picamera2
    ("picamera2", "picamera2:1"), else a device index, file or stream URL through OpenCV.
    ValueError for a camera module's number that is not one."""
    settings = settings or CameraSettings()
    width, height = settings.width, settings.height
    if camera_number(source) is not None:
        return CameraSource(source, picamera2_factory(settings), width=width, height=height)
    return CameraSource(camera_address(source), width=width, height=height)


class CameraState(StrEnum):
    """The camera link as the web page shows it."""

    CONNECTING = "connecting"
    STREAMING = "streaming"
    DISCONNECTED = "disconnected"
    CLOSED = "closed"


@dataclass
class Backoff:
    """Delay before the next reopen: doubles from `first` up to `longest`, reset by a frame."""

    first: float = 0.5
    longest: float = 5.0
    current: float = 0.0

    def next_delay(self) -> float:
        self.current = self.first if self.current == 0 else min(self.longest, self.current * 2)
        return self.current

    def reset(self) -> None:
        self.current = 0.0


class CameraSource:
    """A live camera (device index, file or stream URL) that reopens itself after a failure.

    `read` never blocks on a dead camera: while disconnected it returns None until the backoff
    delay has passed, then tries to reopen once. A read that fails or raises (OpenCV's V4L2
    backend raises `cv2.error` on an unplug) releases the capture and counts as a disconnect.
    `width` x `height` is asked of the camera on every open (OpenCV's V4L2 default is 640x480);
    `granted` is the size of the frames it actually delivers. `state`, `reason` and
    `reconnects` say how it is. Once closed it stays closed: a capture that finishes opening
    afterwards is released at once.
    """

    def __init__(
        self,
        address: int | str,
        factory: CaptureFactory = _opencv_capture,
        clock: Callable[[], float] = time.monotonic,
        backoff: Backoff | None = None,
        *,
        width: int | None = 1280,
        height: int | None = 720,
    ) -> None:
        self.address = address
        self.factory = factory
        self.clock = clock
        self.backoff = backoff or Backoff()
        self.width = width
        self.height = height
        self.granted: tuple[int, int] | None = None
        self.state = CameraState.CONNECTING
        self.reason = "not opened yet"
        self.reconnects = 0
        self._capture: Capture | None = None
        self._retry_at = 0.0
        self._index = 0
        self._ever_streamed = False
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> Frame | None:
        if self._closed:
            return None
        if self._capture is None and not self._open():
            return None
        capture = self._capture
        assert capture is not None
        try:
            ok, image = capture.read()
        except Exception as exc:  # a driver may raise instead of reporting failure
            self._drop(f"camera {self.address!r} failed to read: {exc}")
            return None
        if self._closed:
            self._release()
            return None
        if not ok or image is None:
            self._drop(f"camera {self.address!r} gave no frame (unplugged?)")
            return None
        if self.state != CameraState.STREAMING:
            if self._ever_streamed:
                self.reconnects += 1
            self._ever_streamed = True
            self.state = CameraState.STREAMING
            self.granted = (int(image.shape[1]), int(image.shape[0]))
            self.reason = f"streaming {self.granted[0]}x{self.granted[1]}"
            if self.width and self.height and self.granted != (self.width, self.height):
                self.reason += f" (asked for {self.width}x{self.height})"
        self.backoff.reset()
        frame = Frame(self._index, image, self.clock())
        self._index += 1
        return frame

    def close(self) -> None:
        """Release the camera and refuse to open it again. Call it from the thread that reads
        (`CameraThread` does); from elsewhere use `request_close`."""
        self.request_close()
        self._release()

    def request_close(self) -> None:
        """Mark the source closed without touching the capture, which may be in use by the
        reading thread: its next `read` (or an open that is still under way) releases it."""
        self._closed = True
        self.state = CameraState.CLOSED
        self.reason = "closed"

    def _release(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            # a dead driver may raise here too; the capture is gone either way
            with contextlib.suppress(Exception):
                capture.release()

    def _open(self) -> bool:
        now = self.clock()
        if now < self._retry_at:
            return False
        try:
            capture = self.factory(self.address)
        except CameraUnavailable as exc:  # its message says what to do, whole
            self._drop(f"camera {self.address!r}: {exc}")
            return False
        except Exception as exc:  # a driver may raise instead of reporting failure
            self._drop(f"camera {self.address!r} could not be opened: {exc}")
            return False
        self._capture = capture
        if self._closed:  # closed while the open was under way
            self._release()
            return False
        try:
            opened = capture.isOpened()
            if opened:
                self._ask_size(capture)
        except Exception as exc:
            self._drop(f"camera {self.address!r} could not be opened: {exc}")
            return False
        if not opened:
            self._drop(f"camera {self.address!r} could not be opened")
            return False
        return True

    def _ask_size(self, capture: Capture) -> None:
        """Ask for `width` x `height` (if the capture takes properties; fakes may not)."""
        setter = getattr(capture, "set", None)
        if setter is None or not self.width or not self.height:
            return
        import cv2

        setter(cv2.CAP_PROP_FRAME_WIDTH, float(self.width))
        setter(cv2.CAP_PROP_FRAME_HEIGHT, float(self.height))

    def _drop(self, reason: str) -> None:
        self._release()
        if self._closed:
            return
        self.state = CameraState.DISCONNECTED if self._ever_streamed else CameraState.CONNECTING
        self.reason = reason
        self._retry_at = self.clock() + self.backoff.next_delay()


class CameraThread:
    """Reads a source continuously in a daemon thread and keeps only the latest frame.

    The thread owns the camera: it opens, reads and finally releases it, so `stop` never races
    a read or an open that is still under way (one that outlasts `stop`'s timeout is released
    as soon as it returns). `latest` serves only a fresh frame: None once the newest frame is
    older than `stale_after_s` (the camera stalled or is reconnecting) or after `stop`.
    """

    def __init__(
        self, source: CameraSource, idle_s: float = 0.05, stale_after_s: float = 2.0
    ) -> None:
        self.source = source
        self.idle_s = idle_s
        self.stale_after_s = stale_after_s
        self._latest: Frame | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> CameraThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self.source.request_close()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.source.close()  # the thread is done (or never ran): nobody else holds it
        with self._lock:
            self._latest = None

    def latest(self) -> Frame | None:
        """The newest frame, or None if there is none younger than `stale_after_s`."""
        with self._lock:
            frame = self._latest
        if frame is None or self.source.closed:
            return None
        if self.source.clock() - frame.timestamp > self.stale_after_s:
            return None
        return frame

    @property
    def state(self) -> CameraState:
        return self.source.state

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    frame = self.source.read()
                except Exception as exc:  # never let the camera thread die silently
                    self.source._drop(f"camera {self.source.address!r} failed: {exc}")
                    frame = None
                if frame is None:
                    self._stop.wait(self.idle_s)
                    continue
                with self._lock:
                    self._latest = frame
        finally:
            self.source.close()


class FolderSource:
    """Recorded frames: the image files of a folder in name order."""

    def __init__(self, folder: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise ValueError(f"no image files ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
        self.clock = clock
        self._next = 0

    def read(self) -> Frame | None:
        import cv2

        while self._next < len(self.paths):
            path = self.paths[self._next]
            self._next += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return Frame(self._next - 1, image, self.clock())
        return None

    def close(self) -> None:
        self._next = len(self.paths)


class VideoFileSource:
    """Recorded frames from a video file, read once to its end (no reconnecting)."""

    def __init__(
        self,
        path: Path,
        factory: CaptureFactory = _opencv_capture,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capture = factory(str(path))
        if not self.capture.isOpened():
            raise ValueError(f"cannot open video file {path}")
        self.clock = clock
        self._index = 0

    def read(self) -> Frame | None:
        ok, image = self.capture.read()
        if not ok or image is None:
            return None
        self._index += 1
        return Frame(self._index - 1, image, self.clock())

    def close(self) -> None:
        self.capture.release()


def open_recorded(path: Path) -> FolderSource | VideoFileSource:
    """A folder of images or a video file, by what `path` is."""
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        return VideoFileSource(path)
    raise ValueError(f"no such folder or video file: {path}")


class SyntheticSource:
    """Rendered frames from any iterator of images (a `Script.render`, a still table...)."""

    def __init__(self, images: Iterator[Image], clock: Callable[[], float] = time.monotonic):
        self.images = images
        self.clock = clock
        self._index = 0

    def read(self) -> Frame | None:
        image = next(self.images, None)
        if image is None:
            return None
        self._index += 1
        return Frame(self._index - 1, image, self.clock())

    def close(self) -> None:
        self.images = iter(())
