"""Reading one location: the markers on it with rotation and confidence, or that something that is
not a marker (a hand) covers it, or that it is plain mat."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from vision.colour import balance, chroma, chroma_of, similar, white_balance_gains
from vision.cover import CoverTest, darkest
from vision.decode_settings import DecodeSettings
from vision.geometry import BoardGeometry, Rect
from vision.markers import (
    DetectedMarker,
    Image,
    bit_confidence,
    detect,
    make_detector,
    outer_side_px,
)
from vision.plain_mat import PlainMat
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
    """One location as read: its crop at the judging scale (`look`), at the reading scale if
    something dark lay on it (`crop`, else None: `frame` gives it when asked), the markers
    standing on it (with their detections, in `crop`'s pixels), a neighbour's tall top seen
    over it, ids seen floating above the board, its own tall tops, and how big each marker read
    was seen against its printed size."""

    rect: Rect
    look: Image
    crop: Image | None
    frame: Image
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
    hide a second marker); else its markers are what it holds, whatever leans over its edge
    (`CoverTest`). Without markers it is EMPTY only if its paper and its printed outline are
    seen (`PlainMat`); otherwise OCCLUDED, with the reason. A marker seen bigger than those
    lying on the board (`board_scale`, by `above_board`) is held above it: OCCLUDED, HELD.

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
        self.mat_white = mat_white
        self.settings = settings
        self.gains = white_balance_gains(mat_bgr)
        # markers are looked for with narrow threshold windows first, then, if none is read,
        # with all of OpenCV's (a blurred border wants a wider window)
        self._detectors: tuple[Any, ...] = (
            make_detector(board.family, 13, self._smallest_perimeter(marker_sizes)),
            make_detector(board.family),
        )
        cells = board.family.bits + 2
        self._sticker_scale = (cells + 2) / cells  # the sticker's white quiet zone
        self._judging = replace(settings, px_per_mm=settings.judge_px_per_mm)
        self._plain = PlainMat(self._judging, mat_white)
        self._covers = CoverTest(self._judging, mat_white, self._sticker_scale)
        self._area_masks: dict[tuple[tuple[int, ...], float | None], Image] = {}

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
        # what is not a marker is judged at the judging scale, warped to it from the frame
        # (a quarter of the pixels); the reading scale only where something dark lies
        look = self.warper.crop(frame, rect, self._judging.px_per_mm, s.margin_mm)
        self._foreign = []
        self._held = []
        self._scales = []
        found: list[tuple[MarkerReading, DetectedMarker]] = []
        crop = None
        if self._dark(look):
            # something dark lies here (a marker's black border, or anything else): look
            crop = self.warper.crop(frame, rect, s.px_per_mm, s.margin_mm)
            gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
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
            look,
            crop,
            frame,
            tuple(found),
            tuple(self._foreign),
            tuple(self._held),
            tops,
            tuple(self._scales),
        )

    def judge(
        self,
        seen: Seen,
        local_white: float | Callable[[], float] | None = None,
        tall: Sequence[TallTop] = (),
    ) -> LocationReading:
        """What `seen`'s location holds: its markers (whatever leans over its edge), plain mat
        (its outline and paper seen where no tall piece stands in the way), or unknown, and why.

        `tall`: the tall pieces on the board (their tops as seen); with the camera's place they
        give each one's whole body on the picture, which explains what it hides. `local_white`:
        how bright the mat around is (the glare test), or a function giving it when asked."""
        s = self._judging
        rect = seen.rect
        if seen.held:
            # a piece nearer the camera than the board: held above it, not (yet) put down
            markers = tuple(sorted(m for m, _ in seen.found))
            return LocationReading(rect.name, LocationState.OCCLUDED, markers, HELD)
        crop, found, foreign, bodies = self._to_judge(seen, (*tall, *seen.tops))
        markers = tuple(sorted(m for m, _ in found))
        area = self._area_mask(crop.shape[:2], rect)
        covers = self._covers
        low = darkest(crop)
        # glare blows out every channel: with no pixel at `glare_level`, none (and no work)
        if (
            local_white is not None
            and int(low.max()) >= s.glare_level
            and covers.glare(
                crop,
                area & ~covers.pieces(crop, found) & ~bodies,
                local_white,
                lambda: covers.white_bodies(crop, found, low),
                low,
            )
        ):
            return LocationReading(rect.name, LocationState.OCCLUDED, (), GLARE)
        wb = balance(crop, self.gains)
        ycc = cv2.cvtColor(wb, cv2.COLOR_BGR2YCrCb)
        luma = ycc[..., 0].astype(np.float32) + 1.0
        colour = chroma_of(ycc)
        inner = self._area_mask(crop.shape[:2], rect, s.cover_edge_mm)
        seen_cover = covers.cover(wb, luma, [d for _, d in found] + foreign, bodies, colour)
        cover = seen_cover.pixels & inner
        covered = float(np.count_nonzero(cover)) / max(1, int(np.count_nonzero(inner)))
        if covered > s.max_cover and self._plain.shadow_edge(cover, wb, luma, inner, colour):
            covered = 0.0  # a hard shadow's edge across paper: light, not a cover
        if covered > s.max_cover:
            if not markers and covers.sticker_behind(cover, wb, luma, bodies, inner, colour):
                # a sticker a neighbour's tall piece hides part of: unknown, but no hand
                return LocationReading(rect.name, LocationState.OCCLUDED, (), BEHIND)
            return LocationReading(rect.name, LocationState.OCCLUDED, markers, COVERED)
        if markers:
            # tall pieces standing on a piece whose rim shows round them: more lies here
            under = float(np.count_nonzero(seen_cover.beneath & area)) / max(
                1, int(np.count_nonzero(area))
            )
            tall_only = all(m.marker_id in self.marker_heights for m in markers)
            on_top = ON_TOP if tall_only and under > s.max_cover else ""
            return LocationReading(rect.name, LocationState.OCCUPIED, markers, on_top)
        hidden = self._interior(bodies, rect)
        if np.count_nonzero(~hidden) < s.min_seen * hidden.size:
            return LocationReading(rect.name, LocationState.OCCLUDED, (), BEHIND)
        interior = self._interior(wb, rect)
        if self._plain.paper(
            interior, self._interior(luma, rect), hidden, self._interior(colour, rect)
        ) and (self._plain.outline_seen(luma, rect, bodies)):
            return LocationReading(rect.name, LocationState.EMPTY)
        return LocationReading(rect.name, LocationState.OCCLUDED, (), UNCLEAR)

    def _to_judge(
        self, seen: Seen, tops: Sequence[TallTop]
    ) -> tuple[Image, list[tuple[MarkerReading, DetectedMarker]], list[DetectedMarker], Image]:
        """`seen`'s crop at the judging scale, its markers (those a neighbour's tall piece hid
        read again, at the reading scale) and the tall tops seen over it in that crop's pixels,
        and where tall pieces' bodies fall on it."""
        found = list(seen.found)
        s = self.settings
        bodies = self._silhouettes(seen.look.shape[:2], seen.rect, tops, self._judging)
        if not found and bodies.any():
            # a neighbour's tall piece may lean over this piece's sticker and hide its white
            # quiet zone: its coloured body then merges with the marker's black border and
            # OpenCV finds no square; read again with that body painted white
            crop = seen.crop
            if crop is None:
                crop = self.warper.crop(seen.frame, seen.rect, s.px_per_mm, s.margin_mm)
            sharp = self._silhouettes(crop.shape[:2], seen.rect, tops, s)
            found = self._behind_tall(crop, seen.rect, sharp, tops)
        foreign = list(seen.foreign)
        # both crops sample their pixel i at i / px_per_mm from the same corner
        k = self._judging.px_per_mm / s.px_per_mm
        if k != 1.0:

            def scaled(m: DetectedMarker) -> DetectedMarker:
                return DetectedMarker(m.marker_id, (m.corners * k).astype(np.float32))

            found = [(r, scaled(m)) for r, m in found]
            foreign = [scaled(m) for m in foreign]
        return seen.look, found, foreign, bodies

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
        colour = chroma(wb)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        white = round(float(np.percentile(gray, 95)))
        paints = []
        strong = bodies & (colour > 2 * s.paper_chroma)
        if np.count_nonzero(strong) >= s.px_per_mm * s.px_per_mm:
            # the body's colour, lit brighter or darker (its sides are shaded), and the pixels
            # where the camera blends it with what lies next to it
            body = np.median(wb[strong].astype(np.float32), axis=0) + 1.0
            coloured = (colour > s.paper_chroma) | similar(wb, body).astype(bool)
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

    def _smallest_perimeter(self, marker_sizes: Mapping[int, float]) -> float:
        """The shortest outline the first detector takes for a marker, as a share of a crop's
        longer side: half the perimeter of the smallest marker seen its smallest (its size
        tolerance) in the largest location's crop, at most 0.3 of it."""
        s = self.settings
        longest = max(
            (max(r.w_mm, r.h_mm) + 2 * s.margin_mm for r in self.board.locations), default=1.0
        )
        smallest = min(marker_sizes.values(), default=0.0) * (1 - s.size_tolerance)
        return max(0.03, min(0.3, 0.5 * 4 * smallest / longest))

    def _dark(self, image: Image, rect: Rect | None = None) -> bool:
        """Whether something dark lies on `rect`'s crop of the frame `image` at the judging scale
        (without `rect`: on `image`, that crop): no pixel darker than `marker_dark` of its
        brightest means no marker's black border, and no marker to look for."""
        look = image
        if rect is not None:
            look = self.warper.crop(image, rect, self._judging.px_per_mm, self.settings.margin_mm)
        darkest_px, brightest_px = cv2.minMaxLoc(cv2.cvtColor(look, cv2.COLOR_BGR2GRAY))[:2]
        return bool(darkest_px <= self.settings.marker_dark * brightest_px)

    def _to_mat(self, rect: Rect, corners: Any) -> tuple[tuple[float, float], ...]:
        """Crop pixels of `rect`'s crop as mat millimetres."""
        s = self.settings
        x0, y0 = rect.x0 - s.margin_mm, rect.y0 - s.margin_mm
        return tuple(
            (round(x0 + float(x) / s.px_per_mm, 2), round(y0 + float(y) / s.px_per_mm, 2))
            for x, y in corners
        )

    def _silhouettes(
        self, shape: tuple[int, ...], rect: Rect, tops: Sequence[TallTop], s: DecodeSettings
    ) -> Image:
        """Where tall pieces' bodies (top and sides) are seen in `rect`'s crop at `s`'s scale."""
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
        if not self._dark(frame, seen_at):
            return []  # no marker's black border where a tall top would be seen
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
        `crop_rect` (the same, or where a tall piece's top is seen): looked for by each of
        `_detectors` in turn until one reads one (or one held above the board)."""
        foreign, scales = len(self._foreign), len(self._scales)
        markers: list[tuple[MarkerReading, DetectedMarker]] = []
        for detector in self._detectors:
            del self._foreign[foreign:], self._scales[scales:]  # those of a pass that read none
            markers = self._markers_by(detector, gray, crop_rect, rect, tall_only)
            if markers or self._held:
                break
        return markers

    def _markers_by(
        self, detector: Any, gray: Image, crop_rect: Rect, rect: Rect, tall_only: bool
    ) -> list[tuple[MarkerReading, DetectedMarker]]:
        """`_markers` as `detector` reads them."""
        s = self.settings
        markers = []
        for m in detect(detector, gray):
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
        it) and name, at the judging scale (made once per crop shape; read-only)."""
        key = (shape[:2], edge_mm)
        mask = self._area_masks.get(key)
        if mask is None:
            mask = self._area_masks[key] = self._new_area_mask(shape, edge_mm)
            mask.setflags(write=False)
        return mask

    def _new_area_mask(self, shape: tuple[int, ...], edge_mm: float | None) -> Image:
        s = self._judging
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

    def _interior(self, crop: Image, rect: Rect) -> Image:
        s = self._judging
        h, w = crop.shape[:2]
        mx = s.margin_mm * s.px_per_mm + rect.w_mm * s.px_per_mm * (1 - s.interior) / 2
        my = s.margin_mm * s.px_per_mm + rect.h_mm * s.px_per_mm * (1 - s.interior) / 2
        return crop[round(my) : h - round(my), round(mx) : w - round(mx)]
