"""The camera's lens: OpenCV's pinhole model with distortion, between raw and ideal pixels.

A stored lens comes from `railtable camera calibrate` (a ChArUco sheet, full intrinsics). Without
one, calibration fits a single radial term from the mat's own corner markers (`Lens.radial`):
an ordinary wide lens bends straight lines mostly by that term, and the sixteen corners of the
four corner markers measure it well enough to put every square within a millimetre or two.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Points = NDArray[np.float64]
UNDISTORT_ITERATIONS = 30


@dataclass(frozen=True)
class Lens:
    """Camera matrix (fx, fy, cx, cy), distortion (k1, k2, p1, p2, k3) for frames of `size`."""

    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, float, float, float, float]
    size: tuple[int, int]
    measured: bool = True  # False: fitted from the mat, its focal length only a unit of radius

    @staticmethod
    def radial(k1: float, size: tuple[int, int]) -> Lens:
        """One radial term about the frame's centre, radii in half-diagonals of the frame."""
        w, h = size
        f = math.hypot(w, h) / 2
        return Lens(f, f, w / 2, h / 2, (k1, 0.0, 0.0, 0.0, 0.0), size, measured=False)

    @property
    def is_ideal(self) -> bool:
        return not any(self.distortion)

    @property
    def camera_matrix(self) -> NDArray[np.float64]:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], np.float64)

    def for_size(self, size: tuple[int, int]) -> Lens:
        """The same lens for frames of another size with the same aspect (a scaled sensor mode)."""
        if size == self.size:
            return self
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        if abs(sx - sy) > 0.01 * sx:
            raise ValueError(
                f"the lens was calibrated at {self.size[0]}x{self.size[1]}; frames of "
                f"{size[0]}x{size[1]} have another shape: calibrate the camera again"
            )
        return Lens(self.fx * sx, self.fy * sy, self.cx * sx, self.cy * sy, self.distortion, size)

    def undistort(self, raw: NDArray[Any]) -> Points:
        """Raw frame pixels (N, 2) to where an ideal pinhole camera would have seen them."""
        pts = np.asarray(raw, dtype=np.float64).reshape(-1, 2)
        if self.is_ideal or len(pts) == 0:
            return pts.copy()
        # OpenCV's fixed-point inversion of the model, run to convergence
        k1, k2, p1, p2, k3 = self.distortion
        xd = (pts[:, 0] - self.cx) / self.fx
        yd = (pts[:, 1] - self.cy) / self.fy
        x, y = xd.copy(), yd.copy()
        for _ in range(UNDISTORT_ITERATIONS):
            r2 = x * x + y * y
            inverse = 1 / (1 + r2 * (k1 + r2 * (k2 + r2 * k3)))
            dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x = (xd - dx) * inverse
            y = (yd - dy) * inverse
        return np.stack([x * self.fx + self.cx, y * self.fy + self.cy], axis=1)

    def distort(self, ideal: NDArray[Any]) -> Points:
        """Ideal pinhole pixels (N, 2) to where the real lens puts them in the raw frame."""
        pts = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
        if self.is_ideal:
            return pts.copy()
        k1, k2, p1, p2, k3 = self.distortion
        x = (pts[:, 0] - self.cx) / self.fx
        y = (pts[:, 1] - self.cy) / self.fy
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack([xd * self.fx + self.cx, yd * self.fy + self.cy], axis=1)

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "fx": self.fx,
            "fy": self.fy,
            "cx": self.cx,
            "cy": self.cy,
            "distortion": list(self.distortion),
            "size": list(self.size),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Lens:
        try:
            d = [float(v) for v in data["distortion"]]
            size = (int(data["size"][0]), int(data["size"][1]))
            lens = Lens(
                float(data["fx"]),
                float(data["fy"]),
                float(data["cx"]),
                float(data["cy"]),
                (d[0], d[1], d[2], d[3], d[4]),
                size,
            )
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ValueError(f"not a lens record ({error!r})") from None
        if lens.fx <= 0 or lens.fy <= 0 or min(size) <= 0:
            raise ValueError("not a lens record (focal lengths and size must be positive)")
        return lens


def camera_key(source: str) -> str:
    """A file-name-safe key for a camera source ("0", "/dev/video0", "rtsp://...")."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in source)[:80] or "camera"


def save_lens(folder: Path, camera: str, lens: Lens) -> Path:
    """Keep `lens` for the camera named `camera` in `folder` (one JSON file per camera)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"lens-{camera_key(camera)}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"camera": camera, **lens.to_json()}, indent=1) + "\n")
    tmp.replace(path)
    return path


def load_lens(folder: Path, camera: str) -> Lens | None:
    """The lens kept for `camera`, or None; a damaged file raises ValueError naming it."""
    path = folder / f"lens-{camera_key(camera)}.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not readable as a lens record ({error})") from None
    try:
        return Lens.from_json(data)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def fit_radial(
    mm: NDArray[np.float64], raw: NDArray[np.float64], size: tuple[int, int]
) -> tuple[Lens, NDArray[np.float64], float]:
    """The one-term radial lens that lets a homography carry `mm` onto `raw` best.

    Returns the lens, the homography (mat mm to ideal pixels) and its worst error in raw pixels.
    A golden-section search over k1 in [-0.6, 0.3]; k1 = 0 is kept unless bending fits clearly
    better (half a pixel), so a straight lens is never bent by noise.
    """

    def error(k1: float) -> tuple[float, NDArray[np.float64] | None]:
        lens = Lens.radial(k1, size)
        ideal = lens.undistort(raw)
        found, _ = cv2.findHomography(mm, ideal, 0)
        if found is None:
            return math.inf, None
        h = np.asarray(found, dtype=np.float64)
        back = lens.distort(_project(h, mm))
        return float(np.sqrt(np.mean(np.sum((back - raw) ** 2, axis=1)))), h

    lo, hi = -0.6, 0.3
    golden = (math.sqrt(5) - 1) / 2
    a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
    fa, fb = error(a)[0], error(b)[0]
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - golden * (hi - lo)
            fa = error(a)[0]
        else:
            lo, a, fa = a, b, fb
            b = lo + golden * (hi - lo)
            fb = error(b)[0]
    best = (a + b) / 2
    straight, h0 = error(0.0)
    bent, h1 = error(best)
    if h1 is None or (h0 is not None and straight - bent < 0.5):
        k1, h = 0.0, h0
    else:
        k1, h = best, h1
    if h is None:
        raise ValueError("no homography")
    lens = Lens.radial(k1, size)
    worst = float(np.linalg.norm(lens.distort(_project(h, mm)) - raw, axis=1).max())
    return lens, h, worst


def _project(h: NDArray[np.float64], pts: NDArray[Any]) -> NDArray[np.float64]:
    src = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(src, h), dtype=np.float64).reshape(-1, 2)
