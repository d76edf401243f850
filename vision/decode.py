"""Reading one location: the markers on it with rotation and confidence, or that something that is
not a marker (a hand) covers it, or that it is plain mat."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import BoardGeometry, Rect
from vision.markers import Image, bit_confidence, detect, make_detector
from vision.readings import LocationReading, LocationState, MarkerReading
from vision.warp import BoardWarper


@dataclass(frozen=True)
class DecodeSettings:
    """Crop scale and the plain-mat / skin tests (see `LocationDecoder`)."""

    px_per_mm: float = 3.5
    margin_mm: float = 4.0
    interior: float = 0.7
    max_chroma: float = 10.0
    max_texture: float = 0.08
    min_brightness: float = 0.6
    max_skin_fraction: float = 0.15
    size_tolerance: float = 0.3


class LocationDecoder:
    """Decodes locations from a colour frame through a `BoardWarper`.

    A location is OCCUPIED when markers of `marker_sizes` (id -> printed side in mm) with about
    that side (within `size_tolerance`) have their centre inside it, unless skin
    covers more than `max_skin_fraction` of its interior (then a hand may hide a second marker:
    OCCLUDED). Without markers it is EMPTY only if its interior (the central `interior` share,
    clear of printed outlines and names) looks like plain mat: neutral colour, little texture,
    and not much darker than the mat's white near the corners; anything else covers it: OCCLUDED.

    Colour is judged relative to the mat: the interior is white-balanced by `mat_bgr` (the plain
    mat's colour in this frame), so a warm lamp or a blue shade neither makes the mat look like
    skin nor hides a hand.
    """

    def __init__(
        self,
        board: BoardGeometry,
        warper: BoardWarper,
        marker_sizes: Mapping[int, float],
        mat_white: float,
        settings: DecodeSettings = DecodeSettings(),
        mat_bgr: tuple[float, float, float] | None = None,
    ) -> None:
        self.board = board
        self.warper = warper
        self.marker_sizes = marker_sizes
        self.mat_white = mat_white
        self.settings = settings
        self.gains = white_balance_gains(mat_bgr)
        self._detector: Any = make_detector(board.family)

    def decode(self, frame: Image, rect: Rect) -> LocationReading:
        s = self.settings
        crop = self.warper.crop(frame, rect, s.px_per_mm, s.margin_mm)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        markers = self._markers(gray, rect)
        if not markers:
            # a small marker under a soft lens: try once more on a sharpened crop
            soft = cv2.GaussianBlur(gray, (0, 0), 2.0)
            markers = self._markers(cv2.addWeighted(gray, 2.0, soft, -1.0, 0), rect)
        inner = balance(self._interior(crop, rect), self.gains)
        if markers:
            if skin_fraction(inner) > s.max_skin_fraction:
                return LocationReading(rect.name, LocationState.OCCLUDED, tuple(sorted(markers)))
            return LocationReading(rect.name, LocationState.OCCUPIED, tuple(sorted(markers)))
        if self._plain_mat(inner):
            return LocationReading(rect.name, LocationState.EMPTY)
        return LocationReading(rect.name, LocationState.OCCLUDED)

    def _markers(self, gray: Image, rect: Rect) -> list[MarkerReading]:
        """Markers of the game, about their printed size, centred in `rect`, in a crop of it."""
        s = self.settings
        markers = []
        for m in detect(self._detector, gray):
            size = self.marker_sizes.get(m.marker_id)
            if size is None or abs(m.side_px / s.px_per_mm / size - 1) > s.size_tolerance:
                continue
            cx, cy = m.centre
            x_mm = rect.x0 - s.margin_mm + cx / s.px_per_mm
            y_mm = rect.y0 - s.margin_mm + cy / s.px_per_mm
            if not rect.contains(x_mm, y_mm):
                continue
            conf = bit_confidence(gray, m, self.board.family)
            markers.append(
                MarkerReading(m.marker_id, m.quarter_turns(), conf, round(x_mm, 1), round(y_mm, 1))
            )
        return markers

    def _interior(self, crop: Image, rect: Rect) -> Image:
        s = self.settings
        h, w = crop.shape[:2]
        mx = s.margin_mm * s.px_per_mm + rect.w_mm * s.px_per_mm * (1 - s.interior) / 2
        my = s.margin_mm * s.px_per_mm + rect.h_mm * s.px_per_mm * (1 - s.interior) / 2
        return crop[round(my) : h - round(my), round(mx) : w - round(mx)]

    def _plain_mat(self, inner: Image) -> bool:
        s = self.settings
        ycc = cv2.cvtColor(inner, cv2.COLOR_BGR2YCrCb).reshape(-1, 3).astype(np.float32)
        y = ycc[:, 0]
        chroma = float(np.abs(ycc[:, 1:] - 128.0).sum(axis=1).mean())
        mean = float(y.mean())
        texture = float(y.std()) / max(mean, 1.0)
        return (
            chroma <= s.max_chroma
            and texture <= s.max_texture
            and mean >= s.min_brightness * self.mat_white
        )


def skin_fraction(bgr: Image) -> float:
    """Share of pixels whose colour falls in the usual skin range of YCrCb (any brightness)."""
    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    mask = cv2.inRange(ycc, (40, 138, 77), (255, 178, 127))
    return float(np.count_nonzero(mask)) / max(1, mask.size)


def white_balance_gains(mat_bgr: tuple[float, float, float] | None) -> tuple[float, float, float]:
    """Per-channel gains that make the mat's colour neutral (its brightness kept), within 0.5-2."""
    if mat_bgr is None or min(mat_bgr) <= 1.0:
        return (1.0, 1.0, 1.0)
    mean = sum(mat_bgr) / 3
    b, g, r = (min(2.0, max(0.5, mean / c)) for c in mat_bgr)
    return b, g, r


def balance(bgr: Image, gains: tuple[float, float, float]) -> Image:
    """`bgr` with each channel multiplied by its gain (saturating)."""
    if all(abs(g - 1.0) < 0.01 for g in gains):
        return bgr
    out: Image = cv2.transform(bgr, np.diag(np.array(gains, dtype=np.float32)))
    return out
