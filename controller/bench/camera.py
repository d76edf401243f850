"""`railtable bench camera`: a live camera's frame rate and our side's CPU a frame (capture,
turning its format into B, G, R, handing the frame to the reader), and each format's turn alone."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.camera_module import CameraSettings, PixelFormat, to_bgr
from vision.sources import CameraThread, open_camera

OPEN_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class CameraBench:
    """What a run measured."""

    source: str
    frames: int
    width: int
    height: int
    fps: float
    cpu_ms_per_frame: float
    convert_ms: dict[str, float]  # each format turned into B, G, R, per frame

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "frames": self.frames,
            "width": self.width,
            "height": self.height,
            "fps": round(self.fps, 1),
            "cpu_ms_per_frame": round(self.cpu_ms_per_frame, 3),
            "convert_ms": {name: round(ms, 3) for name, ms in self.convert_ms.items()},
        }


def convert_cost(width: int, height: int, repeats: int = 20) -> dict[str, float]:
    """Milliseconds to turn one frame of each format into OpenCV's order (padding cut)."""
    rng = np.random.default_rng(0)
    costs = {}
    for pixel_format in PixelFormat:
        channels = 4 if pixel_format.value.startswith("X") else 3
        image = rng.integers(0, 256, (height, width + 16, channels), np.uint8)  # a padded row
        started = time.perf_counter()
        for _ in range(repeats):
            to_bgr(image, pixel_format.value, width)
        costs[pixel_format.value] = (time.perf_counter() - started) * 1000 / repeats
    return costs


def bench_camera(source: str, settings: CameraSettings, frames: int) -> CameraBench:
    """Read `frames` frames through the camera's thread, as the service does, taking each new
    one as it comes; OSError if the camera gives none. The CPU is the whole process's: the
    camera's thread (capture, the format turned) and the reader's."""
    camera = open_camera(source, settings)
    thread = CameraThread(camera, idle_s=0.001).start()
    try:
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        first = thread.latest()
        while first is None:
            if time.monotonic() > deadline:
                raise OSError(f"no frame from camera {source!r}: {camera.reason}")
            time.sleep(0.005)
            first = thread.latest()
        start = thread.latest() or first  # the count starts from the newest frame
        seen, last = 0, start.index
        wall, cpu = time.perf_counter(), time.process_time()
        while seen < frames:
            frame = thread.latest()
            if frame is None or frame.index == last:
                time.sleep(0.0005)
                continue
            seen, last = seen + frame.index - last, frame.index
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        height, width = first.image.shape[:2]
    finally:
        thread.stop()
    return CameraBench(
        source, seen, width, height, seen / wall, cpu * 1000 / seen, convert_cost(width, height)
    )
