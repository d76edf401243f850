"""A stand-in for Raspberry Pi's `picamera2` package: the API of the Picamera2 manual, serving the
mat as the project's renderer draws it, in each format's own memory order.

Put its folder (tests/vision/picamera2_standin) on sys.path or PYTHONPATH and `import picamera2`
finds it. What it pretends is read from the environment at each call, so a test (or a `railtable
serve` started as a subprocess) sets it without touching the code:

- `RAILTABLE_STANDIN_CAMERAS`: how many camera modules libcamera sees (default 1; 0: none).
- `RAILTABLE_STANDIN_MODEL`: "imx708" (Camera Module 3: autofocus, flicker control; the default)
  or "imx219" (Camera Module 2: fixed focus, no flicker control).
- `RAILTABLE_STANDIN_FORMAT`: the format `configure` settles on whatever was asked (the real one
  may not give what it was asked for).
- `RAILTABLE_STANDIN_PAD`: pixels of padding at the end of each row (a stride wider than the row).
- `RAILTABLE_STANDIN_SCENE`: "game:players:seed", the new game whose table the mat shows
  (default "offtherails:2:1"); "red" shows a red square on grey.
- `RAILTABLE_STANDIN_PACE`: "0" serves frames as fast as they are asked for; else at the frame
  rate of `FrameDurationLimits` (a real camera's `capture_array` waits for the next frame).

Class attributes let an in-process test look and break: `Picamera2.opened` (every instance, in
order), `Picamera2.fail_capture_at` (the capture, counted per instance, that raises).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, ClassVar

import numpy as np

_SETTLED_EXPOSURE_US = 23_456  # where the stand-in's AE ends up
_SETTLED_GAIN = 2.0
_SETTLED_GAINS = (1.93, 1.61)  # AWB's red and blue gains
_SETTLING_FRAMES = 5

_CONTROLS_CM3: dict[str, tuple[Any, Any, Any]] = {
    "AfMode": (0, 2, 0),
    "LensPosition": (0.0, 15.0, 1.0),
    "AeEnable": (False, True, True),
    "AwbEnable": (False, True, True),
    "ExposureTime": (26, 112_015_443, 20_000),
    "AnalogueGain": (1.12, 16.0, 1.0),
    "ColourGains": (0.0, 32.0, None),
    "FrameDurationLimits": (33_333, 120_000_000, 33_333),
    "AeFlickerMode": (0, 1, 0),
    "AeFlickerPeriod": (100, 1_000_000, 10_000),
}
_CONTROLS_CM2 = {
    name: limits
    for name, limits in _CONTROLS_CM3.items()
    if name not in ("AfMode", "LensPosition", "AeFlickerMode", "AeFlickerPeriod")
}
_MODELS = {"imx708": _CONTROLS_CM3, "imx219": _CONTROLS_CM2}

_renders: dict[tuple[str, int, int], np.ndarray] = {}
_renders_lock = threading.Lock()


def _env(name: str, default: str) -> str:
    return os.environ.get(f"RAILTABLE_STANDIN_{name}", default)


def _scene(width: int, height: int) -> np.ndarray:
    """The picture in front of the lens, as B, G, R (rendered once per scene and size)."""
    spec = _env("SCENE", "offtherails:2:1")
    key = (spec, width, height)
    with _renders_lock:
        if key not in _renders:
            _renders[key] = _render(spec, width, height)
        return _renders[key]


def _render(spec: str, width: int, height: int) -> np.ndarray:
    import cv2

    if spec == "red":
        image = np.full((height, width, 3), 128, np.uint8)
        image[height // 4 : height // 2, width // 4 : width // 2] = (0, 0, 255)  # B, G, R
        return image
    from controller.referee.judge import Referee
    from controller.simulated.camera import SimulatedCamera
    from controller.simulated.table import PhysicalTable
    from rules.registry import game_named, new_game

    game, players, seed = spec.split(":")
    info = game_named(game)
    state = new_game(game, {"players": int(players)}, int(seed))
    layout, catalogue = info.layout(state.options), info.catalogue()
    table = PhysicalTable(layout, catalogue)
    table.lay(Referee(info).table_of(state))
    camera = SimulatedCamera(table, layout, catalogue)
    camera.frame()  # the first frames show the hand that laid the pieces leaving
    camera.frame()
    image = camera.frame()
    if image.shape[:2] != (height, width):
        image = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(image)


def _in_memory_order(bgr: np.ndarray, pixel_format: str) -> np.ndarray:
    """`bgr` as the format lays it in memory (the manual's table)."""
    rgb = bgr[..., ::-1]
    alpha = np.full((*bgr.shape[:2], 1), 255, np.uint8)
    if pixel_format == "RGB888":
        return bgr.copy()  # [B, G, R]
    if pixel_format == "BGR888":
        return np.ascontiguousarray(rgb)  # [R, G, B]
    if pixel_format == "XRGB8888":
        return np.concatenate([bgr, alpha], axis=2)  # [B, G, R, 255]
    if pixel_format == "XBGR8888":
        return np.concatenate([rgb, alpha], axis=2)  # [R, G, B, 255]
    raise RuntimeError(f"stand-in: format {pixel_format} not served")


class Picamera2:
    """One camera, as Picamera2 drives it."""

    opened: ClassVar[list[Picamera2]] = []
    fail_capture_at: ClassVar[int | None] = None

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        model = _env("MODEL", "imx708")
        return [
            {
                "Model": model,
                "Location": 2,
                "Rotation": 180,
                "Id": f"/base/axi/pcie@120000/rp1/i2c@{88000 + 4000 * n}/{model}@1a",
                "Num": n,
            }
            for n in range(int(_env("CAMERAS", "1")))
        ]

    def __init__(self, camera_num: int = 0) -> None:
        cameras = self.global_camera_info()
        if camera_num >= len(cameras):
            raise IndexError("list index out of range")  # what the real one says
        self.camera_num = camera_num
        self.camera_controls: dict[str, tuple[Any, Any, Any]] = dict(
            _MODELS[cameras[camera_num]["Model"]]
        )
        self.calls: list[str] = []
        self.controls: dict[str, Any] = {}  # every control set, by configure or set_controls
        self.config: dict[str, Any] | None = None
        self.captures = 0
        self.frames = 0
        self.started = False
        self.closed = False
        self._next_frame = 0.0
        Picamera2.opened.append(self)

    def create_video_configuration(
        self,
        main: dict[str, Any] | None = None,
        controls: dict[str, Any] | None = None,
        buffer_count: int = 6,
        **_: Any,
    ) -> dict[str, Any]:
        self.calls.append("create_video_configuration")
        stream = {"format": "XBGR8888", "size": (1280, 720), **(main or {})}
        return {
            "use_case": "video",
            "main": stream,
            "controls": {"FrameDurationLimits": (33_333, 33_333), **(controls or {})},
            "buffer_count": buffer_count,
        }

    def configure(self, config: dict[str, Any]) -> None:
        """As the real one: the stream's format and stride are written back into `config`."""
        self.calls.append("configure")
        main = config["main"]
        main["format"] = _env("FORMAT", main["format"])
        width, _ = main["size"]
        channels = 4 if main["format"].startswith("X") else 3
        main["stride"] = (width + int(_env("PAD", "0"))) * channels
        unknown = set(config["controls"]) - set(self.camera_controls)
        if unknown:
            raise RuntimeError(f"stand-in: controls {sorted(unknown)} not on this camera")
        self.controls.update(config["controls"])
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append("set_controls")
        unknown = set(controls) - set(self.camera_controls)
        if unknown:
            raise RuntimeError(f"stand-in: controls {sorted(unknown)} not on this camera")
        self.controls.update(controls)

    def start(self) -> None:
        self.calls.append("start")
        if self.config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True

    def _frame_due(self) -> None:
        """Wait for the next frame, as a real camera's capture does (unless not paced)."""
        if not self.started:
            raise RuntimeError("Camera not started")
        self.frames += 1
        if _env("PACE", "1") == "0":
            return
        low, _ = self.controls.get("FrameDurationLimits", (33_333, 33_333))
        now = time.monotonic()
        self._next_frame = max(self._next_frame + low / 1e6, now)
        time.sleep(max(0.0, self._next_frame - now))

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append("capture_metadata")
        self._frame_due()
        return self._metadata()

    def _metadata(self) -> dict[str, Any]:
        """AE and AWB converge over a few frames; once disabled, the values set are held."""
        progress = min(1.0, self.frames / _SETTLING_FRAMES)
        exposure = 5_000 + progress * (_SETTLED_EXPOSURE_US - 5_000)
        gain = 1.0 + progress * (_SETTLED_GAIN - 1.0)
        gains = tuple(1.0 + progress * (g - 1.0) for g in _SETTLED_GAINS)
        if not self.controls.get("AeEnable", True):
            exposure, gain = self.controls["ExposureTime"], self.controls["AnalogueGain"]
        if not self.controls.get("AwbEnable", True):
            gains = self.controls["ColourGains"]
        return {
            "ExposureTime": int(exposure),
            "AnalogueGain": float(gain),
            "ColourGains": tuple(gains),
            "FrameDuration": self.controls.get("FrameDurationLimits", (33_333, 33_333))[0],
            "SensorTimestamp": time.monotonic_ns(),
        }

    def capture_array(self, name: str = "main") -> np.ndarray:
        self.calls.append("capture_array")
        assert name == "main", name
        self.captures += 1
        if Picamera2.fail_capture_at is not None and self.captures >= Picamera2.fail_capture_at:
            raise RuntimeError("Camera frontend has timed out!")  # a real one's words
        self._frame_due()
        assert self.config is not None
        main = self.config["main"]
        width, height = main["size"]
        image = _in_memory_order(_scene(width, height), main["format"])
        pad = int(_env("PAD", "0"))
        if pad:
            junk = np.full((height, pad, image.shape[2]), 77, np.uint8)
            image = np.concatenate([image, junk], axis=1)
        return image

    def stop(self) -> None:
        self.calls.append("stop")
        self.started = False

    def close(self) -> None:
        self.calls.append("close")
        self.closed = True
