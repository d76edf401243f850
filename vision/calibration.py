"""Calibration: the mat-to-camera homography from four corner markers, kept while they stay put."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import BoardGeometry
from vision.lens import Lens, fit_radial
from vision.markers import DetectedMarker, Image, detect, make_corner_detector
from vision.readings import CalibrationState

Matrix = NDArray[np.float64]


class ImplausibleCalibration(ValueError):
    """The corner markers were found but do not describe the mat seen by a sane camera."""


@dataclass(frozen=True)
class Calibration:
    """A trusted homography and where each corner marker's four corners lie in the image.

    `mat_to_image` carries mat millimetres to ideal (undistorted) pixels; `lens` bends those into
    the raw frame. With a straight lens (None or ideal) ideal pixels are raw pixels.
    """

    mat_to_image: Matrix
    corner_px: tuple[NDArray[np.float32], ...]
    reprojection_px: float
    lens: Lens | None = None

    @property
    def image_to_mat(self) -> Matrix:
        return np.asarray(np.linalg.inv(self.mat_to_image), dtype=np.float64)

    @property
    def straight(self) -> bool:
        """True when the homography alone maps the mat onto the raw frame."""
        return self.lens is None or self.lens.is_ideal

    def to_image(self, pts_mm: NDArray[Any]) -> NDArray[np.float64]:
        """Mat millimetres (N, 2) to raw frame pixels, through the lens."""
        ideal = project(self.mat_to_image, pts_mm)
        return ideal if self.lens is None else self.lens.distort(ideal)

    def to_mat(self, pts_px: NDArray[Any]) -> NDArray[np.float64]:
        """Raw frame pixels (N, 2) to mat millimetres."""
        ideal = pts_px if self.lens is None else self.lens.undistort(pts_px)
        return project(self.image_to_mat, ideal)

    def camera_mm(self, frame_size: tuple[int, int]) -> tuple[float, float, float]:
        """Where the camera's lens is in mat millimetres: x, y over the mat and its height.

        The focal length follows from the homography (a plane seen at a slant fixes it, with the
        lens centre at the frame's centre); when the view is too square-on to tell, a measured
        lens's focal length, else a Pi camera module's (0.85 of the frame's width).
        """
        w, h = frame_size
        cx, cy = w / 2, h / 2
        fallback = 0.85 * w
        if self.lens is not None and not self.lens.is_ideal:
            cx, cy = self.lens.cx, self.lens.cy
            if self.lens.measured:
                fallback = self.lens.fx
        centred = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]]) @ self.mat_to_image
        a, b = centred[:, 0], centred[:, 1]
        u = np.array([a[0] * b[0] + a[1] * b[1], a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2])
        v = np.array([a[2] * b[2], a[2] ** 2 - b[2] ** 2])
        inverse_f2 = -float(u @ v) / float(u @ u)
        f = 1 / math.sqrt(inverse_f2) if inverse_f2 > 0 else fallback
        # a slant too small to fix f: the perspective terms barely show
        slant = math.hypot(a[2], b[2]) * f / max(float(np.linalg.norm(a[:2])), 1e-9)
        if not 0.3 * w <= f <= 4 * w or slant < 0.05:
            f = fallback
        m = np.diag([1 / f, 1 / f, 1.0]) @ centred
        scale = 2 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
        r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
        if t[2] < 0:
            r1, r2, t = -r1, -r2, -t
        rotation = np.stack([r1, r2, np.cross(r1, r2)], axis=1)
        u_, _, vt = np.linalg.svd(rotation)
        rotation = u_ @ vt
        x, y, z = (-rotation.T @ t).tolist()
        return float(x), float(y), abs(float(z))

    def px_per_mm(self, board: BoardGeometry) -> float:
        """Mean image scale over the mat (pixels per millimetre)."""
        quad = self.to_image(mat_outline(board))
        area = cv2.contourArea(quad.astype(np.float32))
        return float(np.sqrt(area / (board.width_mm * board.height_mm)))

    def same_place(self, other: Calibration, tolerance_px: float = 1.5) -> bool:
        return all(
            float(np.abs(a - b).max()) <= tolerance_px
            for a, b in zip(self.corner_px, other.corner_px, strict=True)
        )


def mat_outline(board: BoardGeometry) -> NDArray[np.float64]:
    w, h = board.width_mm, board.height_mm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def project(h: Matrix, pts_mm: NDArray[Any]) -> NDArray[np.float64]:
    """Apply homography `h` to an (N, 2) array of points."""
    src = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(src, h), dtype=np.float64).reshape(-1, 2)


def estimate(
    board: BoardGeometry,
    found: dict[int, DetectedMarker],
    frame_size: tuple[int, int],
    lens: Lens | None = None,
) -> Calibration:
    """Fit the homography to all 16 corner-marker corners and check it is plausible.

    Through `lens` when the camera's lens is known; otherwise a one-term radial lens is fitted
    along with the homography (an ordinary wide lens bends the mat visibly).

    Raises `ImplausibleCalibration` naming what is wrong: a missing corner, a poor fit (a marker
    moved on the mat, or a wrong layout), a mat that is folded, tiny, or partly outside the frame.
    """
    if lens is not None:
        try:
            lens = lens.for_size(frame_size)
        except ValueError as error:
            raise ImplausibleCalibration(str(error)) from None
    missing = [c.marker_id for c in board.corners if c.marker_id not in found]
    if missing:
        raise ImplausibleCalibration(f"corner markers {missing} not seen")
    mm = np.array([p for c in board.corners for p in c.corners_mm()], dtype=np.float64)
    px = np.vstack([found[c.marker_id].corners for c in board.corners]).astype(np.float64)
    if lens is not None:
        found_h, _ = cv2.findHomography(mm, lens.undistort(px), 0)
        if found_h is None:
            raise ImplausibleCalibration("corner markers give no homography (degenerate positions)")
        h = np.asarray(found_h, dtype=np.float64)
        err = float(np.linalg.norm(lens.distort(project(h, mm)) - px, axis=1).max())
    else:
        try:
            lens, h, err = fit_radial(mm, px, frame_size)
        except ValueError:
            raise ImplausibleCalibration(
                "corner markers give no homography (degenerate positions)"
            ) from None
    side_px = float(np.mean([found[c.marker_id].side_px for c in board.corners]))
    if err > max(3.0, 0.12 * side_px):
        raise ImplausibleCalibration(
            f"corner markers disagree with the layout by {err:.1f} px (a corner moved on the mat?)"
        )
    cal = Calibration(h, (), err, None if lens.is_ideal else lens)
    quad = cal.to_image(mat_outline(board)).astype(np.float32)
    if not cv2.isContourConvex(quad):
        raise ImplausibleCalibration("the mat would be folded: its outline is not convex")
    width, height = frame_size
    area = cv2.contourArea(quad)
    if area < 0.05 * width * height:
        raise ImplausibleCalibration(
            f"the mat covers only {100 * area / (width * height):.1f}% of the frame (under 5%)"
        )
    for r in board.locations:
        corners = np.array([[r.x0, r.y0], [r.x1, r.y0], [r.x1, r.y1], [r.x0, r.y1]])
        pts = cal.to_image(corners)
        if (pts < -1).any() or (pts[:, 0] > width).any() or (pts[:, 1] > height).any():
            raise ImplausibleCalibration(f"location {r.name!r} lies outside the camera's frame")
    corner_px = tuple(found[c.marker_id].corners.astype(np.float32) for c in board.corners)
    return Calibration(h, corner_px, err, cal.lens)


class LazyGray:
    """A frame's grey version, converted only where asked (patches) or once in whole."""

    def __init__(self, frame: Image) -> None:
        self.frame = frame
        self.shape = frame.shape[:2]
        self._whole: Image | None = frame if frame.ndim == 2 else None

    def whole(self) -> Image:
        if self._whole is None:
            self._whole = cv2.cvtColor(self.frame, cv2.COLOR_BGR2GRAY)
        return self._whole

    def patch(self, x0: int, y0: int, x1: int, y1: int) -> Image:
        if self._whole is not None:
            return self._whole[y0:y1, x0:x1]
        grey: Image = cv2.cvtColor(self.frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        return grey


FOCUS_BLUR_PX = 2.0  # edges blurred wider than this (a Gaussian's sigma) hide the corner codes


def blur_px(gray: Image) -> float:
    """How blurred a frame is, as the sigma in pixels of a Gaussian blur that would give its
    sharpest edges: a printed edge of contrast C blurred by sigma has a steepest slope of
    C / (sigma * sqrt(2 pi)). Sharp frames give about 0.5-1; the corner codes go at about 2."""
    small = gray.astype(np.float32)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3) / 8
    steepest = float(np.percentile(np.hypot(gx, gy), 99.9))
    low, high = np.percentile(small, [2, 98])
    return float(high - low) / (math.sqrt(2 * math.pi) * max(steepest, 1e-3))


class CalibrationEvent(StrEnum):
    """What one frame did to the calibration."""

    KEPT = "kept"
    NEW = "new"
    NONE = "none"


class Calibrator:
    """Keeps the calibration: a cheap look at each corner per frame, a full search only when needed.

    Each corner's patch is compared with the one seen at calibration. An undisturbed patch confirms
    the corner. A disturbed one is decoded in a small window: found in place (light changed) it is
    confirmed and its patch refreshed; found elsewhere, the corner moved and the homography is
    re-estimated; not found, it is hidden (a hand). When no corner is confirmed (a bumped camera)
    the whole frame is searched at once; while two or three are unconfirmed, every
    `search_every` frames (`steady` is False while fewer than three are confirmed, and the pipeline
    lets no view settle then); after `lost_after` such frames, or when a corner moved and the four
    cannot all be seen, the state is LOST and no squares are reported.
    """

    def __init__(
        self,
        board: BoardGeometry,
        *,
        search_every: int = 5,
        lost_after: int = 45,
        move_frames: int = 3,
        lens: Lens | None = None,
    ):
        self.board = board
        self.lens = lens  # the camera's stored lens; None: fit one radial term from the corners
        self.search_every = search_every
        self.lost_after = lost_after
        self.move_frames = move_frames
        self.state = CalibrationState.UNCALIBRATED
        self.calibration: Calibration | None = None
        self.reason = "no frame seen yet"
        self._detector = make_corner_detector(board.family)
        self._boxes: list[tuple[int, int, int, int]] = []
        self._refs: list[Image] = []
        self._unconfirmed_frames = 0
        self._frames_since_search = 0
        self._displaced: dict[int, tuple[NDArray[np.float32], int]] = {}
        self.confirmed = 0

    def update(self, frame: Image) -> CalibrationEvent:
        """Look at one frame (BGR or grey); returns NEW when a new calibration was adopted.

        Only the corner patches are converted to grey in the usual case; the whole frame only
        when it has to be searched.
        """
        gray = LazyGray(frame)
        if self.state != CalibrationState.CALIBRATED or self.calibration is None:
            self.confirmed = 0
            event = self._search(gray, throttle=self.state != CalibrationState.UNCALIBRATED)
            self._after_search(event)
            return event
        confirmed, moved = self._check_corners(gray)
        self.confirmed = confirmed
        if moved:
            event = self._search(gray, throttle=False)
            self._after_search(event)
            return event
        if confirmed >= 3:
            self._unconfirmed_frames = 0
            return CalibrationEvent.KEPT
        self._unconfirmed_frames += 1
        if confirmed == 0 or self._unconfirmed_frames % self.search_every == 0:
            # no corner where it was (the camera was bumped): search the whole frame at once
            event = self._search(gray, throttle=False, keep_on_failure=True)
            if event != CalibrationEvent.NONE:
                self._after_search(event)
            if event == CalibrationEvent.NEW:
                return event
        if self._unconfirmed_frames >= self.lost_after:
            self._lose(
                f"{4 - confirmed} corner markers unseen for {self._unconfirmed_frames} frames"
            )
        return (
            CalibrationEvent.KEPT
            if self.state == CalibrationState.CALIBRATED
            else (CalibrationEvent.NONE)
        )

    @property
    def steady(self) -> bool:
        """Calibrated with at least three corners confirmed at their calibrated places this frame:
        only then may frames be read through the homography (after a bump they may not)."""
        return self.state == CalibrationState.CALIBRATED and self.confirmed >= 3

    def recalibrate(self) -> None:
        """Forget the calibration; the next frames search for the corners again."""
        self.state = CalibrationState.UNCALIBRATED
        self.calibration = None
        self.reason = "recalibration requested"

    # --- internals ------------------------------------------------------------------------
    def _after_search(self, event: CalibrationEvent) -> None:
        """A calibration (re)adopted from this frame: its four corners are where it says."""
        if event != CalibrationEvent.NONE and self.state == CalibrationState.CALIBRATED:
            self.confirmed = 4

    def _lose(self, reason: str) -> None:
        self.state = CalibrationState.LOST
        self.reason = reason
        self._frames_since_search = 0

    def _search(
        self, gray: LazyGray, *, throttle: bool, keep_on_failure: bool = False
    ) -> CalibrationEvent:
        if throttle:
            self._frames_since_search += 1
            if self._frames_since_search < self.search_every:
                return CalibrationEvent.NONE
        self._frames_since_search = 0
        ids = self.board.corner_ids
        whole = gray.whole()
        found = {m.marker_id: m for m in detect(self._detector, whole) if m.marker_id in ids}
        try:
            cal = estimate(self.board, found, (whole.shape[1], whole.shape[0]), self.lens)
        except ImplausibleCalibration as exc:
            if keep_on_failure:
                return CalibrationEvent.NONE
            missing = len(ids - set(found))
            reason = str(exc)
            if missing:
                blur = blur_px(whole)
                if blur >= FOCUS_BLUR_PX:
                    reason = (
                        f"the picture is out of focus (edges blurred over about {blur:.1f} px; "
                        f"the corner markers need under {FOCUS_BLUR_PX:g}): turn the camera's "
                        f"focus ring or clean its lens; {reason}"
                    )
            if missing and self.state == CalibrationState.UNCALIBRATED:
                self.reason = reason
            elif missing:
                self._lose(reason)
            else:
                self.state = CalibrationState.IMPLAUSIBLE
                self.reason = str(exc)
            return CalibrationEvent.NONE
        old = self.calibration
        if (
            self.state == CalibrationState.CALIBRATED
            and old is not None
            and cal.reprojection_px > max(1.0, 2 * old.reprojection_px)
        ):
            # a re-estimate that fits worse than the one in use: a hand half over a corner
            return CalibrationEvent.NONE
        self._adopt(cal, gray)
        if old is not None and old.same_place(cal):
            return CalibrationEvent.KEPT
        return CalibrationEvent.NEW

    def _adopt(self, cal: Calibration, gray: LazyGray) -> None:
        self.calibration = cal
        self.state = CalibrationState.CALIBRATED
        self.reason = f"calibrated, corners fit within {cal.reprojection_px:.2f} px"
        self._unconfirmed_frames = 0
        self._displaced = {}
        h, w = gray.shape[:2]
        self._boxes = []
        for quad in cal.corner_px:
            x0, y0 = quad.min(axis=0)
            x1, y1 = quad.max(axis=0)
            pad = 0.2 * max(x1 - x0, y1 - y0)
            box = (
                max(0, int(x0 - pad)),
                max(0, int(y0 - pad)),
                min(w, int(x1 + pad) + 1),
                min(h, int(y1 + pad) + 1),
            )
            self._boxes.append(box)
        self._refs = [gray.patch(x0, y0, x1, y1).copy() for x0, y0, x1, y1 in self._boxes]

    def _check_corners(self, gray: LazyGray) -> tuple[int, bool]:
        """How many corners are confirmed in place, and whether any was found moved.

        A corner counts as moved only when found at the same new place in `move_frames` frames
        in a row: a hand half over a marker yields skewed reads that do not repeat.
        """
        assert self.calibration is not None
        confirmed, moved = 0, False
        for i, (x0, y0, x1, y1) in enumerate(self._boxes):
            patch = gray.patch(x0, y0, x1, y1)
            if patch.shape != self._refs[i].shape:
                continue
            diff = cv2.absdiff(patch, self._refs[i])
            if np.count_nonzero(diff > 40) <= 0.04 * diff.size:
                confirmed += 1
                continue
            where = self._find_corner(gray, i)
            if where is None:
                self._displaced.pop(i, None)
                continue
            if float(np.abs(where - self.calibration.corner_px[i]).max()) <= 1.5:
                confirmed += 1
                self._refs[i] = patch.copy()
                self._displaced.pop(i, None)
                continue
            last, count = self._displaced.get(i, (where, 0))
            count = count + 1 if float(np.abs(where - last).max()) <= 1.0 else 1
            self._displaced[i] = (where, count)
            moved = moved or count >= self.move_frames
        return confirmed, moved

    def _find_corner(self, gray: LazyGray, i: int) -> NDArray[np.float32] | None:
        x0, y0, x1, y1 = self._boxes[i]
        pad_x, pad_y = (x1 - x0) // 2, (y1 - y0) // 2
        h, w = gray.shape[:2]
        ax0, ay0 = max(0, x0 - pad_x), max(0, y0 - pad_y)
        window = gray.patch(ax0, ay0, min(w, x1 + pad_x), min(h, y1 + pad_y))
        want = self.board.corners[i].marker_id
        for m in detect(self._detector, window):
            if m.marker_id == want:
                return m.corners + np.array([ax0, ay0], dtype=np.float32)
        return None
