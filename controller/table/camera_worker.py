"""One camera and its pipeline: frames read (or, on the simulated table, rendered) and run through
the vision pipeline, the newest `CameraView` kept. The service runs it in a process of its own
(`camera_process.py`); a test that drives the table itself steps it on its own thread.

The owner's thread is the one every verdict and every phone's command waits for: a frame drawn
and read there (tens of ms each, a full decode over a second) held them all, and so did a frame
read on another thread of the service (one interpreter lock). The owner only reads one reference,
replaced whole after each frame.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.simulated.camera import SimulatedCamera
from controller.vision_bridge import observation
from rules.physical import Catalogue, TableObservation
from vision.pipeline import VisionPipeline
from vision.readings import Stability

log = logging.getLogger("railtable")

NO_NEW_FRAME: Any = object()  # a camera's answer when it has no frame since the last one
IDLE_REFRESH_S = 2.0  # the simulated table unchanged and its view settled: a frame this often
IDLE_POLL_S = 0.005  # no frame was read (at rest, none new): looked again after this at least


class Camera(Protocol):
    """A source of frames: an image, NO_NEW_FRAME, or None (the camera is away)."""

    def frame(self) -> Any: ...


@dataclass(frozen=True)
class CameraView:
    """What the camera made of its newest frame."""

    table: TableObservation | None  # the last settled table (None: none yet, or camera away)
    still: bool  # nothing moves in view: `table` is what lies there now
    state: str  # the camera's health, in the words of `InputHealth`
    detail: str
    version: int = -1  # the simulated table's version the frame showed (-1: a real camera)


class CameraWorker:
    """One camera and its pipeline, stepped by `run` (in the camera's process) or by the caller
    (`step`, as a test drives the table)."""

    def __init__(
        self,
        camera: Camera,
        pipeline: VisionPipeline,
        catalogue: Catalogue,
        period_s: float,
        health: Any = None,  # the camera's own words when it is away (a real camera's state)
        starting: tuple[str, str] = ("starting", "simulated camera: calibrating"),
        rests: bool = True,  # a simulated table at rest costs no frames (False: a bench's load)
    ) -> None:
        self.camera = camera
        self.pipeline = pipeline
        self.catalogue = catalogue
        self.period_s = period_s
        self.health = health
        self.rests = rests
        self.latest = CameraView(None, False, *starting)
        self.frames = 0  # frames processed (a simulated table at rest costs none)
        # the CPU time (this process's threads) of reading those frames: the vision pipeline's
        # own work, which a Pi's camera costs too (a simulated frame's drawing is not in it)
        self.read_cpu_s = 0.0
        self._lock = threading.Lock()  # the pipeline and the last image: one user at a time
        self._image: Any = None
        self._lost = False
        self._recalibrate = False
        self._last_frame = 0.0
        self._wake = threading.Event()
        self._stopping = threading.Event()

    # ---- the loop (in the camera's process: `camera_process.py`)
    def run(self, after: Callable[[CameraWorker], None], beat_s: float = 1.0) -> None:
        """Step a frame every `period_s` (at once when woken) until `stop`; `after` is called
        after each frame and at least every `beat_s` (to send the view on)."""
        due = 0.0
        while not self._stopping.is_set():
            woke = self._wake.wait(min(beat_s, max(0.0, due - time.monotonic())))
            self._wake.clear()
            if self._stopping.is_set():
                return
            if woke or time.monotonic() >= due:
                frames = self.frames
                try:
                    self.step()
                except Exception:  # one bad frame must not blind the table for the evening
                    log.exception("camera frame failed")
                idle = self.frames == frames  # at rest, or no new frame: never a busy loop
                due = time.monotonic() + max(self.period_s, IDLE_POLL_S if idle else 0.0)
            after(self)

    def stop(self, timeout: float = 0.0) -> None:
        """End `run` (after the frame in hand)."""
        self._stopping.set()
        self._wake.set()

    def wake(self) -> None:
        """Something changed in view (the simulated table was laid anew): a frame at once, as a
        camera running faster than `period_s` would see it."""
        self._wake.set()

    # ---- one frame
    def step(self) -> None:
        """Read one frame and run it through the pipeline (unless the simulated table rests)."""
        if self._resting():
            return
        image = self.camera.frame()
        if image is NO_NEW_FRAME:
            return
        with self._lock:
            self._last_frame = time.monotonic()
            if image is None:  # degrade to the sensor board alone until frames come back
                detail = self.health() if callable(self.health) else ""
                self._lost = True
                self.latest = CameraView(
                    None, True, "disconnected", detail or "no frames from the camera"
                )
                return
            if self._lost or self._recalibrate:
                if self._recalibrate:
                    self.pipeline.calibrator.recalibrate()
                self._lost = self._recalibrate = False
                self.pipeline.request_full_decode()  # back: read every location afresh
            self._image = image
            started = time.thread_time()
            report = self.pipeline.process(image)
            self.read_cpu_s += time.thread_time() - started
            self._last_frame = time.monotonic()  # (a slow read is not a rest's refresh due)
            self.frames += 1
            calibrator = self.pipeline.calibrator
            seen = (
                f"{calibrator.confirmed} of 4 corner markers seen; "
                if calibrator.calibration
                else ""
            )
            table = self.latest.table
            if report.settled is not None:
                table = observation(report.settled, self.catalogue)
            version = self.camera.shown_version if isinstance(self.camera, SimulatedCamera) else -1
            self.latest = CameraView(
                table,
                report.stability is Stability.SETTLED,  # this frame's settled table included
                report.calibration.value,
                f"{calibrator.reason}; {seen}view {report.stability.value}",
                version,
            )

    def _resting(self) -> bool:
        """The simulated table unchanged since a frame showed it settled, and no hand to come:
        the next frame would show the same (one now and then keeps the health fresh). A real
        camera is never at rest: what it sees changes without telling."""
        camera = self.camera
        if not self.rests or not isinstance(camera, SimulatedCamera):
            return False
        if self._recalibrate or self._lost:
            return False
        now = time.monotonic()
        return (
            self.latest.still
            and not camera.moving
            and now >= camera.unplugged_until  # its cable pulled (the fault knob): it shows
            and camera.shown_version == camera.table.version
            and now - self._last_frame < IDLE_REFRESH_S
        )

    # ---- from other threads
    def recalibrate(self) -> None:
        """Forget the calibration and look for the corners afresh, at the next frame."""
        self._recalibrate = True
        self.latest = CameraView(
            self.latest.table,
            False,
            "uncalibrated",
            "recalibration requested: looking for the corners",
        )
        self.wake()

    def annotated_jpeg(self) -> bytes | None:
        """The newest frame annotated with what the pipeline reads (None: no frame yet)."""
        with self._lock:
            if self._image is None:
                return None
            return self.pipeline.annotated_jpeg(self._image)
