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
    (players never place exactly); `body_mm` is the piece's own square (0: sticker only). A piece
    `height_mm` tall is a box (a minecart): seen from a known camera its top is drawn where the
    camera sees it and its sides, darker, between that and its foot. A piece `hover_mm` above
    the mat is held there: its face drawn nearer the camera, no sides, its shadow loose below.
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
    hover_mm: float = 0.0  # held this far above the mat (no sides, a loose shadow below)


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


# Skin tones from very dark to very light (BGR), and sleeves; `Hand.bgr` and `Hand.sleeve_bgr`.
SKIN_TONES: dict[str, tuple[int, int, int]] = {
    "very_dark": (30, 40, 62),
    "dark": (48, 72, 112),
    "medium": (88, 124, 172),
    "light": (150, 180, 224),
    "very_light": (206, 222, 246),
}
SLEEVES: dict[str, tuple[int, int, int]] = {
    "white": (242, 243, 244),
    "dark": (42, 38, 36),
    "grey": (128, 128, 126),
    "navy": (82, 46, 30),
}


@dataclass(frozen=True)
class Hand:
    """A hand over the board at pixel (`x`, `y`), palm `radius` px, arm reaching in from `entry`.

    `sleeve_bgr` dresses the forearm up to the wrist (None: a bare arm), plain (with folds and
    the shading of a cylinder) or with a `sleeve_pattern` ("stripes", "check"). `holding` is a
    piece held between thumb and finger just ahead of the palm, `hold_height` of the camera's
    distance nearer the camera (so that much bigger, and a little blurred), hovering.
    """

    x: float
    y: float
    radius: float = 45.0
    entry: tuple[float, float] = (640.0, 800.0)
    bgr: tuple[int, int, int] = SKIN_BGR
    sleeve_bgr: tuple[int, int, int] | None = None
    sleeve_pattern: str = "plain"
    holding: PlacedMarker | None = None
    hold_height: float = 0.07


@dataclass(frozen=True)
class Shadow:
    """A hard shadow: the mat left of the line from `a` to `b` (mat mm, seen from above), darker
    by `darkness`, its edge soft over `penumbra_mm` (10 % to 90 %)."""

    a: tuple[float, float]
    b: tuple[float, float]
    darkness: float = 0.45
    penumbra_mm: float = 10.0


@dataclass(frozen=True)
class Glare:
    """A lamp's reflection: saturated within `radius_mm` of (`x_mm`, `y_mm`), fading beyond."""

    x_mm: float
    y_mm: float
    radius_mm: float = 14.0
    strength: float = 1.0


@dataclass(frozen=True)
class Highlight:
    """A soft, unsaturated highlight: `peak` grey levels added at (`x_mm`, `y_mm`), fading as a
    Gaussian of `sigma_mm` (a lamp's reflection on matt paper, or a window's)."""

    x_mm: float
    y_mm: float
    sigma_mm: float = 25.0
    peak: float = 40.0


@dataclass(frozen=True)
class Conditions:
    """Camera and room: blur (Gaussian sigma px), sensor noise (sigma, grey levels), light.

    Harsher conditions: hard `shadows`, `glare`, rolling-shutter `flicker` (peak-to-peak share
    of brightness in horizontal bands `flicker_period_px` rows apart, at `flicker_phase`
    periods; `at_frame` moves them by `flicker_drift` periods per frame), a `bayer` sensor
    (RGGB mosaic, noise on the raw values, OpenCV's demosaic) and JPEG compression at
    `jpeg_quality` (0: none). Soft, unsaturated `highlights`; `contact_shadow`: how much darker
    the mat is at each piece's foot (soft, fading over a few millimetres).
    """

    blur_sigma: float = 0.8
    noise_sigma: float = 2.0
    light: Light = field(default_factory=Light)
    shadows: tuple[Shadow, ...] = ()
    glare: tuple[Glare, ...] = ()
    flicker: float = 0.0
    flicker_period_px: float = 96.0
    flicker_phase: float = 0.0
    flicker_drift: float = 0.33
    bayer: bool = False
    jpeg_quality: int = 0
    highlights: tuple[Highlight, ...] = ()
    contact_shadow: float = 0.0

    def at_frame(self, index: int) -> Conditions:
        """These conditions at frame `index` of a sequence (the flicker bands rolled on)."""
        if not self.flicker:
            return self
        return replace(self, flicker_phase=self.flicker_phase + index * self.flicker_drift)


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


def _footprint(piece: PlacedMarker, x_mm: float, y_mm: float) -> NDArray[np.float64]:
    """The four corners (mm) of a piece's body (or sticker with its quiet zone) on the mat."""
    half = max(piece.body_mm, piece.size_mm * 4 / 3) / 2
    a = math.radians(piece.rotation * 90 + piece.skew_deg)
    c, s = math.cos(a), math.sin(a)
    cx, cy = x_mm + piece.dx_mm, y_mm + piece.dy_mm
    local = ((-half, -half), (half, -half), (half, half), (-half, half))
    return np.array([(cx + u * c - v * s, cy + u * s + v * c) for u, v in local])


def draw_shadow(
    img: Image,
    piece: PlacedMarker,
    x_mm: float,
    y_mm: float,
    px_per_mm: float,
    darkness: float,
    soft_mm: float,
) -> None:
    """Darken the mat round a piece's footprint: `darkness` at its edge, fading over `soft_mm`
    (a contact shadow: the light from above is blocked near a piece's foot)."""
    corners = _footprint(piece, x_mm, y_mm) * px_per_mm
    pad = 4 * soft_mm * px_per_mm
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    poly = np.round((corners - (x0, y0)) * 16).astype(np.int32)
    cv2.fillConvexPoly(mask, poly, 1.0, cv2.LINE_AA, 4)
    # a soft edge: 1 under the piece, about 0.5 at its edge, fading outwards
    soft = cv2.GaussianBlur(mask, (0, 0), soft_mm * px_per_mm)
    shade = 1 - darkness * np.clip(2 * soft, 0, 1)
    region = img[y0:y1, x0:x1]
    region[:] = np.clip(region * shade[..., None], 0, 255).astype(np.uint8)


def draw_box_sides(
    img: Image,
    piece: PlacedMarker,
    x_mm: float,
    y_mm: float,
    camera_mm: tuple[float, float, float],
    px_per_mm: float,
) -> None:
    """A tall piece's sides as the camera at `camera_mm` sees them on the mat's plane: each side
    between its foot and its top's projection, darker than the body (lit from above, the side
    facing the lamp a little brighter), the far sides first."""
    foot = _footprint(piece, x_mm, y_mm)
    cx, cy, height = camera_mm
    k = height / (height - piece.height_mm)
    top = np.array([cx, cy]) + (foot - (cx, cy)) * k
    centre = foot.mean(axis=0)
    light = np.array([0.5, -0.8])
    faces = []
    for i in range(4):
        j = (i + 1) % 4
        mid = (foot[i] + foot[j]) / 2
        normal = (mid - centre) / max(1e-9, float(np.linalg.norm(mid - centre)))
        facing = float(np.dot((cx, cy) - mid, normal)) > 0
        shade = 0.5 + 0.15 * float(np.dot(normal, light))
        faces.append((facing, shade, np.array([foot[i], foot[j], top[j], top[i]])))
    for _, shade, quad in sorted(faces, key=lambda f: f[0]):
        colour = tuple(float(c) * shade for c in piece.body_bgr)
        poly = np.round(quad * px_per_mm * 16).astype(np.int32)
        cv2.fillConvexPoly(img, poly, colour, cv2.LINE_AA, 4)


def _mat_coordinates(h_mat_to_image: NDArray[np.float64], size: tuple[int, int]) -> Image:
    """For each pixel of an ideal (pinhole) frame of `size`, the mat point it shows (mm)."""
    w, h = size
    u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    inv = np.linalg.inv(h_mat_to_image)
    pts = np.stack([u, v], axis=2).reshape(-1, 1, 2)
    out: Image = cv2.perspectiveTransform(pts, inv).reshape(h, w, 2)
    return out


def shade_and_glare(
    cam: Image,
    h_mat_to_image: NDArray[np.float64],
    shadows: Iterable[Shadow],
    glare: Iterable[Glare],
) -> Image:
    """Hard shadows (a soft-edged dark half plane each) and saturated glare on an ideal frame."""
    mm = _mat_coordinates(h_mat_to_image, (cam.shape[1], cam.shape[0]))
    x, y = mm[..., 0], mm[..., 1]
    light = np.ones(cam.shape[:2], np.float32)
    for sh in shadows:
        (ax, ay), (bx, by) = sh.a, sh.b
        length = max(1e-6, math.hypot(bx - ax, by - ay))
        # signed distance, positive on the left of a->b as seen from above (y down)
        d = ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / length
        sigma = max(0.1, sh.penumbra_mm / 2.563)
        inside = 0.5 * (1 + _erf(d / (sigma * math.sqrt(2))))
        light *= 1 - sh.darkness * inside
    out = cam.astype(np.float32) * light[..., None]
    for g in glare:
        r = np.hypot(x - g.x_mm, y - g.y_mm)
        fade = np.exp(-((np.maximum(0, r - g.radius_mm) / (0.6 * g.radius_mm)) ** 2))
        out += (320 * g.strength * fade)[..., None]
    shaded: Image = np.clip(out, 0, 255).astype(np.uint8)
    return shaded


def add_highlights(
    cam: Image, h_mat_to_image: NDArray[np.float64], highlights: Iterable[Highlight]
) -> Image:
    """Soft highlights on a lit frame: each adds up to its `peak`, never beyond 245 (a bright
    reflection, not a blown-out one)."""
    mm = _mat_coordinates(h_mat_to_image, (cam.shape[1], cam.shape[0]))
    x, y = mm[..., 0], mm[..., 1]
    out = cam.astype(np.float32)
    for hl in highlights:
        r2 = (x - hl.x_mm) ** 2 + (y - hl.y_mm) ** 2
        added = (hl.peak * np.exp(-r2 / (2 * hl.sigma_mm**2)))[..., None]
        room = np.clip((245.0 - out) / max(hl.peak, 1.0), 0.0, 1.0)
        out += added * room
    lit: Image = np.clip(out, 0, 255).astype(np.uint8)
    return lit


def _erf(x: Image) -> Image:
    """The error function, vectorised (Abramowitz and Stegun 7.1.26, within 1.5e-7)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1 / (1 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    out: Image = sign * (1 - poly * np.exp(-a * a))
    return out


def camera_effects(frame: Image, cond: Conditions, seed: int) -> Image:
    """The sensor's part: optical blur, rolling-shutter flicker bands, noise (on a Bayer mosaic,
    then demosaiced, when `cond.bayer`), JPEG compression."""
    if cond.blur_sigma > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), cond.blur_sigma)
    if cond.flicker > 0:
        rows = np.arange(frame.shape[0], dtype=np.float32)
        wave = 0.5 + 0.5 * np.sin(
            2 * math.pi * (rows / cond.flicker_period_px + cond.flicker_phase)
        )
        gain = (1 - cond.flicker * wave).astype(np.float32)
        frame = np.clip(frame * gain[:, None, None], 0, 255).astype(np.uint8)
    rng = np.random.default_rng(seed)
    if cond.bayer:
        raw = mosaic(frame).astype(np.float32)
        if cond.noise_sigma > 0:
            raw += rng.standard_normal(raw.shape, dtype=np.float32) * cond.noise_sigma
        frame = cv2.cvtColor(np.clip(raw, 0, 255).astype(np.uint8), cv2.COLOR_BayerRG2BGR)
    elif cond.noise_sigma > 0:
        noise = rng.standard_normal(frame.shape, dtype=np.float32) * cond.noise_sigma
        frame = cv2.add(frame, noise, dtype=cv2.CV_8U)
    if cond.jpeg_quality > 0:
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, cond.jpeg_quality])
        assert ok
        decoded: Image = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
        frame = decoded
    return frame


def mosaic(bgr: Image) -> Image:
    """A colour frame as a sensor behind a Bayer filter records it: one value per pixel, in the
    pattern OpenCV demosaics as BayerRG (blue at even rows and columns, red at odd)."""
    raw = np.empty(bgr.shape[:2], np.uint8)
    raw[0::2, 0::2] = bgr[0::2, 0::2, 0]
    raw[0::2, 1::2] = bgr[0::2, 1::2, 1]
    raw[1::2, 0::2] = bgr[1::2, 0::2, 1]
    raw[1::2, 1::2] = bgr[1::2, 1::2, 2]
    return raw


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


def draw_hand(img: Image, hand: Hand, held: Image | None = None) -> None:
    """A palm with four fingers and a thumb, and an arm reaching in from `entry`: bare, or in a
    sleeve up to the wrist; with `held` (BGR + alpha), a piece held just ahead of the palm."""
    if hand.sleeve_bgr is not None:
        _draw_sleeve(img, hand)
    if held is not None:
        _draw_holding(img, hand, held)
        return
    x, y, r = hand.x, hand.y, hand.radius
    colour = hand.bgr
    ang = _draw_arm_and_palm(img, hand, colour)
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


def _draw_arm_and_palm(img: Image, hand: Hand, colour: tuple[int, ...]) -> float:
    """The bare arm (from the entry, or from the wrist out of a sleeve) and the palm; returns
    the arm's direction (radians, pointing into the board)."""
    x, y, r = hand.x, hand.y, hand.radius
    ang, wx, wy = _arm_frame(hand)
    ex, ey = hand.entry if hand.sleeve_bgr is None else (wx, wy)
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
    return ang


def _arm_frame(hand: Hand) -> tuple[float, float, float]:
    """The arm's direction (radians, pointing into the board) and the wrist (pixels)."""
    ang = math.atan2(hand.y - hand.entry[1], hand.x - hand.entry[0])
    wx = hand.x - math.cos(ang) * hand.radius * 1.2
    wy = hand.y - math.sin(ang) * hand.radius * 1.2
    return ang, wx, wy


def _draw_sleeve(img: Image, hand: Hand) -> None:
    """The forearm's sleeve from `entry` to the wrist: shaded like a cylinder, with folds across
    it, plain or patterned."""
    assert hand.sleeve_bgr is not None
    ang, wx, wy = _arm_frame(hand)
    ex, ey = hand.entry
    half = hand.radius * 0.75
    h, w = img.shape[:2]
    x0 = max(0, int(min(ex, wx) - half - 2))
    x1 = min(w, int(max(ex, wx) + half + 3))
    y0 = max(0, int(min(ey, wy) - half - 2))
    y1 = min(h, int(max(ey, wy) + half + 3))
    if x1 <= x0 or y1 <= y0:
        return
    u, v = np.meshgrid(np.arange(x0, x1, dtype=np.float32), np.arange(y0, y1, dtype=np.float32))
    dx, dy = math.cos(ang), math.sin(ang)
    along = (u - ex) * dx + (v - ey) * dy  # from the entry towards the wrist
    across = -(u - ex) * dy + (v - ey) * dx
    length = math.hypot(wx - ex, wy - ey)
    inside = (np.abs(across) <= half) & (along >= -half) & (along <= length)
    if not inside.any():
        return
    t = np.clip(np.abs(across) / half, 0, 1)
    shade = 1.0 - 0.38 * t**2  # a cylinder lit from above
    folds = 1.0 - 0.16 * np.maximum(0, np.sin(along / (0.22 * hand.radius) + 0.7 * t)) ** 4
    colour = np.empty((*u.shape, 3), np.float32)
    colour[:] = hand.sleeve_bgr
    if hand.sleeve_pattern == "stripes":
        band = np.sin(along / (0.09 * hand.radius)) > 0
        colour[band] = (0.35 * np.array(hand.sleeve_bgr) + 0.65 * 235.0)[None, :]
    elif hand.sleeve_pattern == "check":
        band = (np.sin(along / (0.12 * hand.radius)) > 0) ^ (
            np.sin(across / (0.12 * hand.radius)) > 0
        )
        colour[band] = (0.3 * np.array(hand.sleeve_bgr) + 0.7 * np.array((40.0, 40.0, 190.0)))[
            None, :
        ]
    colour *= (shade * folds)[..., None]
    region = img[y0:y1, x0:x1]
    if region.ndim == 2:
        region[inside] = 255
    else:
        region[inside] = np.clip(colour[inside], 0, 255).astype(np.uint8)


def _draw_holding(img: Image, hand: Hand, held: Image) -> None:
    """A hand holding a piece from above: the palm behind it, thumb and finger on its sides."""
    x, y, r = hand.x, hand.y, hand.radius
    colour = hand.bgr if img.ndim == 3 else (255,)
    ang = _draw_arm_and_palm(img, hand, colour)
    ph, pw = held.shape[:2]
    reach = r * 0.75 + pw / 2
    cx, cy = x + math.cos(ang) * reach, y + math.sin(ang) * reach
    px0, py0 = round(cx - pw / 2), round(cy - ph / 2)
    h, w = img.shape[:2]
    sx0, sy0 = max(0, -px0), max(0, -py0)
    dx0, dy0, dx1, dy1 = max(0, px0), max(0, py0), min(w, px0 + pw), min(h, py0 + ph)
    if dx1 > dx0 and dy1 > dy0:
        src = held[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0]
        a = src[..., 3:4].astype(np.float32) / 255.0
        region = img[dy0:dy1, dx0:dx1]
        if region.ndim == 2:
            region[:] = np.maximum(region, src[..., 3])
        else:
            region[:] = (src[..., :3] * a + region * (1 - a)).astype(np.uint8)
    # thumb and finger grip the piece's two sides, across the arm's direction
    side = pw * 0.36
    for s in (-1, 1):
        fx = cx - math.sin(ang) * s * side - math.cos(ang) * pw * 0.08
        fy = cy + math.cos(ang) * s * side - math.sin(ang) * pw * 0.08
        cv2.ellipse(
            img,
            (round(fx), round(fy)),
            (round(r * 0.55), round(r * 0.17)),
            math.degrees(ang),
            0,
            360,
            colour,
            -1,
            cv2.LINE_AA,
        )
