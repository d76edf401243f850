"""Reading one location: the markers on it with rotation and confidence, or that something that is
not a marker (a hand) covers it, or that it is plain mat."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import BoardGeometry, Rect
from vision.markers import (
    DetectedMarker,
    Image,
    bit_confidence,
    detect,
    make_detector,
    outer_side_px,
)
from vision.readings import (
    BEHIND,
    COVERED,
    GLARE,
    HELD,
    ON_TOP,
    UNCLEAR,
    LocationReading,
    LocationState,
    MarkerReading,
)
from vision.warp import BoardWarper


@dataclass(frozen=True)
class DecodeSettings:
    """Crop scale, the plain-mat test, the cover (hand) test and the glare test (see
    `LocationDecoder`)."""

    px_per_mm: float = 3.5
    margin_mm: float = 4.0
    interior: float = 0.7
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
    outline_contrast: float = 0.985  # the printed outline, averaged along a side, this darker
    glare_level: int = 250
    glare_fraction: float = 0.02
    max_not_paper: float = 0.05  # share of an empty square's seen interior that may look odd
    min_seen: float = 0.4  # share of its interior a square must show to be judged empty
    tall_body: float = 1.7  # a tall piece's body, at most, in sticker sides (its top's square)
    above_board: float = 0.02  # a marker this much bigger than those lying on the board floats


@dataclass(frozen=True)
class TallTop:
    """A tall piece's top as the camera sees it on the mat's plane: its marker's corners (mm,
    where the picture puts them on the mat) and how high it stands."""

    marker_id: int
    corners_mm: tuple[tuple[float, float], ...]
    height_mm: float

    def silhouette_mm(self, camera_mm: tuple[float, float, float], body: float) -> Any:
        """The whole piece as the camera sees it on the mat's plane (mm, a convex polygon): its
        top's square, `body` sticker sides wide, and its foot, joined by its sides."""
        cx, cy, height = camera_mm
        corners = np.array(self.corners_mm, np.float64)
        centre = corners.mean(axis=0)
        top = centre + (corners - centre) * body
        foot = np.array([cx, cy]) + (top - (cx, cy)) * (height - self.height_mm) / height
        return cv2.convexHull(np.vstack([top, foot]).astype(np.float32)).reshape(-1, 2)


@dataclass(frozen=True)
class Seen:
    """One location as read: its crop, the markers standing on it (with their detections), a
    neighbour's tall top seen over it, ids seen floating above the board, its own tall tops,
    and how big each marker read was seen against its printed size."""

    rect: Rect
    crop: Image
    found: tuple[tuple[MarkerReading, DetectedMarker], ...]
    foreign: tuple[DetectedMarker, ...]
    held: tuple[int, ...]
    tops: tuple[TallTop, ...]
    scales: tuple[tuple[tuple[float, float], float], ...] = ()  # (size, height), seen / printed


class LocationDecoder:
    """Decodes locations from a colour frame through a `BoardWarper`.

    Markers of `marker_sizes` (id -> printed side in mm) with about that side (within
    `size_tolerance`) and their centre inside a location are its pieces. Then the location's
    area (clear of its printed outline and name) is split into what is explained and what is
    not. Explained: plain mat (neutral colour after white balance, at least `min_brightness` of
    the mat's white, so a hard shadow is still mat, and without fabric-like texture), each read
    marker's sticker, and around it the piece's own body: the colour of a ring just outside the
    sticker, whatever that colour is; and every tall piece's whole body (top and sides) where
    its height and the camera put it on the picture (`TallTop`). The rest covers the location:
    a hand of any skin tone, a sleeve, something that is not a piece. More than `max_cover` of
    the area covered makes the location OCCLUDED (unknown), even with markers read (a hand may
    hide a second marker); else its markers are what it holds, whatever leans over its edge.
    Without markers it is EMPTY only if its paper and its printed outline are seen (`_paper`,
    `_outline_seen`); otherwise OCCLUDED, with the reason. A marker seen bigger than those lying
    on the board (`board_scale`, by `above_board`) is held above it: OCCLUDED, HELD.

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
        board_scale: Mapping[tuple[float, float], float] | None = None,
    ) -> None:
        self.board = board
        # how big, against their printed size (and height), markers lying on the board are
        # seen in this view, per (size, height): one seen bigger by `above_board` floats
        self.board_scale = board_scale or {}
        self._scales: list[tuple[tuple[float, float], float]] = []
        self.warper = warper
        self.marker_sizes = marker_sizes
        # Tall pieces: a marker `marker_heights[id]` mm above the mat, seen from a camera at
        # `camera_mm`, lies away from its square on the picture; it is looked for there, and
        # put back on its square (parallax).
        self.marker_heights = {k: v for k, v in (marker_heights or {}).items() if v > 0}
        self.camera_mm = camera_mm if camera_mm is not None and camera_mm[2] > 0 else None
        self._tallest = max(self.marker_heights.values(), default=0.0)
        self._foreign: list[DetectedMarker] = []  # per decode: neighbours' tall tops seen here
        self._held: list[int] = []  # per decode: markers seen floating above the board
        self._under: Image = np.zeros((1, 1), bool)  # per decode: a piece beneath those read
        self.mat_white = mat_white
        self.settings = settings
        self.gains = white_balance_gains(mat_bgr)
        self._detector: Any = make_detector(board.family)
        cells = board.family.bits + 2
        self._sticker_scale = (cells + 2) / cells  # the sticker's white quiet zone

    def decode(
        self,
        frame: Image,
        rect: Rect,
        local_white: float | None = None,
        tall: Sequence[TallTop] = (),
    ) -> LocationReading:
        """Read `rect` (`read`) and judge it (`judge`) with the tall pieces `tall` around."""
        return self.judge(self.read(frame, rect), local_white, tall)

    def read(self, frame: Image, rect: Rect) -> Seen:
        """The markers standing on `rect` (a tall piece's top looked for where the camera sees
        it), those seen that float above the board, and its crop."""
        s = self.settings
        crop = self.warper.crop(frame, rect, s.px_per_mm, s.margin_mm)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        self._foreign = []
        self._held = []
        self._scales = []
        found = self._markers(gray, rect, rect)
        if not found and not self._held:
            # a small marker under a soft lens: try once more on a sharpened crop
            soft = cv2.GaussianBlur(gray, (0, 0), 2.0)
            found = self._markers(cv2.addWeighted(gray, 2.0, soft, -1.0, 0), rect, rect)
        found += self._tall_markers(frame, rect, {m.marker_id for m, _ in found})
        tops = tuple(
            TallTop(r.marker_id, self._to_mat(rect, d.corners), self.marker_heights[r.marker_id])
            for r, d in found
            if r.marker_id in self.marker_heights
        )
        return Seen(
            rect,
            crop,
            tuple(found),
            tuple(self._foreign),
            tuple(self._held),
            tops,
            tuple(self._scales),
        )

    def judge(
        self, seen: Seen, local_white: float | None = None, tall: Sequence[TallTop] = ()
    ) -> LocationReading:
        """What `seen`'s location holds: its markers (whatever leans over its edge), plain mat
        (its outline and paper seen where no tall piece stands in the way), or unknown, and why.

        `tall`: the tall pieces on the board (their tops as seen); with the camera's place they
        give each one's whole body on the picture, which explains what it hides."""
        s = self.settings
        rect, crop, found = seen.rect, seen.crop, list(seen.found)
        markers = tuple(sorted(m for m, _ in found))
        area = self._area_mask(crop.shape[:2], rect)
        bodies = self._silhouettes(crop.shape[:2], rect, (*tall, *seen.tops))
        if seen.held:
            # a piece nearer the camera than the board: held above it, not (yet) put down
            return LocationReading(rect.name, LocationState.OCCLUDED, markers, HELD)
        if not found and bodies.any():
            # a neighbour's tall piece may lean over this piece's sticker and hide its white
            # quiet zone: its coloured body then merges with the marker's black border and
            # OpenCV finds no square; read again with that body painted white
            found = self._behind_tall(crop, rect, bodies, (*tall, *seen.tops))
            markers = tuple(sorted(m for m, _ in found))
        pieces = self._stickers(crop, found)
        if local_white is not None and self._glare(
            crop, area & ~pieces & ~bodies, local_white, self._white_bodies(crop, found)
        ):
            return LocationReading(rect.name, LocationState.OCCLUDED, (), GLARE)
        wb = balance(crop, self.gains)
        luma = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb)[..., 0].astype(np.float32) + 1.0
        inner = self._area_mask(crop.shape[:2], rect, s.cover_edge_mm)
        cover = self._cover(wb, luma, [d for _, d in found] + list(seen.foreign), bodies) & inner
        covered = float(np.count_nonzero(cover)) / max(1, int(np.count_nonzero(inner)))
        if covered > s.max_cover and self._shadow_edge(cover, wb, luma, inner):
            covered = 0.0  # a hard shadow's edge across paper: light, not a cover
        if covered > s.max_cover:
            if not markers and self._sticker_behind(cover, wb, luma, bodies, inner):
                # a sticker a neighbour's tall piece hides part of: unknown, but no hand
                return LocationReading(rect.name, LocationState.OCCLUDED, (), BEHIND)
            return LocationReading(rect.name, LocationState.OCCLUDED, markers, COVERED)
        if markers:
            # tall pieces standing on a piece whose rim shows round them: more lies here
            under = float(np.count_nonzero(self._under & area)) / max(
                1, int(np.count_nonzero(area))
            )
            tall_only = all(m.marker_id in self.marker_heights for m in markers)
            on_top = ON_TOP if tall_only and under > s.max_cover else ""
            return LocationReading(rect.name, LocationState.OCCUPIED, markers, on_top)
        hidden = self._interior(bodies, rect)
        if np.count_nonzero(~hidden) < s.min_seen * hidden.size:
            return LocationReading(rect.name, LocationState.OCCLUDED, (), BEHIND)
        if self._paper(self._interior(wb, rect), self._interior(luma, rect), hidden) and (
            self._outline_seen(luma, rect, bodies)
        ):
            return LocationReading(rect.name, LocationState.EMPTY)
        return LocationReading(rect.name, LocationState.OCCLUDED, (), UNCLEAR)

    def _behind_tall(
        self, crop: Image, rect: Rect, bodies: Image, tops: Sequence[TallTop]
    ) -> list[tuple[MarkerReading, DetectedMarker]]:
        """Markers on `rect` read once tall pieces leaning over it are painted white: first the
        coloured parts of their bodies (`bodies`, where their silhouettes fall: a marker's black
        and its sticker's white are neutral, a minecart's body is not), then their tops, each
        a little wider than its sticker (a thin rim loses its colour to the camera's JPEG).
        None if that finds none, or only floating ones."""
        s = self.settings
        wb = balance(crop, self.gains)
        ycc = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb).astype(np.int16)
        chroma = np.abs(ycc[..., 1] - 128) + np.abs(ycc[..., 2] - 128)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        white = round(float(np.percentile(gray, 95)))
        paints = []
        strong = bodies & (chroma > 2 * s.paper_chroma)
        if np.count_nonzero(strong) >= s.px_per_mm * s.px_per_mm:
            # the body's colour, lit brighter or darker (its sides are shaded), and the pixels
            # where the camera blends it with what lies next to it
            body = np.median(wb[strong].astype(np.float32), axis=0) + 1.0
            coloured = (chroma > s.paper_chroma) | _similar(wb, body).astype(bool)
            paint = (bodies & coloured).astype(np.uint8)
            paints.append(cv2.dilate(paint, np.ones((5, 5), np.uint8)).astype(bool) & bodies)
        x0, y0 = rect.x0 - s.margin_mm, rect.y0 - s.margin_mm
        near = [
            np.array(t.corners_mm, np.float64)
            for t in tops
            if abs(np.mean(t.corners_mm, axis=0)[0] - rect.x_mm) < rect.w_mm + 40
            and abs(np.mean(t.corners_mm, axis=0)[1] - rect.y_mm) < rect.h_mm + 40
        ]
        for k in (1.45, 1.6, 1.75):  # the sticker with its quiet zone is 1.33 sides wide
            mask = np.zeros(crop.shape[:2], np.uint8)
            for corners in near:
                c = corners.mean(axis=0)
                quad = (c + (corners - c) * k - (x0, y0)) * s.px_per_mm
                cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            if mask.any():
                paints.append(mask.astype(bool))
        foreign, held, scales = self._foreign, self._held, self._scales
        try:
            for paint in paints:
                self._foreign, self._held, self._scales = [], [], []
                painted = gray.copy()
                painted[paint] = white
                found = [
                    f
                    for f in self._markers(painted, rect, rect)
                    if f[0].marker_id not in self.marker_heights
                ]
                if found and not self._held:
                    return found
            return []
        finally:
            self._foreign, self._held, self._scales = foreign, held, scales

    def _sticker_behind(
        self, cover: Image, wb: Image, luma: Image, bodies: Image, inner: Image
    ) -> bool:
        """Whether what covers the location is a printed sticker (neutral, black and white) that
        meets a tall piece's silhouette: a marker whose part the tall piece hides, so it does
        not read. A hand, an arm or a coloured sleeve is not neutral; a dark sleeve has no
        white."""
        s = self.settings
        if not bodies.any():
            return False
        near = cv2.dilate(
            bodies.astype(np.uint8), np.ones((round(2 * s.px_per_mm) | 1,) * 2, np.uint8)
        )
        if not np.any(cover & (near > 0)):
            return False
        ycc = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb).astype(np.int16)
        chroma = (np.abs(ycc[..., 1] - 128) + np.abs(ycc[..., 2] - 128))[cover]
        if float(np.mean(chroma <= s.paper_chroma)) < 0.9:
            return False
        white = float(np.percentile(luma[inner], 95))
        level = luma[cover]
        return (
            float(np.mean(level < 0.4 * white)) >= 0.15
            and float(np.mean(level > 0.7 * white)) >= 0.15
        )

    def _shadow_edge(self, cover: Image, wb: Image, luma: Image, inner: Image) -> bool:
        """Whether all that covers the location is the edge of a hard shadow: a narrow band
        along one straight line right across it, with plain paper on both sides at two levels
        of light. (The cover test divides the light out with a Gaussian, which turns a step of
        light into texture along it; a hand, an arm or a coloured or textured sleeve covers
        more than a band, and a sleeve's rounded shading is judged later, with the paper.)"""
        s = self.settings
        p = s.px_per_mm
        ys, xs = np.nonzero(cover)
        if len(xs) < 10:
            return False
        line = _one_line(ys, xs, 2.5 * p)
        if line is None:
            return False  # more than a band along one line
        vx, vy, x0, y0 = line
        iy, ix = np.nonzero(inner)
        across = (ix - x0) * vy - (iy - y0) * vx  # signed distance from the line
        along = (ix - x0) * vx + (iy - y0) * vy
        chord = along[np.abs(across) <= 1.0]
        extent = (xs - x0) * vx + (ys - y0) * vy
        if len(chord) == 0 or float(np.ptp(extent)) < 0.8 * float(np.ptp(chord)):
            return False  # it stops inside the location: an edge of something lying there
        ycc = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb).astype(np.int16)
        chroma = np.abs(ycc[..., 1] - 128) + np.abs(ycc[..., 2] - 128)
        level = luma[iy, ix]
        paper = (chroma[iy, ix] <= s.paper_chroma) & (level >= s.min_brightness * self.mat_white)
        sides = []
        for side in (across > 3.0 * p, across < -3.0 * p):
            light = level[side & paper & (np.abs(across) < 12.0 * p)]
            if len(light) < 4 * p * p:
                return False
            median = float(np.median(light))
            if float(np.percentile(light, 90) - np.percentile(light, 10)) > 0.12 * median:
                return False  # not flat paper on that side
            sides.append(median)
        return min(sides) < 0.85 * max(sides)

    def _to_mat(self, rect: Rect, corners: Any) -> tuple[tuple[float, float], ...]:
        """Crop pixels of `rect`'s crop as mat millimetres."""
        s = self.settings
        x0, y0 = rect.x0 - s.margin_mm, rect.y0 - s.margin_mm
        return tuple(
            (round(x0 + float(x) / s.px_per_mm, 2), round(y0 + float(y) / s.px_per_mm, 2))
            for x, y in corners
        )

    def _silhouettes(self, shape: tuple[int, ...], rect: Rect, tops: Sequence[TallTop]) -> Image:
        """Where tall pieces' bodies (top and sides) are seen in `rect`'s crop."""
        s = self.settings
        mask: Image = np.zeros(shape[:2], np.uint8)
        if self.camera_mm is None:
            return mask.astype(bool)
        x0, y0 = rect.x0 - s.margin_mm, rect.y0 - s.margin_mm
        reach = rect.w_mm + rect.h_mm + 60.0
        for top in tops:
            cx, cy = np.mean(top.corners_mm, axis=0)
            if abs(cx - rect.x_mm) > reach or abs(cy - rect.y_mm) > reach:
                continue
            hull = top.silhouette_mm(self.camera_mm, s.tall_body)
            px = np.round((hull - (x0, y0)) * s.px_per_mm * 16).astype(np.int32)
            cv2.fillConvexPoly(mask, px, 1, cv2.LINE_8, 4)
        if mask.any():
            grow = round(1.5 * s.px_per_mm) | 1  # the camera's blur round its edges
            mask = cv2.dilate(mask, np.ones((grow, grow), np.uint8))
        return mask.astype(bool)

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
            scale = m.side_px / s.px_per_mm / size
            if abs(scale - 1) > s.size_tolerance:
                continue
            kind = (self.marker_sizes[m.marker_id], height)
            # how big it is seen, on its border's outer edge (OpenCV's corners may lie a few
            # pixels inside it, and not always: 12 % apart on one 40 mm card from one frame
            # to the next, which made a card lying on the board look held above it)
            scale = outer_side_px(gray, m, self.board.family) / s.px_per_mm / size
            usual = self.board_scale.get(kind)
            if usual is not None and scale > usual * (1 + s.above_board):
                # bigger than such markers lying on the board are seen: nearer the camera, held
                # above the board (over this location, or partly: parallax moves it)
                self._held.append(m.marker_id)
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
            self._scales.append((kind, scale))
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

    def _white_bodies(
        self, crop: Image, found: list[tuple[MarkerReading, DetectedMarker]]
    ) -> Image:
        """Around each marker read whose piece's body is blown out (a white card, a white
        piece: the ring just outside its sticker saturated in every channel), its sticker."""
        s = self.settings
        mask = np.zeros(crop.shape[:2], np.uint8)
        low = crop.min(axis=2)
        k = self._sticker_scale
        for _, m in found:
            c = m.corners.mean(axis=0)
            sticker = np.zeros(crop.shape[:2], np.uint8)
            cv2.fillConvexPoly(
                sticker, np.round(c + (m.corners - c) * k * 1.04).astype(np.int32), 1
            )
            ring = np.zeros(crop.shape[:2], np.uint8)
            cv2.fillConvexPoly(ring, np.round(c + (m.corners - c) * k * 1.14).astype(np.int32), 1)
            around = low[(ring > 0) & (sticker == 0)]
            if len(around) and float(np.median(around)) >= s.glare_level:
                mask |= sticker
        return mask.astype(bool)

    def _glare(self, crop: Image, area: Image, local_white: float, pieces: Image) -> bool:
        """Whether saturated glare lies over `area`: a patch blown out in every channel, 3 mm
        wide or more, over `glare_fraction` of it, that is not part of a white piece read
        (`pieces`: a white card's body is blown out where the mat is not; a patch reaching the
        sticker of a piece whose body is blown out is that body; glare on a tan tile is not)."""
        s = self.settings
        if local_white >= s.glare_level - 6:
            return False  # the mat around is itself blown out: glare cannot be told from it
        # glare blows every channel out over a patch 3 mm wide or more; the noise of a white
        # card, or JPEG's ringing beside a marker's black, saturates only specks
        core = round(3.0 * s.px_per_mm) | 1
        saturated = cv2.erode(
            (crop.min(axis=2) >= s.glare_level).astype(np.uint8), np.ones((core, core), np.uint8)
        ).astype(bool)
        if pieces.any() and saturated.any():
            _, labels = cv2.connectedComponents(saturated.astype(np.uint8))
            touching = np.unique(labels[pieces & saturated])
            saturated &= ~np.isin(labels, touching[touching > 0])
        share = float(np.count_nonzero(saturated & area)) / max(1, int(np.count_nonzero(area)))
        return share > s.glare_fraction

    def _cover(
        self, wb: Image, luma: Image, found: list[DetectedMarker], bodies: Image | None = None
    ) -> Image:
        """Pixels of the crop that neither plain mat nor a read piece (nor a tall piece's body,
        `bodies`, wherever it stands) explains."""
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
        if bodies is not None:
            explained |= bodies.astype(np.uint8)
        under = np.zeros(wb.shape[:2], np.uint8)  # explained only as a piece beneath one read
        shape = wb.shape[:2]
        colours = _Colours.of(wb) if found else None
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
            own = zone & _similar(wb, body, colours)
            body_mask: Image = np.asarray(cv2.dilate(own, grow), np.uint8)
            explained |= zone & body_mask
            if bodies is not None and bodies.any():
                # a tall piece's sides and foot are its body too: a tile beneath shows round
                # its foot, which parallax puts away from its top
                tall = bodies.astype(np.uint8)
                own, body_mask = own | tall, body_mask | tall
            under |= self._beneath(wb, own, body_mask, paper, colours)
        self._under = (under > 0) & (explained == 0)
        explained |= under
        grown = cv2.dilate(explained, np.ones((5, 5), np.uint8))
        cover = (grown == 0).astype(np.uint8)
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
        return cv2.morphologyEx(cover, cv2.MORPH_OPEN, kernel).astype(bool)

    def _beneath(
        self,
        wb: Image,
        own: Image,
        body_mask: Image,
        paper: Image,
        colours: _Colours | None = None,
    ) -> Image:
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
        out: Image = rim & np.asarray(cv2.dilate(_similar(wb, under, colours), near), np.uint8)
        return out

    def _interior(self, crop: Image, rect: Rect) -> Image:
        s = self.settings
        h, w = crop.shape[:2]
        mx = s.margin_mm * s.px_per_mm + rect.w_mm * s.px_per_mm * (1 - s.interior) / 2
        my = s.margin_mm * s.px_per_mm + rect.h_mm * s.px_per_mm * (1 - s.interior) / 2
        return crop[round(my) : h - round(my), round(mx) : w - round(mx)]

    def _outline_seen(self, luma: Image, rect: Rect, hidden: Image) -> bool:
        """Whether the location's printed outline shows: averaged along each side (clear of its
        corners, its name and what tall pieces hide), a narrow line near where the calibration
        puts the edge (within 2.5 mm), darker than the flat paper just inside it and than what
        lies just beyond it. A side with nothing brighter than the line just beyond it (a
        neighbour's piece, its shadow) cannot tell and is not judged; of the sides judged, all
        and at least one, or at least two, must show it.

        A shadow keeps the line; soft focus and a soft highlight weaken it but the average along
        a side still shows it; a hand or a sleeve over it hides it, and the rounded shading of a
        sleeve is no line (it darkens towards the sleeve's edge, beyond the line)."""
        s = self.settings
        p = s.px_per_mm
        m = s.margin_mm * p
        h, w = luma.shape[:2]
        out, ins = round(m - 4.0 * p), round(m + 6.0 * p)
        label_x, label_y = round(m + s.label_mm[0] * p), round(m + s.label_mm[1] * p)
        # each side as a strip from 4 mm outside the edge to 6 mm inside, read inwards, and
        # the span along it that counts (clear of the corners; the name at the top left)
        sides = [
            (luma[:, out:ins].T, hidden[:, out:ins].T, max(label_y, ins), h - ins),
            (
                luma[:, w - ins : w - out][:, ::-1].T,
                hidden[:, w - ins : w - out][:, ::-1].T,
                ins,
                h - ins,
            ),
            (luma[out:ins, :], hidden[out:ins, :], max(label_x, ins), w - ins),
            (
                luma[h - ins : h - out, :][::-1, :],
                hidden[h - ins : h - out, :][::-1, :],
                ins,
                w - ins,
            ),
        ]
        edge = round(4.0 * p)  # the edge, where the calibration puts it, in the strip
        search = round(2.5 * p)  # the lens and the homography put it within this
        near, far = round(1.2 * p), round(2.5 * p)  # the line's blur; paper beyond
        seen = judged = 0
        for strip, hid, lo, hi in sides:
            cols = np.arange(lo, hi)
            cols = cols[~hid[:, lo:hi].any(axis=0)]
            if len(cols) < 8 * p:
                continue  # hidden by a tall piece: not judged
            prof = strip[:, cols].mean(axis=1)
            # the line: the darkest place within `search` of the edge that is darker than what
            # lies just beyond it (a neighbour's tile 2-3 mm beyond the line is darker still:
            # taken for the line, the side could not tell, and a square with tiles on all four
            # sides stayed unknown for good)
            window = prof[edge - search : edge + search + 1]
            line, outside, at = 0.0, 0.0, -1
            for i in edge - search + np.argsort(window, kind="stable"):
                beyond = float(prof[max(0, i - far) : max(1, i - near + 1)].max())
                if beyond > prof[i]:
                    line, outside, at = float(prof[i]), beyond, int(i)
                    break
            if at < 0:
                continue  # something darker than the line lies beyond: cannot tell
            darkest = at == edge - search + int(np.argmin(window))
            paper = prof[max(at + far, edge + round(3.5 * p)) :]
            inside = float(np.median(paper))
            flat = float(paper.max() - paper.min()) < 0.4 * (inside - line)
            contrast = s.outline_contrast
            shows = line < contrast * inside and line < contrast * outside and flat
            if not darkest and not shows:
                continue  # only a darker neighbour's edge, and no line before it: cannot tell
            judged += 1
            seen += int(shows)
        return seen >= 2 or (seen >= 1 and seen == judged)

    def _paper(self, inner: Image, luma: Image, hidden: Image) -> bool:
        """Whether the interior, where no tall piece hides it, is paper: neutral, at least
        `min_brightness` of the mat's white, no texture once the light is divided out (the light
        as a median over 3 mm, which keeps a hard shadow's edge and a contact shadow as light);
        a few odd specks (noise, JPEG) and a sliver of a neighbour's edge are allowed
        (`max_not_paper`), a piece's body or a finger is not."""
        s = self.settings
        ycc = cv2.cvtColor(inner, cv2.COLOR_BGR2YCrCb).astype(np.int16)
        chroma = np.abs(ycc[..., 1] - 128) + np.abs(ycc[..., 2] - 128)
        k = round(3.0 * s.px_per_mm) | 1
        light = cv2.medianBlur(np.clip(luma, 0, 255).astype(np.uint8), k).astype(np.float32) + 1
        texture = cv2.GaussianBlur(np.abs(luma / light - 1.0), (0, 0), 0.5 * s.px_per_mm)
        paper = (
            (chroma <= s.paper_chroma)
            & (luma >= s.min_brightness * self.mat_white)
            & (texture <= s.paper_texture)
        )
        odd: Image = (~paper & ~hidden).astype(np.uint8)
        speck = round(1.5 * s.px_per_mm) | 1
        odd = cv2.morphologyEx(odd, cv2.MORPH_OPEN, np.ones((speck, speck), np.uint8))
        shown = max(1, int(np.count_nonzero(~hidden)))
        if float(np.count_nonzero(odd)) / shown > s.max_not_paper:
            return False
        return self._lit_like_paper(luma, light, ~hidden)

    def _lit_like_paper(self, luma: Image, light: Image, shown: Image) -> bool:
        """Whether the light across the interior is what falls on flat paper: smooth (a lamp's
        slope, a soft shadow's edge, a soft highlight), or two levels with a hard shadow's edge
        between them; not the rounded shading of a sleeve or the folds of cloth."""
        s = self.settings
        smooth = cv2.GaussianBlur(luma, (0, 0), 2.0 * s.px_per_mm)
        if float(np.std((luma / smooth)[shown])) <= s.max_texture:
            return True
        level = light[shown]
        lo, hi = (float(v) for v in np.percentile(level, [10, 90]))
        between = (level > lo * 1.04) & (level < hi / 1.04)
        if float(np.mean(between)) <= 0.15:
            return True
        # a hard shadow's edge slanting right across: more lies between its two levels, but
        # all of it in one narrow straight band (a sleeve's shading fills a broad one)
        # (the shadow's side, dimmer, is noisier: the band is what lies well between the two)
        if hi < 1.25 * lo or float(np.mean(between)) > 0.35:
            return False
        ys, xs = np.nonzero(shown & (light > lo * 1.1) & (light < hi / 1.1))
        return _one_line(ys, xs, 2.5 * s.px_per_mm) is not None


def _one_line(ys: Any, xs: Any, width_px: float) -> tuple[float, float, float, float] | None:
    """The straight line (direction, a point) that 97 % of these pixels lie within `width_px`
    of, if there is one."""
    if len(xs) < 10:
        return None
    pts = np.column_stack([xs, ys]).astype(np.float32)
    vx, vy, x0, y0 = (float(v) for v in cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel())
    if float(np.mean(np.abs((xs - x0) * vy - (ys - y0) * vx) <= width_px)) < 0.97:
        return None
    return vx, vy, x0, y0


def _texture(luma: Image, sigma: float) -> Image:
    """Local texture: the mean relative deviation from the smooth light, over about `sigma`."""
    smooth = cv2.GaussianBlur(luma, (0, 0), sigma)
    dev = np.abs(luma / smooth - 1.0)
    out: Image = cv2.GaussianBlur(dev, (0, 0), sigma / 2)
    return out


@dataclass(frozen=True)
class _Colours:
    """A crop's brightness (the sum of its channels, each plus one) and chromaticity (each
    channel's share of it), worked out once for the comparison with every piece's body."""

    total: Image
    chroma: tuple[Image, Image, Image]

    @staticmethod
    def of(wb: Image) -> _Colours:
        px = wb.astype(np.float32) + 1.0
        b, g, r = px[..., 0], px[..., 1], px[..., 2]
        total = b + g + r  # as px.sum(axis=2) adds them, a plane at a time (numpy's reductions
        # over a 3-wide last axis cost ten times as much)
        return _Colours(total, (b / total, g / total, r / total))


def _similar(wb: Image, body: Any, colours: _Colours | None = None) -> Image:
    """Pixels of the body's colour, lit brighter or darker (a shadow across a piece)."""
    c = colours if colours is not None else _Colours.of(wb)
    ratio = c.total / float(body.sum())
    chroma_body = body / float(body.sum())
    far = np.abs(c.chroma[0] - chroma_body[0])
    np.maximum(far, np.abs(c.chroma[1] - chroma_body[1]), out=far)
    np.maximum(far, np.abs(c.chroma[2] - chroma_body[2]), out=far)
    out: Image = ((far <= 0.06) & (ratio >= 0.4) & (ratio <= 1.6)).astype(np.uint8)
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
