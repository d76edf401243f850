"""Reading one location: the markers on it with rotation and confidence, or that something that is
not a marker (a hand) covers it, or that it is plain mat."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import BoardGeometry, Rect
from vision.markers import DetectedMarker, Image, bit_confidence, detect, make_detector
from vision.readings import ON_TOP, LocationReading, LocationState, MarkerReading
from vision.warp import BoardWarper


@dataclass(frozen=True)
class DecodeSettings:
    """Crop scale, the plain-mat test, the cover (hand) test and the glare test (see
    `LocationDecoder`)."""

    px_per_mm: float = 3.5
    margin_mm: float = 4.0
    interior: float = 0.7
    max_chroma: float = 10.0
    max_texture: float = 0.03
    min_brightness: float = 0.35
    size_tolerance: float = 0.3
    paper_chroma: float = 16.0
    paper_texture: float = 0.035
    max_cover: float = 0.04
    beneath_mm: float = 6.0  # how far a piece under the piece read may show beyond it
    edge_mm: float = 2.5
    cover_edge_mm: float = 5.0  # a neighbour's piece may overhang this far: not a cover
    label_mm: tuple[float, float] = (14.0, 5.5)
    outline_contrast: float = 0.97
    glare_level: int = 250
    glare_fraction: float = 0.02


class LocationDecoder:
    """Decodes locations from a colour frame through a `BoardWarper`.

    Markers of `marker_sizes` (id -> printed side in mm) with about that side (within
    `size_tolerance`) and their centre inside a location are its pieces. Then the location's
    area (clear of its printed outline and name) is split into what is explained and what is
    not. Explained: plain mat (neutral colour after white balance, at least `min_brightness` of
    the mat's white, so a hard shadow is still mat, and without fabric-like texture), each read
    marker's sticker, and around it the piece's own body: the colour of a ring just outside the
    sticker, whatever that colour is. The rest covers the location: a hand of any skin tone, a
    sleeve, something that is not a piece. More than `max_cover` of the area covered makes the
    location OCCLUDED (unknown), even with markers read (a hand may hide a second marker).
    Without markers it is EMPTY only if its interior (the central `interior` share) is plain mat:
    neutral, little texture once the light's smooth changes are taken out (a shadow's soft edge
    is not texture), and bright enough; otherwise OCCLUDED.

    Saturated glare (pixels at `glare_level` or more over `glare_fraction` of the location while
    the mat around it, `local_white`, is not saturated) makes a location unreadable: OCCLUDED
    with reason "glare", never EMPTY and never a marker read through it.

    Colour is judged relative to the mat: the crop is white-balanced by `mat_bgr` (the plain
    mat's colour in this frame), so a warm lamp or a blue shade neither makes the mat look like
    something else nor hides a hand.
    """

    def __init__(
        self,
        board: BoardGeometry,
        warper: BoardWarper,
        marker_sizes: Mapping[int, float],
        mat_white: float,
        settings: DecodeSettings = DecodeSettings(),
        mat_bgr: tuple[float, float, float] | None = None,
        marker_heights: Mapping[int, float] | None = None,
        camera_mm: tuple[float, float, float] | None = None,
    ) -> None:
        self.board = board
        self.warper = warper
        self.marker_sizes = marker_sizes
        # Tall pieces: a marker `marker_heights[id]` mm above the mat, seen from a camera at
        # `camera_mm`, lies away from its square on the picture; it is looked for there, and
        # put back on its square (parallax).
        self.marker_heights = {k: v for k, v in (marker_heights or {}).items() if v > 0}
        self.camera_mm = camera_mm if camera_mm is not None and camera_mm[2] > 0 else None
        self._tallest = max(self.marker_heights.values(), default=0.0)
        self._foreign: list[DetectedMarker] = []  # per decode: neighbours' tall tops seen here
        self._under: Image = np.zeros((1, 1), bool)  # per decode: a piece beneath those read
        self.mat_white = mat_white
        self.settings = settings
        self.gains = white_balance_gains(mat_bgr)
        self._detector: Any = make_detector(board.family)
        cells = board.family.bits + 2
        self._sticker_scale = (cells + 2) / cells  # the sticker's white quiet zone

    def decode(self, frame: Image, rect: Rect, local_white: float | None = None) -> LocationReading:
        s = self.settings
        crop = self.warper.crop(frame, rect, s.px_per_mm, s.margin_mm)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        self._foreign = []
        found = self._markers(gray, rect, rect)
        if not found:
            # a small marker under a soft lens: try once more on a sharpened crop
            soft = cv2.GaussianBlur(gray, (0, 0), 2.0)
            found = self._markers(cv2.addWeighted(gray, 2.0, soft, -1.0, 0), rect, rect)
        found += self._tall_markers(frame, rect, {m.marker_id for m, _ in found})
        markers = tuple(sorted(m for m, _ in found))
        area = self._area_mask(crop.shape[:2], rect)
        if local_white is not None and self._glare(
            crop, area & ~self._stickers(crop, found), local_white
        ):
            return LocationReading(rect.name, LocationState.OCCLUDED, (), "glare")
        wb = balance(crop, self.gains)
        luma = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb)[..., 0].astype(np.float32) + 1.0
        inner = self._area_mask(crop.shape[:2], rect, s.cover_edge_mm)
        cover = self._cover(wb, luma, [d for _, d in found] + self._foreign) & inner
        covered = float(np.count_nonzero(cover)) / max(1, int(np.count_nonzero(inner)))
        if covered > s.max_cover:
            return LocationReading(rect.name, LocationState.OCCLUDED, markers, "covered")
        if markers:
            # tall pieces standing on a piece whose rim shows round them: more lies here
            under = float(np.count_nonzero(self._under & area)) / max(
                1, int(np.count_nonzero(area))
            )
            tall = all(m.marker_id in self.marker_heights for m in markers)
            on_top = ON_TOP if tall and under > s.max_cover else ""
            return LocationReading(rect.name, LocationState.OCCUPIED, markers, on_top)
        if self._plain_mat(self._interior(wb, rect), self._interior(luma, rect)) and (
            self._outline_seen(luma, rect)
        ):
            return LocationReading(rect.name, LocationState.EMPTY)
        return LocationReading(rect.name, LocationState.OCCLUDED, (), "covered")

    def _tall_markers(
        self, frame: Image, rect: Rect, known: set[int]
    ) -> list[tuple[MarkerReading, DetectedMarker]]:
        """Tall pieces' markers on `rect` that parallax carries out of its crop: looked for where
        the tallest piece's top appears, and given in the location's own crop's pixels."""
        if self.camera_mm is None or not self._tallest:
            return []
        cx, cy, height = self.camera_mm
        k = self._tallest / (height - self._tallest)
        dx, dy = (rect.x_mm - cx) * k, (rect.y_mm - cy) * k
        if math.hypot(dx, dy) < 2.0:
            return []  # the location's own crop and margin hold it
        s = self.settings
        seen_at = Rect(rect.name, rect.x_mm + dx, rect.y_mm + dy, rect.w_mm, rect.h_mm)
        crop = self.warper.crop(frame, seen_at, s.px_per_mm, s.margin_mm)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        out = []
        shift = np.array([dx, dy], np.float32) * s.px_per_mm
        for reading, m in self._markers(gray, seen_at, rect, tall_only=True):
            if reading.marker_id not in known:
                out.append((reading, DetectedMarker(m.marker_id, m.corners + shift)))
        return out

    def _on_mat(self, marker_id: int, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Where a marker seen at (x, y) on the mat's plane stands: a tall piece's top is seen
        pushed away from the camera; its foot is nearer the point under the camera."""
        height = self.marker_heights.get(marker_id, 0.0)
        if self.camera_mm is None or not height:
            return x_mm, y_mm
        cx, cy, camera_height = self.camera_mm
        f = (camera_height - height) / camera_height
        return cx + (x_mm - cx) * f, cy + (y_mm - cy) * f

    def _markers(
        self, gray: Image, crop_rect: Rect, rect: Rect, tall_only: bool = False
    ) -> list[tuple[MarkerReading, DetectedMarker]]:
        """Markers of the game, about their printed size, standing in `rect`, in a crop of
        `crop_rect` (the same, or where a tall piece's top is seen)."""
        s = self.settings
        markers = []
        for m in detect(self._detector, gray):
            size = self.marker_sizes.get(m.marker_id)
            if size is None or (tall_only and m.marker_id not in self.marker_heights):
                continue
            height = self.marker_heights.get(m.marker_id, 0.0)
            if self.camera_mm is not None and height:
                size *= self.camera_mm[2] / (self.camera_mm[2] - height)  # nearer, bigger
            if abs(m.side_px / s.px_per_mm / size - 1) > s.size_tolerance:
                continue
            cx, cy = m.centre
            x_mm, y_mm = self._on_mat(
                m.marker_id,
                crop_rect.x0 - s.margin_mm + cx / s.px_per_mm,
                crop_rect.y0 - s.margin_mm + cy / s.px_per_mm,
            )
            if not rect.contains(x_mm, y_mm):
                if height and not tall_only:
                    self._foreign.append(m)  # a neighbour's tall piece, leaning over this one
                continue
            conf = bit_confidence(gray, m, self.board.family)
            reading = MarkerReading(
                m.marker_id, m.quarter_turns(), conf, round(x_mm, 1), round(y_mm, 1)
            )
            markers.append((reading, m))
        return markers

    def _area_mask(self, shape: tuple[int, ...], rect: Rect, edge_mm: float | None = None) -> Image:
        """The location's own area in its crop, clear of its printed outline (`edge_mm` in from
        it) and name."""
        s = self.settings
        mask = np.zeros(shape[:2], np.uint8)
        e = (s.margin_mm + (s.edge_mm if edge_mm is None else edge_mm)) * s.px_per_mm
        h, w = shape[:2]
        mask[round(e) : h - round(e), round(e) : w - round(e)] = 1
        lx, ly = (
            (s.margin_mm + s.label_mm[0]) * s.px_per_mm,
            (s.margin_mm + s.label_mm[1]) * s.px_per_mm,
        )
        mask[: round(ly), : round(lx)] = 0
        return mask.astype(bool)

    def _stickers(self, crop: Image, found: list[tuple[MarkerReading, DetectedMarker]]) -> Image:
        """Around each marker read, its piece (a white card's body and a sticker's white may be
        blown out where the mat is not: a read marker is trusted)."""
        mask = np.zeros(crop.shape[:2], np.uint8)
        for _, m in found:
            c = m.corners.mean(axis=0)
            quad = np.round(c + (m.corners - c) * self._sticker_scale * 1.9).astype(np.int32)
            cv2.fillConvexPoly(mask, quad, 1)
        return mask.astype(bool)

    def _glare(self, crop: Image, area: Image, local_white: float) -> bool:
        s = self.settings
        if local_white >= s.glare_level - 6:
            return False  # the mat around is itself blown out: glare cannot be told from it
        # glare blows every channel out over a patch 3 mm wide or more; the noise of a white
        # card, or JPEG's ringing beside a marker's black, saturates only specks
        core = round(3.0 * s.px_per_mm) | 1
        saturated = cv2.erode(
            (crop.min(axis=2) >= s.glare_level).astype(np.uint8), np.ones((core, core), np.uint8)
        ).astype(bool)
        share = float(np.count_nonzero(saturated & area)) / max(1, int(np.count_nonzero(area)))
        return share > s.glare_fraction

    def _cover(self, wb: Image, luma: Image, found: list[DetectedMarker]) -> Image:
        """Pixels of the crop that neither plain mat nor a read piece explains."""
        s = self.settings
        ycc = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb).astype(np.int16)
        chroma = np.abs(ycc[..., 1] - 128) + np.abs(ycc[..., 2] - 128)
        texture = _texture(luma, 1.2 * s.px_per_mm)
        paper = (
            (chroma <= s.paper_chroma)
            & (luma >= s.min_brightness * self.mat_white)
            & (texture <= s.paper_texture)
        )
        explained = paper.astype(np.uint8)
        under = np.zeros(wb.shape[:2], np.uint8)  # explained only as a piece beneath one read
        shape = wb.shape[:2]
        for m in found:
            centre = m.corners.mean(axis=0)

            def scaled(k: float, c: Any = centre, corners: Any = m.corners) -> Any:
                return np.round(c + (corners - c) * k).astype(np.int32)

            k = self._sticker_scale
            sticker = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(sticker, scaled(k * 1.04), 1)
            ring = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(ring, scaled(k * 1.14), 1)
            ring = ring.astype(bool) & ~sticker.astype(bool)
            explained |= sticker
            body_px = wb[ring].astype(np.float32)
            if len(body_px) == 0:
                continue
            body = np.median(body_px, axis=0) + 1.0
            zone = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(zone, scaled(k * 1.9), 1)
            # the body, and its edge where the camera blends it with the mat (about 3 mm)
            grow = np.ones((round(3.0 * s.px_per_mm) | 1,) * 2, np.uint8)
            own = zone & _similar(wb, body)
            body_mask: Image = np.asarray(cv2.dilate(own, grow), np.uint8)
            explained |= zone & body_mask
            under |= self._beneath(wb, own, body_mask, paper)
        self._under = (under > 0) & (explained == 0)
        explained |= under
        grown = cv2.dilate(explained, np.ones((5, 5), np.uint8))
        cover = (grown == 0).astype(np.uint8)
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
        return cv2.morphologyEx(cover, cv2.MORPH_OPEN, kernel).astype(bool)

    def _beneath(self, wb: Image, own: Image, body_mask: Image, paper: Image) -> Image:
        """A piece under the piece read (a minecart on a tile hides the tile's marker): its rim
        showing just beyond the body, up to `beneath_mm`, in one colour that is not paper."""
        s = self.settings
        reach = np.ones((round(s.beneath_mm * s.px_per_mm) | 1,) * 2, np.uint8)
        near = np.ones((round(1.5 * s.px_per_mm) | 1,) * 2, np.uint8)
        ring = (cv2.dilate(body_mask, near) > 0) & (body_mask == 0) & ~paper
        if np.count_nonzero(ring) < 4 * s.px_per_mm * s.px_per_mm:
            return np.zeros(own.shape, np.uint8)
        under = np.median(wb[ring].astype(np.float32), axis=0) + 1.0
        rim = np.asarray(cv2.dilate(own, reach), np.uint8)
        out: Image = rim & np.asarray(cv2.dilate(_similar(wb, under), near), np.uint8)
        return out

    def _interior(self, crop: Image, rect: Rect) -> Image:
        s = self.settings
        h, w = crop.shape[:2]
        mx = s.margin_mm * s.px_per_mm + rect.w_mm * s.px_per_mm * (1 - s.interior) / 2
        my = s.margin_mm * s.px_per_mm + rect.h_mm * s.px_per_mm * (1 - s.interior) / 2
        return crop[round(my) : h - round(my), round(mx) : w - round(mx)]

    def _outline_seen(self, luma: Image, rect: Rect) -> bool:
        """Whether the location's printed outline shows along most of its sides: darker than
        the mat just inside it. A shadow keeps it; a sleeve or a hand over it hides it."""
        s = self.settings
        p = s.px_per_mm
        m = s.margin_mm * p
        h, w = luma.shape[:2]
        # each side as a strip from 1.2 mm outside the edge to 3 mm inside, read inwards
        strips = [
            luma[:, round(m - 1.2 * p) : round(m + 3 * p)].T,
            luma[:, w - round(m + 3 * p) : w - round(m - 1.2 * p)][:, ::-1].T,
            luma[round(m - 1.2 * p) : round(m + 3 * p), :],
            luma[h - round(m + 3 * p) : h - round(m - 1.2 * p), :][::-1, :],
        ]
        line_rows = round(2.4 * p)  # -1.2 .. +1.2 mm about the edge
        seen = total = 0
        for strip in strips:
            # along the side, clear of the corners, in 4 segments
            n = strip.shape[1]
            lo, hi = round(m + 3 * p), n - round(m + 3 * p)
            for seg in np.array_split(np.arange(lo, hi), 4):
                if len(seg) == 0:
                    continue
                prof = strip[:, seg].mean(axis=1)
                line = float(prof[:line_rows].min())
                inside = float(np.median(prof[line_rows:]))
                total += 1
                seen += int(line < s.outline_contrast * inside)
        return total > 0 and seen >= 0.5 * total

    def _plain_mat(self, inner: Image, luma: Image) -> bool:
        """Neutral, no texture once the light's smooth changes are divided out (a shadow's
        soft edge is no texture), at least `min_brightness` of the mat's white."""
        s = self.settings
        ycc = cv2.cvtColor(inner, cv2.COLOR_BGR2YCrCb).reshape(-1, 3).astype(np.float32)
        chroma = float(np.abs(ycc[:, 1:] - 128.0).sum(axis=1).mean())
        smooth = cv2.GaussianBlur(luma, (0, 0), 2.0 * s.px_per_mm)
        texture = float(np.std(luma / smooth))
        return (
            chroma <= s.max_chroma
            and texture <= s.max_texture
            and float(luma.mean()) >= s.min_brightness * self.mat_white
        )


def _texture(luma: Image, sigma: float) -> Image:
    """Local texture: the mean relative deviation from the smooth light, over about `sigma`."""
    smooth = cv2.GaussianBlur(luma, (0, 0), sigma)
    dev = np.abs(luma / smooth - 1.0)
    out: Image = cv2.GaussianBlur(dev, (0, 0), sigma / 2)
    return out


def _similar(wb: Image, body: Any) -> Image:
    """Pixels of the body's colour, lit brighter or darker (a shadow across a piece)."""
    px = wb.astype(np.float32) + 1.0
    total = px.sum(axis=2)
    ratio = total / float(body.sum())
    chroma_px = px / total[..., None]
    chroma_body = body / float(body.sum())
    close = np.abs(chroma_px - chroma_body).max(axis=2) <= 0.06
    out: Image = (close & (ratio >= 0.4) & (ratio <= 1.6)).astype(np.uint8)
    return out


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
