"""Synthetic tables seen by a camera: mat, markers, pieces, light, blur, noise and hands.

The renderer serves the demo, the tests and the benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import BoardGeometry, MarkerFamily
from vision.lens import Lens
from vision.markers import Image, marker_image

MAT_GREY = 236
LINE_GREY = 150
SKIN_BGR = (120, 150, 205)


@dataclass(frozen=True, order=True)
class PlacedMarker:
    """A piece's marker on a location: id, quarter turns clockwise, printed side, body around it.

    `dx_mm`, `dy_mm` shift it from the location's centre; `skew_deg` turns it off the quarter turn
    (players never place exactly); `body_mm` is the piece's own square (0: sticker only).
    """

    marker_id: int
    rotation: int = 0
    size_mm: float = 24.0
    body_mm: float = 36.0
    body_bgr: tuple[int, int, int] = (170, 140, 110)
    dx_mm: float = 0.0
    dy_mm: float = 0.0
    skew_deg: float = 0.0
    height_mm: float = 0.0  # the sticker on the piece's top, this far above the mat


TableContent = Mapping[str, tuple[PlacedMarker, ...]]


def freeze(content: TableContent) -> tuple[tuple[str, tuple[PlacedMarker, ...]], ...]:
    """A hashable, ordered copy of a table's content (empty locations dropped)."""
    return tuple(sorted((k, tuple(v)) for k, v in content.items() if v))


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


@dataclass(frozen=True)
class Light:
    """Uneven light: overall `gain`, a left-to-right and top-to-bottom slope, and a dark rim."""

    gain: float = 1.0
    slope_x: float = 0.0
    slope_y: float = 0.0
    vignette: float = 0.0


@dataclass(frozen=True)
class Hand:
    """A hand over the board at pixel (`x`, `y`), palm `radius` px, arm reaching in from `entry`."""

    x: float
    y: float
    radius: float = 45.0
    entry: tuple[float, float] = (640.0, 800.0)
    bgr: tuple[int, int, int] = SKIN_BGR


@dataclass(frozen=True)
class Conditions:
    """Camera and room: blur (Gaussian sigma px), sensor noise (sigma, grey levels), light."""

    blur_sigma: float = 0.8
    noise_sigma: float = 2.0
    light: Light = field(default_factory=Light)


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
        self, content: TableContent, camera_mm: tuple[float, float, float] | None = None
    ) -> Image:
        """The mat with every piece in `content` drawn on it (mat space, BGR). A tall piece's top
        is drawn where the camera at `camera_mm` sees it on the mat's plane: pushed away from
        the camera and enlarged by parallax."""
        frozen = freeze(content)
        key = (frozen, camera_mm)
        if key != self._table_key or self._table is None:
            img = self.mat_image().copy()
            for name, pieces in frozen:
                loc = self.board.location(name)
                for piece in pieces:
                    x, y = loc.x_mm, loc.y_mm
                    if piece.height_mm and camera_mm is not None:
                        piece, x, y = seen_top(piece, x, y, camera_mm)
                    draw_piece(img, piece, x, y, self.px_per_mm, self.board.family)
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
        frame = self._lit_camera_image(content, view, conditions.light).copy()
        for hand in hands:
            draw_hand(frame, hand)
        if conditions.blur_sigma > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), conditions.blur_sigma)
        if conditions.noise_sigma > 0:
            rng = np.random.default_rng(seed)
            noise = rng.standard_normal(frame.shape, dtype=np.float32) * conditions.noise_sigma
            frame = cv2.add(frame, noise, dtype=cv2.CV_8U)
        return frame

    def _lit_camera_image(self, content: TableContent, view: View, light: Light) -> Image:
        key = (freeze(content), view, light)
        if key != self._camera_key or self._camera is None:
            table = self.table_image(content, view.camera_mm)
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
            if view.k1:
                cam = bend(cam, view.lens)
            self._camera_key, self._camera = key, apply_light(cam, light)
        return self._camera


def seen_top(
    piece: PlacedMarker, x_mm: float, y_mm: float, camera_mm: tuple[float, float, float]
) -> tuple[PlacedMarker, float, float]:
    """A tall piece's top as the camera sees it on the mat's plane: the piece (offsets folded
    in, sizes enlarged) and where on the mat to draw it, so that it stays a plane drawing."""
    cx, cy, height = camera_mm
    k = height / (height - piece.height_mm)
    px, py = x_mm + piece.dx_mm, y_mm + piece.dy_mm
    seen = replace(
        piece, size_mm=piece.size_mm * k, body_mm=piece.body_mm * k, dx_mm=0.0, dy_mm=0.0
    )
    return seen, cx + (px - cx) * k, cy + (py - cy) * k


def bend(ideal: Image, lens: Lens) -> Image:
    """What the real lens makes of an ideal pinhole picture (each raw pixel looks up its ideal
    place; beyond the model's reach, the frame's dark border)."""
    h, w = ideal.shape[:2]
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    src = lens.undistort(np.stack([u.ravel(), v.ravel()], axis=1))
    back = lens.distort(src)
    lost = np.abs(back - np.stack([u.ravel(), v.ravel()], axis=1)).max(axis=1) > 0.5
    src[lost] = -10.0
    mx = src[:, 0].reshape(h, w).astype(np.float32)
    my = src[:, 1].reshape(h, w).astype(np.float32)
    out: Image = cv2.remap(
        ideal, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(70, 80, 90)
    )
    return out


def draw_mat(
    board: BoardGeometry,
    px_per_mm: float,
    *,
    labels: bool = True,
    origin_mm: tuple[float, float] = (0.0, 0.0),
    size_mm: tuple[float, float] | None = None,
    background: int = MAT_GREY,
) -> Image:
    """The printed mat at `px_per_mm` (BGR), or the part of it from `origin_mm` of `size_mm`."""
    s = px_per_mm
    ox, oy = origin_mm
    w_mm, h_mm = size_mm or (board.width_mm, board.height_mm)
    img = np.full((round(h_mm * s), round(w_mm * s), 3), background, np.uint8)
    line = max(1, round(0.6 * s))
    for r in board.locations:
        p0 = (round((r.x0 - ox) * s), round((r.y0 - oy) * s))
        p1 = (round((r.x1 - ox) * s) - 1, round((r.y1 - oy) * s) - 1)
        cv2.rectangle(img, p0, p1, (LINE_GREY,) * 3, line)
        if labels:
            scale = 2.2 * s / 22.0  # Hershey simplex glyphs are about 22 px tall at scale 1
            org = (round((r.x0 + 1.2 - ox) * s), round((r.y0 + 3.6 - oy) * s))
            thick = max(1, round(s / 8))
            cv2.putText(
                img, r.name, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (110,) * 3, thick, cv2.LINE_AA
            )
    for c in board.corners:
        draw_marker(img, c.marker_id, c.size_mm, c.x_mm - ox, c.y_mm - oy, 0, 0.0, s, board.family)
    return img


def draw_marker(
    img: Image,
    marker_id: int,
    size_mm: float,
    x_mm: float,
    y_mm: float,
    rotation: int,
    skew_deg: float,
    px_per_mm: float,
    family: MarkerFamily,
) -> None:
    """Paste a marker with a one-cell white quiet zone, centred at (x_mm, y_mm), turned."""
    cells = family.bits + 2
    side = max(cells * 4, round(size_mm * px_per_mm))
    quiet = side // cells
    mk = marker_image(family, marker_id, side)
    sticker = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
    sticker[quiet : quiet + side, quiet : quiet + side] = mk
    sticker = np.rot90(sticker, -(rotation % 4))
    paste_rotated(img, cv2.cvtColor(sticker, cv2.COLOR_GRAY2BGR), x_mm, y_mm, skew_deg, px_per_mm)


def draw_piece(
    img: Image, piece: PlacedMarker, x_mm: float, y_mm: float, px_per_mm: float, fam: MarkerFamily
) -> None:
    """A piece: its coloured body square, then its sticker, both turned together."""
    cx, cy = x_mm + piece.dx_mm, y_mm + piece.dy_mm
    angle = piece.rotation * 90 + piece.skew_deg
    if piece.body_mm > 0:
        side = max(2, round(piece.body_mm * px_per_mm))
        body = np.empty((side, side, 3), np.uint8)
        body[:] = piece.body_bgr
        paste_rotated(img, body, cx, cy, angle, px_per_mm)
    draw_marker(
        img, piece.marker_id, piece.size_mm, cx, cy, piece.rotation, piece.skew_deg, px_per_mm, fam
    )


def paste_rotated(
    img: Image, patch: Image, x_mm: float, y_mm: float, angle_deg: float, px_per_mm: float
) -> None:
    """Paste `patch` centred at (x_mm, y_mm), turned `angle_deg` clockwise (exact in quarters)."""
    ph, pw = patch.shape[:2]
    k = round(angle_deg / 90.0)
    rest = angle_deg - 90 * k
    if k % 2:
        ph, pw = pw, ph
    patch = np.rot90(patch, -(k % 4)) if k % 4 else patch
    mask: Image = np.full(patch.shape[:2], 255, np.uint8)
    if abs(rest) > 1e-6:
        diag = math.ceil(math.hypot(ph, pw)) + 2
        m = cv2.getRotationMatrix2D((pw / 2, ph / 2), -rest, 1.0)
        m[:, 2] += ((diag - pw) / 2, (diag - ph) / 2)
        patch = cv2.warpAffine(patch, m, (diag, diag), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(mask, m, (diag, diag), flags=cv2.INTER_LINEAR)
        ph = pw = diag
    x0 = round(x_mm * px_per_mm - pw / 2)
    y0 = round(y_mm * px_per_mm - ph / 2)
    h, w = img.shape[:2]
    sx0, sy0 = max(0, -x0), max(0, -y0)
    dx0, dy0 = max(0, x0), max(0, y0)
    dx1, dy1 = min(w, x0 + pw), min(h, y0 + ph)
    if dx1 <= dx0 or dy1 <= dy0:
        return
    region = img[dy0:dy1, dx0:dx1]
    src = patch[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0]
    alpha = mask[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0]
    if alpha.min() == 255:
        region[:] = src
    else:
        a = (alpha.astype(np.float32) / 255.0)[..., None]
        region[:] = (src * a + region * (1 - a)).astype(np.uint8)


def apply_light(img: Image, light: Light) -> Image:
    """Multiply by a smooth light field (gain, linear slopes, vignette)."""
    if light == Light():
        return img
    h, w = img.shape[:2]
    xs = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    ys = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    fieldmap = light.gain * (1 + light.slope_x * xs + light.slope_y * ys)
    fieldmap = fieldmap * (1 - light.vignette * (xs**2 + ys**2) / 2)
    out = img.astype(np.float32) * fieldmap[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def draw_hand(img: Image, hand: Hand) -> None:
    """A skin-coloured palm with four fingers and a thumb, and an arm reaching in from `entry`."""
    x, y, r = hand.x, hand.y, hand.radius
    ex, ey = hand.entry
    ang = math.atan2(y - ey, x - ex)  # arm direction, pointing into the board
    colour = hand.bgr
    shade = tuple(int(c * 0.85) for c in colour)
    arm_w = max(2, round(r * 1.3))
    cv2.line(img, (round(ex), round(ey)), (round(x), round(y)), shade, arm_w, cv2.LINE_AA)
    cv2.ellipse(
        img,
        (round(x), round(y)),
        (round(r), round(r * 0.85)),
        math.degrees(ang),
        0,
        360,
        colour,
        -1,
        cv2.LINE_AA,
    )
    for i, spread in enumerate((-0.45, -0.15, 0.15, 0.45)):
        length = r * (1.15 if i in (1, 2) else 1.0)
        a = ang + spread * 0.6
        fx = x + math.cos(ang) * r * 0.6 + math.cos(a) * length * 0.5 + math.sin(ang) * spread * r
        fy = y + math.sin(ang) * r * 0.6 + math.sin(a) * length * 0.5 - math.cos(ang) * spread * r
        cv2.ellipse(
            img,
            (round(fx), round(fy)),
            (round(length * 0.6), round(r * 0.16)),
            math.degrees(a),
            0,
            360,
            colour,
            -1,
            cv2.LINE_AA,
        )
    tx = x + math.cos(ang + 1.3) * r * 0.95
    ty = y + math.sin(ang + 1.3) * r * 0.95
    cv2.ellipse(
        img,
        (round(tx), round(ty)),
        (round(r * 0.5), round(r * 0.18)),
        math.degrees(ang + 0.7),
        0,
        360,
        colour,
        -1,
        cv2.LINE_AA,
    )
