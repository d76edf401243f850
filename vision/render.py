"""Synthetic tables seen by a camera: where the camera sees the mat from, and the renderer that
draws the table in mat space (`vision.drawing`), then as the camera sees it, in the room's
light and the camera's conditions (`vision.conditions`), with hands over it (`vision.hands`).

The renderer serves the demo, the tests and the benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.conditions import (
    Conditions,
    add_highlights,
    apply_light,
    bend,
    camera_effects,
    shade_and_glare,
)
from vision.drawing import (
    TableContent,
    draw_box_sides,
    draw_mat,
    draw_piece,
    draw_shadow,
    freeze,
    paste_rotated,
    seen_top,
)
from vision.geometry import BoardGeometry
from vision.hands import Hand, draw_hand
from vision.lens import Lens
from vision.markers import Image


@dataclass(frozen=True)
class View:
    """Where the camera sees the mat: frame size, the mat's corners (TL, TR, BR, BL) in ideal
    pixels, and the lens: barrel (k1 < 0) or pincushion distortion at focal length `focal_px`
    (OpenCV's model; 0 means 0.85 of the width, a Pi camera module's 62-degree lens)."""

    width: int
    height: int
    quad: tuple[tuple[float, float], ...]
    k1: float = 0.0
    focal_px: float = 0.0
    camera_mm: tuple[float, float, float] | None = None  # known for `View.camera` views

    @property
    def lens(self) -> Lens:
        f = self.focal_px or 0.85 * self.width
        size = (self.width, self.height)
        return Lens(f, f, self.width / 2, self.height / 2, (self.k1, 0.0, 0.0, 0.0, 0.0), size)

    @staticmethod
    def camera(
        board: BoardGeometry,
        width: int = 1280,
        height: int = 720,
        *,
        tilt_deg: float = 0.0,
        fill: float = 0.9,
        k1: float = 0.0,
        focal_px: float = 0.0,
    ) -> View:
        """A pinhole camera over the mat's centre, pitched `tilt_deg` from looking straight down
        (leaning out over the mat's top edge, which looks larger), aimed at the mat's centre, as
        far away as keeps the whole mat within `fill` of the frame from its centre."""
        f = focal_px or 0.85 * width
        t = math.radians(tilt_deg)
        w2, h2 = board.width_mm / 2, board.height_mm / 2

        def quad_at(distance: float) -> list[tuple[float, float]]:
            out = []
            for x, y in ((-w2, -h2), (w2, -h2), (w2, h2), (-w2, h2)):
                # camera axes: pitched about the mat's x axis; the mat's top edge comes nearer
                yc = y * math.cos(t)
                zc = distance + y * math.sin(t)
                out.append((width / 2 + f * x / zc, height / 2 + f * yc / zc))
            return out

        lo, hi = 50.0, 50_000.0
        for _ in range(60):
            mid = (lo + hi) / 2
            q = quad_at(mid)
            reach_y = max(abs(p[1] - height / 2) for p in q) / (height / 2)
            reach_x = max(abs(p[0] - width / 2) for p in q) / (width / 2)
            lo, hi = (mid, hi) if max(reach_x, reach_y) > fill else (lo, mid)
        quad = tuple(quad_at(hi))
        # the lens in mat millimetres: over the mat's centre line, pulled back by the tilt
        camera = (w2, h2 - hi * math.sin(t), hi * math.cos(t))
        return View(width, height, quad, k1, focal_px, camera)

    @staticmethod
    def overhead(
        board: BoardGeometry,
        width: int = 1280,
        height: int = 720,
        fill: float = 0.92,
        tilt: float = 0.0,
        turn_deg: float = 0.0,
        shift: tuple[float, float] = (0.0, 0.0),
    ) -> View:
        """A camera above the mat: `fill` of the frame height, `tilt` shrinks the far (top) edge by
        that fraction, `turn_deg` turns the mat in the image, `shift` moves it in pixels."""
        scale = fill * height / board.height_mm
        w, h = board.width_mm * scale, board.height_mm * scale
        top = w * (1 - tilt) / 2
        pts = [(-top, -h / 2), (top, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        a = math.radians(turn_deg)
        cx, cy = width / 2 + shift[0], height / 2 + shift[1]
        quad = tuple(
            (cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a))
            for x, y in pts
        )
        return View(width, height, quad)


class TableRenderer:
    """Draws a board's mat and pieces in mat space, then as a camera would see them."""

    def __init__(
        self, board: BoardGeometry, px_per_mm: float = 2.0, *, mat_labels: bool = True
    ) -> None:
        self.board = board
        self.px_per_mm = px_per_mm
        self.mat_labels = mat_labels
        self._mat: Image | None = None
        self._table_key: object = None
        self._table: Image | None = None
        self._camera_key: object = None
        self._camera: Image | None = None

    # --- mat space -------------------------------------------------------------------------
    def mat_image(self) -> Image:
        """The empty mat: locations outlined and named, corner markers with a white quiet zone."""
        if self._mat is None:
            self._mat = draw_mat(self.board, self.px_per_mm, labels=self.mat_labels)
        return self._mat

    def table_image(
        self,
        content: TableContent,
        camera_mm: tuple[float, float, float] | None = None,
        contact_shadow: float = 0.0,
    ) -> Image:
        """The mat with every piece in `content` drawn on it (mat space, BGR), each with a soft
        `contact_shadow` (darkness at its foot) around it. A tall piece is a box: its top is
        drawn where the camera at `camera_mm` sees it on the mat's plane (pushed away from the
        camera and enlarged by parallax), its sides, darker, between that and its foot. A piece
        held above the mat (`hover_mm`) is drawn nearer the camera, its shadow loose below."""
        frozen = freeze(content)
        key = (frozen, camera_mm, contact_shadow)
        if key != self._table_key or self._table is None:
            img = self.mat_image().copy()
            s, fam = self.px_per_mm, self.board.family
            camera = camera_mm or (self.board.width_mm / 2, self.board.height_mm / 2, 850.0)
            for name, pieces in frozen:
                loc = self.board.location(name)
                for piece in pieces:
                    x, y = loc.x_mm, loc.y_mm
                    if piece.hover_mm:
                        draw_shadow(img, piece, x + 3.0, y + 4.0, s, 0.25, 4.0)
                        lifted = replace(piece, height_mm=piece.hover_mm)
                        face, fx, fy = seen_top(lifted, x, y, camera)
                        draw_piece(img, face, fx, fy, s, fam)
                        continue
                    if contact_shadow:
                        draw_shadow(img, piece, x, y, s, contact_shadow, 1.5)
                    if piece.height_mm and camera_mm is not None:
                        draw_box_sides(img, piece, x, y, camera_mm, s)
                        piece, x, y = seen_top(piece, x, y, camera_mm)
                    draw_piece(img, piece, x, y, s, fam)
            self._table_key, self._table = key, img
        return self._table

    # --- camera space ----------------------------------------------------------------------
    def mat_to_image(self, view: View) -> NDArray[np.float64]:
        """Homography from mat millimetres to the view's pixels."""
        b = self.board
        src = np.array([[0, 0], [b.width_mm, 0], [b.width_mm, b.height_mm], [0, b.height_mm]])
        h = cv2.getPerspectiveTransform(
            src.astype(np.float32), np.array(view.quad, dtype=np.float32)
        )
        return np.asarray(h, dtype=np.float64)

    def render(
        self,
        content: TableContent,
        view: View,
        conditions: Conditions = Conditions(),
        hands: Iterable[Hand] = (),
        seed: int = 0,
    ) -> Image:
        """One camera frame (BGR) of the table."""
        frame = self._lit_camera_image(content, view, conditions).copy()
        for hand in hands:
            held = self._held_piece(hand, view) if hand.holding is not None else None
            draw_hand(frame, hand, held)
        return camera_effects(frame, conditions, seed)

    def _held_piece(self, hand: Hand, view: View) -> Image | None:
        """A held piece as the camera sees it: nearer, so bigger, and a little out of focus."""
        piece = hand.holding
        assert piece is not None
        b = self.board
        mat_quad = np.array([[0, 0], [b.width_mm, 0], [b.width_mm, b.height_mm], [0, b.height_mm]])
        quad = cv2.perspectiveTransform(
            mat_quad.reshape(-1, 1, 2).astype(np.float64), self.mat_to_image(view)
        ).reshape(-1, 2)
        px_mm = math.sqrt(cv2.contourArea(quad.astype(np.float32)) / (b.width_mm * b.height_mm))
        s = px_mm / (1 - hand.hold_height)
        side_mm = max(piece.body_mm, piece.size_mm * 1.4) * 1.5
        canvas = np.zeros((round(side_mm * s), round(side_mm * s), 3), np.uint8)
        mask = np.zeros_like(canvas)
        c = side_mm / 2
        flat = replace(piece, dx_mm=0.0, dy_mm=0.0)
        draw_piece(canvas, flat, c, c, s, b.family)
        outline_mm = max(piece.body_mm, piece.size_mm * (b.family.bits + 4) / (b.family.bits + 2))
        solid = np.full((round(outline_mm * s),) * 2 + (3,), 255, np.uint8)
        paste_rotated(mask, solid, c, c, piece.rotation * 90 + piece.skew_deg, s)
        blurred = cv2.GaussianBlur(canvas, (0, 0), 0.8)
        alpha = cv2.GaussianBlur(mask, (0, 0), 0.8)
        return np.concatenate([blurred, alpha[..., :1]], axis=2)

    def _lit_camera_image(self, content: TableContent, view: View, cond: Conditions) -> Image:
        light = cond.light
        key = (
            freeze(content),
            view,
            light,
            cond.shadows,
            cond.glare,
            cond.highlights,
            cond.contact_shadow,
        )
        if key != self._camera_key or self._camera is None:
            table = self.table_image(content, view.camera_mm, cond.contact_shadow)
            scale = np.diag([1 / self.px_per_mm, 1 / self.px_per_mm, 1.0])
            h = self.mat_to_image(view) @ scale
            cam = cv2.warpPerspective(
                table,
                h,
                (view.width, view.height),
                flags=cv2.INTER_AREA,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=(70, 80, 90),
            )
            if cond.shadows or cond.glare:
                cam = shade_and_glare(cam, self.mat_to_image(view), cond.shadows, cond.glare)
            if view.k1:
                cam = bend(cam, view.lens)
            cam = apply_light(cam, light)
            if cond.highlights:
                cam = add_highlights(cam, self.mat_to_image(view), cond.highlights)
            self._camera_key, self._camera = key, cam
        return self._camera
