"""Warping frames onto the mat: a small grey board for change detection, sharp crops to decode."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.ma  # numpy imports it at the first median: 16 ms within the opening's read

from vision.calibration import Calibration, Matrix, mat_outline
from vision.change import CellBoxes, RowBands
from vision.geometry import BoardGeometry, Rect
from vision.markers import Image


def _scale(s: float) -> Matrix:
    return np.diag([s, s, 1.0])


class BoardWarper:
    """Turns frames into mat-aligned images under one calibration.

    The change board is `cell_mm` millimetres per pixel: the frame is first halved with `pyrDown`
    (which also averages sensor noise) as often as the image scale allows, then warped once.
    """

    def __init__(
        self,
        board: BoardGeometry,
        calibration: Calibration,
        frame_size: tuple[int, int],
        cell_mm: float = 2.0,
        band_px: float = 4.0,
    ) -> None:
        self.board = board
        self.calibration = calibration
        self.cell_mm = cell_mm
        px_per_mm = calibration.px_per_mm(board)
        self.pyramid_levels = max(0, math.floor(math.log2(px_per_mm * cell_mm)))
        shrink = 0.5**self.pyramid_levels
        # Only the part of the frame the mat covers is converted and shrunk: the frame's box
        # around the mat, rounded out to whole pyramid cells.
        w, h = frame_size
        quad = calibration.to_image(mat_outline(board))
        step = 2**self.pyramid_levels
        x0 = max(0, int(quad[:, 0].min()) - 2) // step * step
        y0 = max(0, int(quad[:, 1].min()) - 2) // step * step
        x1 = min(w, math.ceil(quad[:, 0].max()) + 2 + step)
        y1 = min(h, math.ceil(quad[:, 1].max()) + 2 + step)
        self.roi = (x0, y0, x1, y1)
        offset = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1.0]])
        # small-board pixel -> mat mm -> frame pixel -> mat box pixel -> pyramid pixel
        self._small_to_pyr = _scale(shrink) @ offset @ calibration.mat_to_image @ _scale(cell_mm)
        self.size = (math.ceil(board.width_mm / cell_mm), math.ceil(board.height_mm / cell_mm))
        # Through a bending lens the warp is a lookup table, made once per calibration: each
        # small-board cell's centre in mat mm -> raw frame pixel -> mat box pixel -> pyramid pixel.
        self._small_maps: tuple[Image, Image] | None = None
        self._crop_maps: dict[tuple[Rect, float, float], tuple[Image, Image]] = {}
        if not calibration.straight:
            w_cells, h_cells = self.size
            u, v = np.meshgrid(np.arange(w_cells), np.arange(h_cells))
            mm = np.stack([u.ravel() * cell_mm, v.ravel() * cell_mm], axis=1)
            px = calibration.to_image(mm)
            mx = ((px[:, 0] - x0) * shrink).reshape(h_cells, w_cells).astype(np.float32)
            my = ((px[:, 1] - y0) * shrink).reshape(h_cells, w_cells).astype(np.float32)
            self._small_maps = (mx, my)
        self.boxes = self._cell_boxes()
        # each cell's frame row, to group cells into bands of `band_px` camera rows (flicker)
        w_cells, h_cells = self.size
        u, v = np.meshgrid(np.arange(w_cells), np.arange(h_cells))
        centres = np.stack([u.ravel() * cell_mm, v.ravel() * cell_mm], axis=1)
        rows = calibration.to_image(centres)[:, 1].reshape(h_cells, w_cells)
        self.bands = RowBands.from_rows(rows, band_px)
        self.mat_samples = self._mat_sample_points(frame_size)

    def small_board(self, frame: Image) -> Image:
        """The whole mat at `cell_mm` per pixel, grey, from a BGR or grey frame."""
        x0, y0, x1, y1 = self.roi
        img = frame[y0:y1, x0:x1]
        if img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        for _ in range(self.pyramid_levels):
            img = cv2.pyrDown(img)
        if self._small_maps is not None:
            bent: Image = cv2.remap(img, *self._small_maps, cv2.INTER_LINEAR)
            return bent
        out: Image = cv2.warpPerspective(
            img, self._small_to_pyr, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        return out

    def crop(self, frame: Image, rect: Rect, px_per_mm: float, margin_mm: float) -> Image:
        """The location plus `margin_mm` around it, upright, at `px_per_mm` (same channels)."""
        x0, y0 = rect.x0 - margin_mm, rect.y0 - margin_mm
        w = round((rect.w_mm + 2 * margin_mm) * px_per_mm)
        h = round((rect.h_mm + 2 * margin_mm) * px_per_mm)
        if not self.calibration.straight:
            key = (rect, px_per_mm, margin_mm)
            maps = self._crop_maps.get(key)
            if maps is None:
                u, v = np.meshgrid(np.arange(w), np.arange(h))
                mm = np.stack([x0 + u.ravel() / px_per_mm, y0 + v.ravel() / px_per_mm], axis=1)
                px = self.calibration.to_image(mm).astype(np.float32)
                map_x: Image = px[:, 0].reshape(h, w).copy()
                map_y: Image = px[:, 1].reshape(h, w).copy()
                maps = (map_x, map_y)
                self._crop_maps[key] = maps
            cropped: Image = cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR)
            return cropped
        shift = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
        m = self.calibration.mat_to_image @ shift @ _scale(1.0 / px_per_mm)
        out: Image = cv2.warpPerspective(
            frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        return out

    def mat_colour(self, frame: Image) -> tuple[float, float, float] | None:
        """The plain mat's colour (B, G, R) in `frame`, from its margin clear of every location.

        The brighter half of the sampled points is taken (a hand or a sleeve over the margin is
        darker than the paper) and the median of each channel. None for a grey frame or a board
        without margin.
        """
        ys, xs = self.mat_samples
        if frame.ndim != 3 or len(xs) == 0:
            return None
        samples = frame[ys, xs].astype(np.float32)
        grey = samples.mean(axis=1)
        bright = samples[grey >= np.median(grey)]
        b, g, r = (float(v) for v in np.median(bright, axis=0))
        return b, g, r

    def _mat_sample_points(self, frame_size: tuple[int, int]) -> tuple[Any, Any]:
        """Frame pixels on a 4 mm grid of plain mat: inside the mat, clear of locations and of
        corner markers; the whole mat's inside when the margin is too thin to sample."""
        b = self.board
        step, clear = 4.0, 3.0
        xs_mm = np.arange(clear + step / 2, b.width_mm - clear, step)
        ys_mm = np.arange(clear + step / 2, b.height_mm - clear, step)
        gx, gy = np.meshgrid(xs_mm, ys_mm)
        pts = np.stack([gx.ravel(), gy.ravel()], axis=1)
        inside = np.ones(len(pts), dtype=bool)
        free = inside.copy()
        for r in b.locations:
            free &= ~(
                (pts[:, 0] > r.x0 - clear)
                & (pts[:, 0] < r.x1 + clear)
                & (pts[:, 1] > r.y0 - clear)
                & (pts[:, 1] < r.y1 + clear)
            )
        for c in b.corners:
            half = c.size_mm * (0.5 + 1 / 6) + clear
            free &= ~((np.abs(pts[:, 0] - c.x_mm) < half) & (np.abs(pts[:, 1] - c.y_mm) < half))
        chosen = pts[free] if np.count_nonzero(free) >= 64 else pts[inside]
        px = self.calibration.to_image(chosen)
        w, h = frame_size
        xi = np.clip(np.round(px[:, 0]).astype(np.intp), 0, w - 1)
        yi = np.clip(np.round(px[:, 1]).astype(np.intp), 0, h - 1)
        return yi, xi

    def _cell_boxes(self) -> CellBoxes:
        c = self.cell_mm
        w, h = self.size
        locs = self.board.locations
        x0 = np.array([min(w - 1, max(0, round(r.x0 / c))) for r in locs], dtype=np.intp)
        y0 = np.array([min(h - 1, max(0, round(r.y0 / c))) for r in locs], dtype=np.intp)
        x1 = np.array([min(w, max(1, round(r.x1 / c))) for r in locs], dtype=np.intp)
        y1 = np.array([min(h, max(1, round(r.y1 / c))) for r in locs], dtype=np.intp)
        return CellBoxes(
            tuple(r.name for r in locs), x0, y0, np.maximum(x1, x0 + 1), np.maximum(y1, y0 + 1)
        )
