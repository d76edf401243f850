"""Measuring a lens with a printed ChArUco sheet: the sheet, finding it in frames, choosing varied
views, and fitting OpenCV's lens model to them (`railtable camera calibrate`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.lens import Lens
from vision.markers import Image

SQUARES = (9, 6)  # columns, rows: 225 x 150 mm, on A4 landscape with margins to hold it by
SQUARE_MM = 25.0
MARKER_MM = 18.0
MIN_CORNERS = 12  # of the 40 inner corners, for a view to count
VIEWS_NEEDED = 12
LEAN_PER_M = 0.25  # views whose perspective terms differ by less than this lean alike


@functools.cache
def sheet() -> Any:
    """The ChArUco board printed on the sheet (its own marker dictionary, not the mat's)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100)
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM, MARKER_MM, dictionary)


def sheet_image(px_per_mm: float) -> Image:
    """The sheet's pattern at `px_per_mm`, with a 10 mm white border (grey)."""
    w = round(SQUARES[0] * SQUARE_MM * px_per_mm)
    h = round(SQUARES[1] * SQUARE_MM * px_per_mm)
    border = round(10 * px_per_mm)
    image: Image = sheet().generateImage((w, h), marginSize=0, borderBits=1)
    return cv2.copyMakeBorder(image, border, border, border, border, cv2.BORDER_CONSTANT, value=255)


@dataclass(frozen=True)
class SheetView:
    """The sheet's inner corners found in one frame: their ids and pixels."""

    ids: Any
    corners: Any

    @functools.cached_property
    def tilt(self) -> tuple[float, float]:
        """How the sheet leans away from the camera: the perspective terms of its homography
        (per metre; 0, 0 when it faces the camera squarely)."""
        if self.count < 4:
            return 0.0, 0.0
        obj, img = sheet().matchImagePoints(self.corners, self.ids)
        h, _ = cv2.findHomography(obj.reshape(-1, 3)[:, :2], img.reshape(-1, 2), 0)
        if h is None:
            return 0.0, 0.0
        h = h / h[2, 2]
        return float(h[2, 0] * 1000), float(h[2, 1] * 1000)

    @property
    def count(self) -> int:
        return 0 if self.ids is None else len(self.ids)

    @property
    def centre(self) -> tuple[float, float]:
        pts = np.asarray(self.corners, dtype=np.float64).reshape(-1, 2)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    @property
    def spread(self) -> float:
        """How much of the frame the found corners span (their box's diagonal, in pixels)."""
        pts = np.asarray(self.corners, dtype=np.float64).reshape(-1, 2)
        return float(np.hypot(*(pts.max(axis=0) - pts.min(axis=0))))


def find_sheet(frame: Image, detector: Any | None = None) -> SheetView:
    """The sheet's corners in a frame (BGR or grey); count 0 when it is not there."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = detector or cv2.aruco.CharucoDetector(sheet())
    corners, ids, _, _ = detector.detectBoard(grey)
    return SheetView(ids, corners)


@dataclass
class Collector:
    """Keeps views of the sheet that differ from those kept: another place in the frame, another
    distance or tilt. `advice` says what to do next, in words."""

    size: tuple[int, int]
    views: list[SheetView] = field(default_factory=list)

    def offer(self, view: SheetView) -> bool:
        """Keep `view` if it shows enough of the sheet somewhere new; True when kept."""
        if view.count < MIN_CORNERS:
            return False
        w, h = self.size
        near = 0.12 * np.hypot(w, h)
        for kept in self.views:
            dx = view.centre[0] - kept.centre[0]
            dy = view.centre[1] - kept.centre[1]
            lean = np.hypot(view.tilt[0] - kept.tilt[0], view.tilt[1] - kept.tilt[1])
            if (
                np.hypot(dx, dy) < near
                and abs(view.spread - kept.spread) < 0.15 * kept.spread
                and lean < LEAN_PER_M
            ):
                return False
        self.views.append(view)
        return True

    @property
    def done(self) -> bool:
        return len(self.views) >= VIEWS_NEEDED

    def advice(self) -> str:
        if self.done:
            return "enough views: measuring the lens"
        w, h = self.size
        kept = len(self.views)
        corners = [(0.2 * w, 0.2 * h), (0.8 * w, 0.2 * h), (0.8 * w, 0.8 * h), (0.2 * w, 0.8 * h)]
        for i, (x, y) in enumerate(corners):
            if not any(np.hypot(v.centre[0] - x, v.centre[1] - y) < 0.25 * w for v in self.views):
                where = ("top left", "top right", "bottom right", "bottom left")[i]
                return (
                    f"{kept}/{VIEWS_NEEDED} views: hold the sheet flat near the {where} of the view"
                )
        return f"{kept}/{VIEWS_NEEDED} views: tilt the sheet, or hold it nearer or farther"


def measure_lens(views: list[SheetView], size: tuple[int, int]) -> tuple[Lens, float]:
    """OpenCV's lens model fitted to the views; returns the lens and the RMS error in pixels.

    k3 is held at 0: a table camera's lens is wide, not a fisheye, and twelve views of one flat
    sheet pin down k1, k2 and the tangential terms better without it.
    """
    if len(views) < 4:
        raise ValueError(f"{len(views)} views of the sheet: at least 4 are needed")
    board = sheet()
    objects, images = [], []
    for view in views:
        obj, img = board.matchImagePoints(view.corners, view.ids)
        if obj is not None and len(obj) >= MIN_CORNERS:
            objects.append(obj.astype(np.float32))
            images.append(img.astype(np.float32))
    if len(objects) < 4:
        raise ValueError("too few usable views of the sheet: hold it flat and in full view")
    rms, k, dist, _, _ = cv2.calibrateCamera(
        objects, images, size, None, None, flags=cv2.CALIB_FIX_K3
    )
    d = [float(x) for x in np.asarray(dist).ravel()[:5]] + [0.0] * 5
    lens = Lens(
        float(k[0, 0]),
        float(k[1, 1]),
        float(k[0, 2]),
        float(k[1, 2]),
        (d[0], d[1], d[2], d[3], d[4]),
        size,
    )
    return lens, float(rms)
