"""The vision pipeline: a frame in; calibration, stability and, on a change, a settled view out.

Per frame the calibrator glances at the corner markers, the mat's part of the frame becomes one
small grey board, and motion is measured per location. Markers are decoded only when the view
settles, and only for the locations whose look changed since the last settled view (all of them
on start, recalibration or request).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial

import cv2
import numpy as np

from vision.calibration import CalibrationEvent, Calibrator
from vision.change import ChangeThresholds, band_gains, compare, divide_gains, motion_counts
from vision.decode import LocationDecoder, Seen, TallTop
from vision.decode_settings import DecodeSettings
from vision.geometry import BoardGeometry, Sticker
from vision.lens import Lens
from vision.markers import Image
from vision.readings import (
    COVERED,
    HAND_BESIDE,
    HELD,
    UNCLEAR,
    CalibrationState,
    FrameReport,
    LocationReading,
    LocationState,
    SettledView,
    Stability,
)
from vision.stabiliser import Stabiliser
from vision.warp import BoardWarper


@dataclass(frozen=True)
class PipelineSettings:
    """Knobs: still frames to settle, motion threshold (grey levels, cells), sub-settings."""

    still_frames: int = 3
    motion_threshold: int = 16
    motion_cells: int = 2
    cell_mm: float = 2.0
    flicker_bands: float = 0.03
    neighbour_mm: float = 8.0
    change: ChangeThresholds = field(default_factory=ChangeThresholds)
    decode: DecodeSettings = field(default_factory=DecodeSettings)


class VisionPipeline:
    """Stateful, single-threaded; feed it frames in order with `process`."""

    def __init__(
        self,
        board: BoardGeometry,
        stickers: Iterable[Sticker],
        settings: PipelineSettings = PipelineSettings(),
        lens: Lens | None = None,
    ) -> None:
        self.board = board
        pieces = [s for s in stickers if s.marker_id not in board.corner_ids]
        self.marker_sizes = {s.marker_id: s.size_mm for s in pieces}
        self.marker_heights = {s.marker_id: s.height_mm for s in pieces if s.height_mm > 0}
        if settings.change.structure_cells == 0 and self.marker_sizes:
            # a change as big as half the smallest marker is a change, however long the slot
            side = min(self.marker_sizes.values()) / settings.cell_mm
            cells = max(1, int(0.5 * side * side))
            settings = replace(settings, change=replace(settings.change, structure_cells=cells))
        self.settings = settings
        self.calibrator = Calibrator(board, lens=lens)
        self.stabiliser = Stabiliser(settings.still_frames)
        self.warper: BoardWarper | None = None
        self.decoder: LocationDecoder | None = None
        self._camera_mm: tuple[float, float, float] | None = None
        self.last_view: SettledView | None = None
        self.moving: frozenset[str] = frozenset()
        self._frame_index = -1
        self._prev: Image | None = None
        self._ref: Image | None = None
        self._known: dict[str, LocationReading] = {}
        self._occluded: dict[str, LocationReading] = {}
        self._ref_occluded: set[str] = set()
        self._full_pending = True
        self._neighbours = neighbours(board, settings.neighbour_mm)
        self._tall: dict[str, tuple[TallTop, ...]] = {}  # tall pieces' tops, by location
        # how big markers lying on the board are seen, per (printed size, height): the last
        # ones read on locations that settled with them
        self._scales: dict[tuple[float, float], deque[float]] = {}

    def annotated_jpeg(self, frame: Image, quality: int = 80) -> bytes:
        """The camera view for the web page: `frame` annotated with the last settled view."""
        from vision.annotate import annotate, to_jpeg

        image = annotate(
            frame,
            self.board,
            self.calibrator.calibration,
            self.calibrator.state,
            self.last_view,
            self.moving,
        )
        return to_jpeg(image, quality)

    def request_full_decode(self) -> None:
        """Decode every location at the next settled view."""
        self._full_pending = True
        self.stabiliser.unsettle()

    def process(self, frame: Image, frame_index: int | None = None) -> FrameReport:
        """Take one frame (BGR); say how calibration and stability stand, and what settled.

        Only 8-bit BGR colour frames are taken: telling a hand from the plain mat needs colour, so
        a grey (or any other) frame raises ValueError at once rather than at the first settle.
        """
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(
                "VisionPipeline needs an 8-bit BGR colour frame (height, width, 3), got shape "
                f"{tuple(frame.shape)} of {frame.dtype}: hands are told from the mat by colour"
            )
        self._frame_index = self._frame_index + 1 if frame_index is None else frame_index
        height, width = frame.shape[:2]
        too_small = pixels_advice(self.board, self.marker_sizes, width, height, None)
        event = CalibrationEvent.NONE
        if too_small is None:
            event = self.calibrator.update(frame)
            cal = self.calibrator.calibration
            if self.calibrator.state == CalibrationState.CALIBRATED and cal is not None:
                seen = cal.px_per_mm(self.board)
                too_small = pixels_advice(self.board, self.marker_sizes, width, height, seen)
        state = self.calibrator.state
        if too_small is not None:
            state = CalibrationState.TOO_FEW_PIXELS
            self.calibrator.reason = too_small  # the camera's health shows the reason
        if state != CalibrationState.CALIBRATED:
            self._prev = None
            self.stabiliser.unsettle()
            self.moving = frozenset()
            return FrameReport(
                self._frame_index,
                state,
                Stability.UNSETTLED,
                frozenset(),
                0,
                reason=self.calibrator.reason,
            )
        if event == CalibrationEvent.NEW or self.warper is None:
            self._start_calibration((frame.shape[1], frame.shape[0]))
        assert self.warper is not None
        small = self.warper.small_board(frame)
        motion, self.moving = self._motion(small)
        if not self.calibrator.steady:
            # fewer than three corners where the homography says: the camera may have been
            # bumped, and this frame read through the old homography shows a shifted table
            motion = True
        self._prev = small
        settled, decoded = None, 0
        if self.stabiliser.step(motion):
            settled, decoded = self._settle(frame, small)
        return FrameReport(
            self._frame_index, state, self.stabiliser.state, self.moving, decoded, settled
        )

    # --- internals ------------------------------------------------------------------------
    def _start_calibration(self, frame_size: tuple[int, int]) -> None:
        cal = self.calibrator.calibration
        assert cal is not None
        self._scales.clear()  # a new view: markers are seen at a new scale
        self._camera_mm = cal.camera_mm(frame_size) if self.marker_heights else None
        self.warper = BoardWarper(self.board, cal, frame_size, self.settings.cell_mm)
        self._prev = None
        self._ref = None
        self._full_pending = True
        self.stabiliser.unsettle()

    def _motion(self, small: Image) -> tuple[bool, frozenset[str]]:
        """Whether anything over the mat moved since the last frame, and which locations."""
        if self._prev is None or self.warper is None:
            return True, frozenset()
        threshold, cells = self.settings.motion_threshold, self.settings.motion_cells
        # a hand over the margins between locations moves too
        differs = cv2.absdiff(self._prev, small) > threshold
        anywhere = np.count_nonzero(differs) >= cells
        if anywhere and self.warper.bands.banded(differs):
            # lamp flicker rolls bands of brightness across the camera's rows: divide them out
            # and look again (only when whole bands differ: a still table or a hand moving
            # costs nothing more)
            small = self._unbanded(self._prev, small)
            anywhere = np.count_nonzero(cv2.absdiff(self._prev, small) > threshold) >= cells
        counts = motion_counts(self._prev, small, self.warper.boxes, threshold)
        moving = frozenset(
            n for n, c in zip(self.warper.boxes.names, counts, strict=True) if c >= cells
        )
        return bool(moving) or bool(anywhere), moving

    def _unbanded(self, ref: Image, cur: Image) -> Image:
        """`cur` with rolling bands of lamp flicker relative to `ref` divided out; `cur` itself
        when the bands' gains stray from a smooth curve by less than `flicker_bands` (log, peak to
        peak), as with a steady lamp."""
        assert self.warper is not None
        bands = self.warper.bands
        gains = band_gains(ref, cur, bands)
        # a lamp dimmed or moved changes the light smoothly across the rows: not flicker (the
        # settled comparison divides that out). Bands are what a smooth curve leaves over.
        rows = np.linspace(-1.0, 1.0, len(gains))
        smooth = np.polyval(np.polyfit(rows, gains, 2), rows)
        if float(np.ptp(gains - smooth)) < self.settings.flicker_bands:
            return cur
        return divide_gains(cur, bands, gains)

    def _settle(self, frame: Image, small: Image) -> tuple[SettledView | None, int]:
        """Compare with the last settled board, decode what changed, form a view if it matters.

        An occluded location keeps its reference (how it looked when last read) unless the
        reference itself was taken with the occluder on it (a full decode under a hand); while it
        still looks like its reference it stays as it was.
        """
        assert self.warper is not None
        full = self._full_pending or self._ref is None
        self.decoder = self._new_decoder(frame, small)
        if full:
            to_decode = set(self.warper.boxes.names)
            self._ref = small.copy()
            self._ref_occluded.clear()
            self._tall.clear()
        else:
            to_decode, small = self._changed_since_settled(small)
        occluded_before = set(self._occluded)
        decoded = self._read_and_judge(frame, small, to_decode)
        covered = self._newly_covered(decoded, occluded_before)
        changed = self._take_readings(decoded, small, covered, full)
        self._full_pending = False
        if not full and not changed and set(self._occluded) == occluded_before:
            return None, len(to_decode)
        return self._settled_view(changed, full), len(to_decode)

    def _new_decoder(self, frame: Image, small: Image) -> LocationDecoder:
        """A decoder for this frame: the mat's white and colour now, and how big markers lying
        on the board have been seen."""
        assert self.warper is not None
        return LocationDecoder(
            self.board,
            self.warper,
            self.marker_sizes,
            percentile_u8(small, 90),
            self.settings.decode,
            mat_bgr=self.warper.mat_colour(frame),
            marker_heights=self.marker_heights,
            camera_mm=self._camera_mm,
            board_scale={
                kind: float(np.median(seen))
                for kind, seen in self._scales.items()
                if len(seen) >= 3
            },
        )

    def _changed_since_settled(self, small: Image) -> tuple[set[str], Image]:
        """The locations whose look changed since the last settled board, and the small board
        to compare and refresh the reference with (this one, or with its flicker bands evened
        out to the reference's)."""
        assert self.warper is not None and self._ref is not None
        boxes = self.warper.boxes
        # the reference keeps the flicker bands of the view it was first taken in: bring
        # this view's bands to those before comparing (and before refreshing it from this)
        # (kept only when it explains more: a lamp dimmed with parts of the mat saturated
        # can look banded, and the comparison divides out a smooth change of light itself)
        to_decode = set(compare(self._ref, small, boxes, self.settings.change).changed)
        differs = cv2.absdiff(self._ref, small) > self.settings.motion_threshold
        banded = bool(to_decode) and self.warper.bands.banded(differs)
        unbanded = self._unbanded(self._ref, small) if banded else small
        if unbanded is not small:
            fewer = set(compare(self._ref, unbanded, boxes, self.settings.change).changed)
            if len(fewer) < len(to_decode):
                return fewer, unbanded
        return to_decode, small

    def _read_and_judge(
        self, frame: Image, small: Image, to_decode: set[str]
    ) -> dict[int, LocationReading]:
        """Read the locations `to_decode` (the others, unless occluded when the reference was
        taken, look as when last read), then judge each with every tall piece in view."""
        assert self.warper is not None and self.decoder is not None
        names = self.warper.boxes.names
        seen: dict[int, Seen] = {}
        for i, name in enumerate(names):
            if name not in to_decode:
                if name not in self._ref_occluded:
                    self._occluded.pop(name, None)  # looks as when it was last read
                    self._copy_ref(small, i)
                continue
            seen[i] = self.decoder.read(frame, self.board.location(name))
            self._tall[name] = seen[i].tops
        # each location is judged with every tall piece on the board in view: a minecart's top
        # and sides lean over its neighbours, and are the minecart, not a hand
        tall = [top for tops in self._tall.values() for top in tops]
        decoded = {
            i: self.decoder.judge(look, partial(self._local_white, small, i), tall)
            for i, look in seen.items()
        }
        for i, reading in decoded.items():
            if reading.state == LocationState.OCCUPIED:
                for kind, scale in seen[i].scales:
                    self._scales.setdefault(kind, deque(maxlen=64)).append(scale)
        return decoded

    def _newly_covered(
        self, decoded: Mapping[int, LocationReading], occluded_before: set[str]
    ) -> set[str]:
        """The locations a hand may have just come over (covered now, not at the last settle).

        A hand covering a location's neighbours may be holding a piece just above it: a piece
        hovering there reads as placed, then goes. Until no neighbour is covered, a change
        there is held back (the location is unknown, reason "hand beside it"). (A cover
        already there at the last settle is no hand that just came: a neighbour's piece
        overhanging the square, a lamp's shadow; it holds nothing back.)"""
        assert self.warper is not None
        names = self.warper.boxes.names
        return {
            names[i]
            for i, r in decoded.items()
            if r.state == LocationState.OCCLUDED
            and r.reason in (COVERED, UNCLEAR, HELD)
            and names[i] not in occluded_before
        }

    def _take_readings(
        self,
        decoded: Mapping[int, LocationReading],
        small: Image,
        covered: set[str],
        full: bool,
    ) -> set[str]:
        """Take the readings in: occluded ones kept apart, the others known (their reference
        refreshed); the names whose content changed."""
        assert self.warper is not None
        changed: set[str] = set()
        for i, reading in decoded.items():
            name = self.warper.boxes.names[i]
            old = self._known.get(name)
            new = reading.state != LocationState.OCCLUDED and (
                old is None or not old.same_content(reading)
            )
            if new and not full and self._neighbours[name] & covered:
                reading = replace(reading, state=LocationState.OCCLUDED, reason=HAND_BESIDE)
            if reading.state == LocationState.OCCLUDED:
                self._occluded[name] = reading
                if full:
                    self._ref_occluded.add(name)
                continue
            self._occluded.pop(name, None)
            self._ref_occluded.discard(name)
            self._copy_ref(small, i)
            if new:
                changed.add(name)
            self._known[name] = reading
        return changed

    def _settled_view(self, changed: set[str], full: bool) -> SettledView:
        """The settled view now (what is known, what is occluded), kept as the last one."""
        assert self.warper is not None
        names = self.warper.boxes.names
        readings = tuple(
            self._occluded.get(n) or self._known[n]
            for n in names
            if n in self._occluded or n in self._known
        )
        view = SettledView(
            self._frame_index, readings, frozenset(changed), frozenset(self._occluded), full
        )
        self.last_view = view
        return view

    def _local_white(self, small: Image, i: int, reach: int = 45) -> float:
        """How bright the mat is around location `i` now (grey levels, from the small board
        within `reach` cells): glare is told from a bright lamp by it."""
        assert self.warper is not None
        b = self.warper.boxes
        window = small[
            max(0, b.y0[i] - reach) : b.y1[i] + reach, max(0, b.x0[i] - reach) : b.x1[i] + reach
        ]
        return percentile_u8(window, 75)

    def _copy_ref(self, small: Image, i: int) -> None:
        assert self._ref is not None and self.warper is not None
        b = self.warper.boxes
        self._ref[b.y0[i] : b.y1[i], b.x0[i] : b.x1[i]] = small[
            b.y0[i] : b.y1[i], b.x0[i] : b.x1[i]
        ]


def percentile_u8(values: Image, q: float) -> float:
    """`np.percentile(values, q)` (linear interpolation) of 8-bit values, from their histogram:
    no sort."""
    counts = np.bincount(values.ravel(), minlength=256)
    n = int(counts.sum())
    rank = q / 100 * (n - 1)
    below = int(rank)
    cum = np.cumsum(counts)
    lo = int(np.searchsorted(cum, below + 1))
    hi = int(np.searchsorted(cum, min(n - 1, below + 1) + 1))
    return float(lo + (rank - below) * (hi - lo))


def neighbours(board: BoardGeometry, gap_mm: float) -> dict[str, frozenset[str]]:
    """Per location, the others whose rectangles come within `gap_mm` of it (sides and
    diagonals on a grid of squares)."""
    locs = board.locations
    return {
        a.name: frozenset(
            b.name
            for b in locs
            if b.name != a.name
            and b.x0 < a.x1 + gap_mm
            and a.x0 < b.x1 + gap_mm
            and b.y0 < a.y1 + gap_mm
            and a.y0 < b.y1 + gap_mm
        )
        for a in locs
    }


CELL_PX = 3.0  # pixels per marker cell below which 4x4 markers stop reading reliably
STANDARD_SIZES = ((1280, 720), (1920, 1080), (2592, 1944), (3840, 2160))
LENS_HFOV_DEG = 66.0  # a common webcam or Pi camera module lens, across the frame


def needed_px_per_mm(
    board: BoardGeometry, marker_sizes: Mapping[int, float]
) -> tuple[float, float]:
    """The smallest marker's side (mm) and the image scale it needs (pixels per millimetre)."""
    smallest = min(marker_sizes.values(), default=min(c.size_mm for c in board.corners))
    return smallest, CELL_PX * (board.family.bits + 2) / smallest


def distance_range_mm(
    board: BoardGeometry, need: float, width: int, height: int
) -> tuple[float, float]:
    """Camera heights (mm) at which a `width` x `height` camera with a LENS_HFOV_DEG lens sees
    the whole mat (5 % spare) at `need` px/mm or more: (nearest, farthest); empty if near > far."""
    import math

    span = 2 * math.tan(math.radians(LENS_HFOV_DEG) / 2)  # width seen per unit of height
    near = max(board.width_mm, board.height_mm * width / height) * 1.05 / span
    far = width / (span * need)
    return near, far


def pixels_advice(
    board: BoardGeometry,
    marker_sizes: Mapping[int, float],
    width: int,
    height: int,
    seen_px_per_mm: float | None,
) -> str | None:
    """None when a `width` x `height` frame seeing the mat at `seen_px_per_mm` (None: not yet
    calibrated, judge the frame size alone) can read the game's smallest markers; else why not,
    in words, naming a resolution and a camera height that would work."""
    smallest, need = needed_px_per_mm(board, marker_sizes)
    best = min(width / board.width_mm, height / board.height_mm)  # the mat filling the frame
    if seen_px_per_mm is None and best >= need:
        return None
    if seen_px_per_mm is not None and seen_px_per_mm >= need:
        return None
    works = ""
    for w, h in ((width, height), *STANDARD_SIZES):
        near, far = distance_range_mm(board, need, w, h)
        if near <= far and w * h >= width * height:
            works = (
                f"{w}x{h} with the camera {near / 10:.0f}-{far / 10:.0f} cm above the mat "
                f"(a {LENS_HFOV_DEG:.0f}-degree lens)"
            )
            break
    markers = f"the game's {smallest:g} mm markers need {need:.2f} px/mm"
    if seen_px_per_mm is None:
        return (
            f"too few pixels: at {width}x{height} the mat is seen at {best:.2f} px/mm at most "
            f"(filling the frame); {markers}: use {works or 'a higher resolution'}"
        )
    return (
        f"too few pixels: the mat is seen at {seen_px_per_mm:.2f} px/mm at {width}x{height}; "
        f"{markers}: bring the camera closer (by {100 * (1 - seen_px_per_mm / need):.0f} %) "
        f"or use {works or 'a higher resolution'}"
    )
