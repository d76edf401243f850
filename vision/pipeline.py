"""The vision pipeline: a frame in; calibration, stability and, on a change, a settled view out.

Per frame the calibrator glances at the corner markers, the mat's part of the frame becomes one
small grey board, and motion is measured per location. Markers are decoded only when the view
settles, and only for the locations whose look changed since the last settled view (all of them
on start, recalibration or request).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.calibration import CalibrationEvent, Calibrator
from vision.change import ChangeThresholds, compare, motion_counts
from vision.decode import DecodeSettings, LocationDecoder
from vision.geometry import BoardGeometry, Sticker
from vision.lens import Lens
from vision.markers import Image
from vision.readings import (
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
        event = self.calibrator.update(frame)
        state = self.calibrator.state
        if state != CalibrationState.CALIBRATED:
            self._prev = None
            self.stabiliser.unsettle()
            self.moving = frozenset()
            return FrameReport(self._frame_index, state, Stability.UNSETTLED, frozenset(), 0)
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
        counts = motion_counts(self._prev, small, self.warper.boxes, threshold)
        moving = frozenset(
            n for n, c in zip(self.warper.boxes.names, counts, strict=True) if c >= cells
        )
        # a hand over the margins between locations moves too
        anywhere = np.count_nonzero(cv2.absdiff(self._prev, small) > threshold) >= cells
        return bool(moving) or bool(anywhere), moving

    def _settle(self, frame: Image, small: Image) -> tuple[SettledView | None, int]:
        """Compare with the last settled board, decode what changed, form a view if it matters.

        An occluded location keeps its reference (how it looked when last read) unless the
        reference itself was taken with the occluder on it (a full decode under a hand); while it
        still looks like its reference it stays as it was.
        """
        assert self.warper is not None
        boxes = self.warper.boxes
        full = self._full_pending or self._ref is None
        mat_white = float(np.percentile(small, 90))
        self.decoder = LocationDecoder(
            self.board,
            self.warper,
            self.marker_sizes,
            mat_white,
            self.settings.decode,
            mat_bgr=self.warper.mat_colour(frame),
            marker_heights=self.marker_heights,
            camera_mm=self._camera_mm,
        )
        if full:
            to_decode = set(boxes.names)
            self._ref = small.copy()
            self._ref_occluded.clear()
        else:
            assert self._ref is not None
            to_decode = set(compare(self._ref, small, boxes, self.settings.change).changed)
        changed: set[str] = set()
        occluded_before = set(self._occluded)
        for i, name in enumerate(boxes.names):
            if name not in to_decode:
                if name not in self._ref_occluded:
                    self._occluded.pop(name, None)  # looks as when it was last read
                    self._copy_ref(small, i)
                continue
            white = self._local_white(small, i)
            reading = self.decoder.decode(frame, self.board.location(name), white)
            if reading.state == LocationState.OCCLUDED:
                self._occluded[name] = reading
                if full:
                    self._ref_occluded.add(name)
                continue
            self._occluded.pop(name, None)
            self._ref_occluded.discard(name)
            self._copy_ref(small, i)
            old = self._known.get(name)
            if old is None or not old.same_content(reading):
                changed.add(name)
            self._known[name] = reading
        self._full_pending = False
        if not full and not changed and set(self._occluded) == occluded_before:
            return None, len(to_decode)
        readings = tuple(
            self._occluded.get(n) or self._known[n]
            for n in boxes.names
            if n in self._occluded or n in self._known
        )
        view = SettledView(
            self._frame_index, readings, frozenset(changed), frozenset(self._occluded), full
        )
        self.last_view = view
        return view, len(to_decode)

    def _local_white(self, small: Image, i: int, reach: int = 45) -> float:
        """How bright the mat is around location `i` now (grey levels, from the small board
        within `reach` cells): glare is told from a bright lamp by it."""
        assert self.warper is not None
        b = self.warper.boxes
        window = small[
            max(0, b.y0[i] - reach) : b.y1[i] + reach, max(0, b.x0[i] - reach) : b.x1[i] + reach
        ]
        return float(np.percentile(window, 75))

    def _copy_ref(self, small: Image, i: int) -> None:
        assert self._ref is not None and self.warper is not None
        b = self.warper.boxes
        self._ref[b.y0[i] : b.y1[i], b.x0[i] : b.x1[i]] = small[
            b.y0[i] : b.y1[i], b.x0[i] : b.x1[i]
        ]
