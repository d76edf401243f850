"""The Raspberry Pi camera module through Picamera2 (libcamera), as a capture for `CameraSource`.

On Raspberry Pi OS Bookworm a camera module is driven by libcamera: OpenCV's V4L2 backend opens
`/dev/video0` but reads no frame (opencv#22820, #25072). `Picamera2Capture` has the three methods
`CameraSource` uses of `cv2.VideoCapture` (`isOpened`, `read`, `release`), so the reconnecting,
the backoff and the health words are the ones every camera has. Only the API of the Picamera2
manual is used; `picamera2` is imported when a camera is opened, never at import time (it is an
OS package, `python3-picamera2`, not a dependency of ours).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np  # imported where a frame is turned: the configuration loads this module

PICAMERA2 = "picamera2"  # `[camera] source`: camera 0; "picamera2:1" the second one
INSTALL_ADVICE = (
    "picamera2 is not installed: sudo apt install python3-picamera2 and make the venv with "
    "--system-site-packages (docs/install-pi.md)"
)
NO_CAMERA_ADVICE = (
    "no camera module found by libcamera: check the ribbon cable and `rpicam-hello --list-cameras`"
)


class Mains(IntEnum):
    """The mains frequency of the room's lamps, which flicker at twice it."""

    HZ50 = 50  # Europe, most of Asia, Africa, Australia
    HZ60 = 60  # the Americas, parts of Japan

    @property
    def flicker_period_us(self) -> int:
        """libcamera's `AeFlickerPeriod`: a lamp on 50 Hz mains flickers at 100 Hz (10000 us)."""
        return round(1_000_000 / (2 * self.value))


class AfMode(IntEnum):
    """libcamera's `AfMode` values (controls.AfModeEnum), without importing libcamera."""

    MANUAL = 0
    AUTO = 1
    CONTINUOUS = 2


class FlickerMode(IntEnum):
    """libcamera's `AeFlickerMode` values (controls.AeFlickerModeEnum)."""

    OFF = 0
    MANUAL = 1
    AUTO = 2


class PixelFormat(StrEnum):
    """Picamera2's 8-bit formats, named by libcamera; the comment is the memory order per pixel."""

    RGB888 = "RGB888"  # B, G, R: what OpenCV wants
    BGR888 = "BGR888"  # R, G, B
    XRGB8888 = "XRGB8888"  # B, G, R, 255
    XBGR8888 = "XBGR8888"  # R, G, B, 255 (Picamera2's default)


@dataclass(frozen=True)
class CameraSettings:
    """What a camera is asked for: size (every camera), and for a camera module its frame rate,
    the mains frequency of the lamps, the lens's fixed focus, and how long exposure and white
    balance settle before they are held (0: they keep adjusting)."""

    width: int = 1280
    height: int = 720
    frame_rate: float = 10.0  # frames a second: the pipeline looks at one every 0.1 s
    mains: Mains = Mains.HZ50
    lens_position: float = 1.2  # dioptres (1 / metres): a camera about 85 cm above the mat
    settle_s: float = 1.5


class CameraUnavailable(OSError):
    """The camera cannot be opened for a reason a person fixes; the message says how, whole."""


def camera_number(source: str) -> int | None:
    """The camera module's number of a `picamera2[:N]` source; None for any other source.

    ValueError for "picamera2:" followed by anything but a whole number."""
    if source == PICAMERA2:
        return 0
    if not source.startswith(PICAMERA2 + ":"):
        return None
    number = source.removeprefix(PICAMERA2 + ":")
    if not number.isdigit():
        raise ValueError(
            f"{source!r}: the camera module's number after {PICAMERA2}: must be a whole number, "
            f'like "{PICAMERA2}:1"'
        )
    return int(number)


def import_picamera2() -> Any:
    """The `picamera2` module; CameraUnavailable (with what to install) when it is missing."""
    try:
        picamera2 = importlib.import_module(PICAMERA2)  # an OS package: no stubs, no wheel
    except ImportError as error:
        detail = "" if error.name == PICAMERA2 else f" ({error})"  # a broken install says why
        raise CameraUnavailable(f"{INSTALL_ADVICE}{detail}") from None
    return picamera2


def camera_modules() -> list[Mapping[str, Any]]:
    """The cameras libcamera sees (Picamera2.global_camera_info()); CameraUnavailable when
    picamera2 is not installed."""
    return list(import_picamera2().Picamera2.global_camera_info())


def describe_module(info: Mapping[str, Any]) -> str:
    """One camera of `global_camera_info()` in words: its number, model and where it sits."""
    number = info.get("Num", "?")
    model = info.get("Model", "unknown model")
    where = info.get("Id") or info.get("Location")
    return f"{number}: {model}" + (f" ({where})" if where else "")


_ORDER = {  # each format by its colours' order, whether or not a fourth byte follows
    PixelFormat.RGB888.value: PixelFormat.RGB888,
    PixelFormat.XRGB8888.value: PixelFormat.RGB888,
    PixelFormat.BGR888.value: PixelFormat.BGR888,
    PixelFormat.XBGR8888.value: PixelFormat.BGR888,
}


def to_bgr(image: np.ndarray, pixel_format: str, width: int | None = None) -> np.ndarray:
    """A Picamera2 array as OpenCV's B, G, R image: its memory order turned by its format (or,
    where the array's channels contradict the format, by the channels: 4 is the X variant of the
    same order), padding beyond `width` cut off. ValueError for a format we cannot read."""
    import cv2
    import numpy as np

    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"the camera gives {image.shape} arrays in {pixel_format}, not colour")
    order = _ORDER.get(pixel_format)
    if order is None:
        raise ValueError(
            f"the camera gives {pixel_format} frames, which railtable does not read: ask for "
            f"{PixelFormat.RGB888.value}"
        )
    if width is not None and image.shape[1] > width:
        image = image[:, :width]  # a padded row (stride) or a width rounded up by libcamera
    if image.shape[2] == 4:
        code = cv2.COLOR_BGRA2BGR if order is PixelFormat.RGB888 else cv2.COLOR_RGBA2BGR
        return cv2.cvtColor(image, code)  # a new, contiguous image
    if order is PixelFormat.BGR888:
        return cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    return np.ascontiguousarray(image)


def _listed(controls: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """The controls of `wanted` this camera has (`camera_controls` lists them)."""
    return {name: value for name, value in wanted.items() if name in controls}


def _clamped(controls: Mapping[str, Any], name: str, value: float) -> float:
    """`value` within the control's (min, max), where the camera gives numbers for them."""
    low, high, *_ = controls.get(name, (None, None))
    if isinstance(low, int | float) and value < low:
        value = low
    if isinstance(high, int | float) and high > 0 and value > high:
        value = high
    return value


def starting_controls(controls: Mapping[str, Any], settings: CameraSettings) -> dict[str, Any]:
    """The controls a fixed table camera starts with, those this camera has: the frame rate,
    mains flicker avoided, and a fixed focus (Camera Module 3: the lens does not hunt when a
    hand crosses)."""
    frame_us = round(1_000_000 / settings.frame_rate)
    wanted: dict[str, Any] = {
        "FrameDurationLimits": (frame_us, frame_us),
        "AeFlickerMode": int(FlickerMode.MANUAL),
        "AeFlickerPeriod": settings.mains.flicker_period_us,
    }
    if "AfMode" in controls:
        wanted["AfMode"] = int(AfMode.MANUAL)
        wanted["LensPosition"] = _clamped(controls, "LensPosition", settings.lens_position)
    return _listed(controls, wanted)


def held_controls(
    controls: Mapping[str, Any], metadata: Mapping[str, Any], settings: CameraSettings
) -> dict[str, Any]:
    """Exposure and white balance as they settled (read from a frame's metadata), held: a hand
    or a dark sleeve in view must not change how the mat looks. An exposure longer than the
    lamps' flicker period is made a whole number of periods (the gain makes up the difference),
    so the held exposure never beats against the lamps."""
    wanted: dict[str, Any] = {}
    exposure, gain = metadata.get("ExposureTime"), metadata.get("AnalogueGain")
    if isinstance(exposure, int | float) and exposure > 0:
        period = settings.mains.flicker_period_us
        held = round(exposure / period) * period if exposure >= period else round(exposure)
        held = int(_clamped(controls, "ExposureTime", held))
        wanted["AeEnable"] = False
        wanted["ExposureTime"] = held
        if isinstance(gain, int | float) and gain > 0:
            wanted["AnalogueGain"] = _clamped(controls, "AnalogueGain", gain * exposure / held)
    gains = metadata.get("ColourGains")
    if isinstance(gains, tuple | list) and len(gains) == 2:
        wanted["AwbEnable"] = False
        wanted["ColourGains"] = (float(gains[0]), float(gains[1]))
    return _listed(controls, wanted)


class Picamera2Capture:
    """One camera module opened through Picamera2, read as `cv2.VideoCapture` is read.

    Opening configures it (`RGB888` at the asked size, the starting controls), starts it, lets
    exposure and white balance settle for `settle_s` and holds them. `read` gives B, G, R
    frames whatever format the camera settled on. `release` stops and closes it, once."""

    def __init__(self, number: int, settings: CameraSettings) -> None:
        module = import_picamera2()
        found = list(module.Picamera2.global_camera_info())
        if not found:
            raise CameraUnavailable(NO_CAMERA_ADVICE)
        if number >= len(found):
            seen = "; ".join(describe_module(info) for info in found)
            raise CameraUnavailable(
                f"no camera module {number}: libcamera sees {len(found)} ({seen}); "
                f'write source = "{PICAMERA2}" for the first'
            )
        self.info: Mapping[str, Any] = found[number]
        self.settings = settings
        self.held: dict[str, Any] = {}
        self.pixel_format = PixelFormat.RGB888.value
        self._camera: Any = None
        try:
            camera = module.Picamera2(number)
        except Exception as error:  # libcamera's own words: busy in another program, mostly
            raise CameraUnavailable(
                f"camera module {number} could not be opened ({error}): is another program "
                f"using it (rpicam-hello, another railtable)?"
            ) from None
        self._camera = camera
        try:
            self._start(camera)
        except Exception:
            self.release()
            raise

    def _start(self, camera: Any) -> None:
        controls: Mapping[str, Any] = camera.camera_controls
        settings = self.settings
        config = camera.create_video_configuration(
            main={"size": (settings.width, settings.height), "format": PixelFormat.RGB888.value},
            controls=starting_controls(controls, settings),
            buffer_count=4,
        )
        camera.configure(config)
        self.pixel_format = str(config.get("main", {}).get("format", PixelFormat.RGB888.value))
        camera.start()
        if settings.settle_s > 0:
            metadata: Mapping[str, Any] = {}
            for _ in range(max(1, round(settings.settle_s * settings.frame_rate))):
                metadata = camera.capture_metadata()  # one a frame: AE and AWB converge
            self.held = held_controls(controls, metadata, settings)
            if self.held:
                camera.set_controls(self.held)

    @property
    def model(self) -> str:
        return str(self.info.get("Model", "camera module"))

    def isOpened(self) -> bool:  # cv2.VideoCapture's name
        return self._camera is not None

    def read(self) -> tuple[bool, Any]:
        camera = self._camera
        if camera is None:
            return False, None
        image = camera.capture_array("main")
        return True, to_bgr(image, self.pixel_format, self.settings.width)

    def release(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        with contextlib.suppress(Exception):  # a camera that died may raise on the way out
            camera.stop()
        with contextlib.suppress(Exception):
            camera.close()


def picamera2_factory(settings: CameraSettings) -> Callable[[int | str], Picamera2Capture]:
    """The capture factory `CameraSource` opens a `picamera2[:N]` source with."""

    def open_module(address: int | str) -> Picamera2Capture:
        number = camera_number(str(address))
        return Picamera2Capture(0 if number is None else number, settings)

    return open_module
