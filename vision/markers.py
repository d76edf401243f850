"""ArUco markers: the dictionary, marker images, reading markers with rotation and confidence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import MarkerFamily

# A uint8 picture, grey (H, W) or BGR (H, W, 3); OpenCV's stubs type results loosely.
Image: TypeAlias = NDArray[Any]


@cache
def dictionary(family: MarkerFamily) -> Any:
    """OpenCV's predefined dictionary for `family`."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, family.opencv_name))


def marker_image(family: MarkerFamily, marker_id: int, side_px: int) -> Image:
    """The black-bordered marker, `side_px` square, white 255 / black 0, no quiet zone."""
    if not 0 <= marker_id < family.capacity:
        raise ValueError(f"marker id {marker_id} is outside family {family.value}")
    img: Image = cv2.aruco.generateImageMarker(dictionary(family), marker_id, side_px, borderBits=1)
    return img


def make_corner_detector(family: MarkerFamily) -> Any:
    """An `ArucoDetector` for the mat's corner markers: OpenCV's defaults plus sub-pixel corners.

    The homography is only as good as these corners; the default candidate filter matters here, as
    relaxing it lets a slightly shrunken inner contour win near the dark edge of the mat.
    """
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # A mat framed tightly puts a corner marker within a few pixels of the image's edge.
    params.minDistanceToBorder = 1
    # As for pieces: 4x4 codes can correct one bit, which OpenCV's default rate (0.6) rounds
    # down to none, so a slightly blurred corner marker was missed; read cells at their centres.
    # Only the mat's four corner ids count, and a calibration must fit them together (its
    # plausibility check), which keeps a false read from moving the board.
    params.errorCorrectionRate = 1.0
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    return cv2.aruco.ArucoDetector(dictionary(family), params)


def make_detector(
    family: MarkerFamily, widest_window: int = 23, smallest_perimeter: float = 0.03
) -> Any:
    """An `ArucoDetector` tuned for small, upright crops of a warped board, its adaptive
    threshold's windows up to `widest_window` pixels (OpenCV's default 23; 13 saves a third of
    the pass, for a marker whose border's edges are sharp), and no outline shorter than
    `smallest_perimeter` of the crop's longer side taken for a marker (OpenCV's default 0.03;
    more saves the work on specks)."""
    params = cv2.aruco.DetectorParameters()
    params.adaptiveThreshWinSizeMax = widest_window
    params.minMarkerPerimeterRate = smallest_perimeter
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    # A piece's body outline sits just outside its sticker: the default distance filter would keep
    # that outline and drop the marker nested in it.
    params.minMarkerDistanceRate = 0.001
    # Read each cell from its centre only: blur and upscaling smear the cell edges.
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    # 4x4 codes can correct one bit; OpenCV's default rate (0.6) rounds that down to none. Reads
    # are then checked against the printed size and location, which keeps false ids out.
    params.errorCorrectionRate = 1.0
    return cv2.aruco.ArucoDetector(dictionary(family), params)


@dataclass(frozen=True)
class DetectedMarker:
    """A marker found in one image: id, its 4 corners (marker's own TL, TR, BR, BL) in pixels."""

    marker_id: int
    corners: NDArray[np.float32]

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])

    @property
    def side_px(self) -> float:
        d = np.diff(np.vstack([self.corners, self.corners[:1]]), axis=0)
        return float(np.hypot(d[:, 0], d[:, 1]).mean())

    def quarter_turns(self) -> int:
        """Clockwise quarter turns of the marker's top edge in an upright image (y points down)."""
        dx, dy = self.corners[1] - self.corners[0]
        angle = math.degrees(math.atan2(float(dy), float(dx)))
        return round(angle / 90.0) % 4


def detect(detector: Any, gray: Image) -> list[DetectedMarker]:
    """All markers `detector` finds in `gray`, one per physical marker.

    With the distance filter relaxed a marker can come back twice (the outer and inner edge of its
    black border); of two reads of one id whose centres are close, the larger is kept.
    """
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return []
    found = sorted(
        (
            DetectedMarker(int(i), np.asarray(c, dtype=np.float32).reshape(4, 2))
            for c, i in zip(corners, ids.ravel(), strict=True)
        ),
        key=lambda m: -m.side_px,
    )
    kept: list[DetectedMarker] = []
    for m in found:
        if not any(k.marker_id == m.marker_id and _close(k, m) for k in kept):
            kept.append(m)
    return kept


def _close(a: DetectedMarker, b: DetectedMarker) -> bool:
    (ax, ay), (bx, by) = a.centre, b.centre
    return math.hypot(ax - bx, ay - by) < 0.5 * max(a.side_px, b.side_px)


def outer_side_px(gray: Image, marker: DetectedMarker, family: MarkerFamily) -> float:
    """The marker's side (pixels) measured on its black border's outer edge, where it crosses
    halfway from the border's black to the quiet zone's white (a symmetric blur keeps it there).

    OpenCV's corners are not that edge: with its corner refinement off, an adaptive threshold's
    small window can give a candidate a few pixels inside the border (a 40 mm marker then read
    12 % small) and only that candidate may be found. This measures from the corners found,
    whichever candidate they are: per side, the mean profile across the border (its middle
    part, clear of the corners), from 1.2 cells outside to 1 cell inside. `side_px` when no
    edge shows (a border under a finger)."""
    cells = family.bits + 2
    px = 8  # samples per cell
    pad = 1.2  # cells outside the border sampled
    side = cells * px
    extra = round(pad * px)
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32) + extra - 0.5
    h = cv2.getPerspectiveTransform(marker.corners.astype(np.float32), dst)
    size = side + 2 * extra
    square = cv2.warpPerspective(
        gray, h, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    mid = slice(extra + px, extra + side - px)  # along a side, clear of the corners
    inside = extra + px  # one cell in from the border's edge as found
    profiles = (
        square[mid, :inside].mean(axis=0),  # left, read inwards
        square[mid, size - inside :].mean(axis=0)[::-1],  # right, read inwards
        square[:inside, mid].mean(axis=1),  # top
        square[size - inside :, mid].mean(axis=1)[::-1],  # bottom
    )
    edges = []
    for prof in profiles:
        black_at = int(np.argmin(prof[extra // 2 :])) + extra // 2
        black = float(prof[black_at])
        outside = prof[: black_at + 1]
        white = float(outside.max())
        if white - black < 24:
            return marker.side_px
        half = (white + black) / 2
        # the last crossing of the half level going out from the black
        i = black_at
        while i > 0 and prof[i - 1] < half:
            i -= 1
        if i == 0:
            return marker.side_px
        a, b = float(prof[i - 1]), float(prof[i])
        edges.append(extra - 0.5 - (i - (half - b) / (a - b)))  # samples out of the edge found
    grow = (edges[0] + edges[1]) / 2, (edges[2] + edges[3]) / 2
    k = (1 + 2 * grow[0] / side + 1 + 2 * grow[1] / side) / 2
    return marker.side_px * k


def bit_confidence(gray: Image, marker: DetectedMarker, family: MarkerFamily) -> float:
    """How clearly the marker's cells read black or white: 1 crisp, near 0 ambiguous.

    The marker is resampled to its cell grid; each cell's mean is compared with the midpoint of the
    darkest and brightest cells, and the weakest cell's margin (relative to half the contrast) wins.
    """
    cells = family.bits + 2
    px = 6
    side = cells * px
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    h = cv2.getPerspectiveTransform(marker.corners.astype(np.float32), dst)
    square = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_LINEAR)
    inner = square.reshape(cells, px, cells, px)[:, 2:-2, :, 2:-2].astype(np.float32)
    means = inner.mean(axis=(1, 3))
    lo, hi = float(means.min()), float(means.max())
    half = (hi - lo) / 2
    if half < 8:
        return 0.0
    margin = float(np.abs(means - (lo + half)).min())
    return round(min(1.0, margin / half), 3)
