"""Warping frames onto the mat: a small grey board for change detection, sharp crops to decode."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.calibration import Calibration, Matrix, mat_outline, project
from vision.change import CellBoxes
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
        quad = project(calibration.mat_to_image, mat_outline(board))
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
        self.boxes = self._cell_boxes()

    def small_board(self, frame: Image) -> Image:
        """The whole mat at `cell_mm` per pixel, grey, from a BGR or grey frame."""
        x0, y0, x1, y1 = self.roi
        img = frame[y0:y1, x0:x1]
        if img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        for _ in range(self.pyramid_levels):
            img = cv2.pyrDown(img)
        out: Image = cv2.warpPerspective(
            img, self._small_to_pyr, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        return out

    def crop(self, frame: Image, rect: Rect, px_per_mm: float, margin_mm: float) -> Image:
        """The location plus `margin_mm` around it, upright, at `px_per_mm` (same channels)."""
        x0, y0 = rect.x0 - margin_mm, rect.y0 - margin_mm
        w = round((rect.w_mm + 2 * margin_mm) * px_per_mm)
        h = round((rect.h_mm + 2 * margin_mm) * px_per_mm)
        shift = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
        m = self.calibration.mat_to_image @ shift @ _scale(1.0 / px_per_mm)
        out: Image = cv2.warpPerspective(
            frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        )
        return out

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
