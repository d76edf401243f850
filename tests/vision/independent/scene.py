"""Frames of a table: flat pieces on the mat texture, minecarts as 3-D boxes, hovering tiles,
hands and arms, then the camera: optics, vignetting, colour cast, flicker, noise, JPEG."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import world as W


@dataclass
class Piece:
    marker_id: int
    rotation: int
    dx: float = 0.0  # offset from the square's centre, mm
    dy: float = 0.0
    angle: float = 0.0  # small twist, degrees
    cart: bool = False
    colour: tuple = (40, 40, 190)
    card: bool = False


@dataclass
class Hand:
    x: float  # palm centre, mm
    y: float
    z: float  # height above the mat, mm
    toward: float  # direction of the arm (radians, where the arm goes off the mat)
    skin: tuple
    sleeve: tuple | None
    held: Piece | None = None  # a tile pinched in the fingers


@dataclass
class Conditions:
    name: str
    tilt: float = 15.0
    k1: float = -0.1
    blur: float = 0.8
    noise: float = 1.0  # scale of the sensor noise
    jpeg: int = 78
    shadow: float = 0.0  # darkening of the shadow side
    shadow_edge_mm: float = 12.0
    glare: list = field(default_factory=list)  # (x, y, radius core mm, halo mm, peak)
    flicker: float = 0.0
    skins: tuple = ()
    gain: float = 1.0
    hover: bool = False
    rest: bool = False


SKINS = {
    "light": (150, 178, 226),
    "medium": (104, 142, 196),
    "olive": (92, 132, 170),
    "brown": (62, 92, 136),
    "dark": (42, 58, 88),
    "very dark": (28, 38, 58),
}
SLEEVES = [(60, 40, 30), (200, 200, 205), (40, 40, 140), (90, 110, 60), None]
CART_COLOURS = {  # BGR bodies, painted wood (not the renderer's own colours)
    10: (45, 52, 170),
    11: (60, 40, 150),
    12: (40, 175, 215),
    13: (30, 150, 190),
    14: (70, 140, 60),
    15: (50, 110, 40),
    16: (160, 90, 40),
    17: (130, 70, 30),
}


class Renderer:
    def __init__(self, layout, catalogue, cond: Conditions, seed: int, mat_folder: str):
        self.layout = layout
        self.cond = cond
        self.rng = np.random.default_rng(seed)
        ids = [c.marker_id for c in layout.corner_markers] + [
            e.marker_id for e in catalogue.entries
        ]
        self.dic = W.aruco_dict(max(ids) + 1)
        self.sizes = {e.marker_id: e.size_mm for e in catalogue.entries}
        self.squares = {loc.name: loc for loc in layout.locations}
        self.base = W.mat_texture(
            mat_folder, catalogue.game, layout.width_mm, layout.height_mm, self.rng
        )
        self.cam = W.make_camera(layout.width_mm, layout.height_mm, 850.0, cond.tilt, cond.k1)
        mx, my, X, Y = W.plane_maps(self.cam)
        self.mx, self.my = mx, my
        self.light = self._light(X, Y)  # per supersampled pixel, multiplicative
        self.glare = self._glare(X, Y)  # additive
        self.sprites: dict = {}
        self.frame_no = 0
        h, w = self.cam.size[1], self.cam.size[0]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self.vignette = (1 - 0.22 * r2 - 0.06 * r2 * r2)[..., None]
        self.cast = np.array([0.94, 1.0, 1.05], np.float32)  # a warm lamp
        self.blur_kernel = self._kernel(cond.blur)

    # --- light -----------------------------------------------------------------------------
    def _light(self, X, Y):
        c = self.cond
        L = 1.0 - 0.10 * (X / self.layout.width_mm) + 0.05 * (Y / self.layout.height_mm)
        if c.shadow > 0:
            # a straight shadow edge (a shelf, a person) slanting across the mat
            d = (X * 0.8 - Y * 0.6) - (
                0.8 * self.layout.width_mm * 0.55 - 0.6 * self.layout.height_mm * 0.5
            )
            e = max(c.shadow_edge_mm, 0.5)
            t = np.clip(0.5 + d / e, 0, 1)  # linear ramp over the penumbra (not an erf)
            t = t * t * (3 - 2 * t)
            L = L * (1 - c.shadow * t)
        return (L * c.gain).astype(np.float32)

    def _glare(self, X, Y):
        G = np.zeros(X.shape, np.float32)
        for gx, gy, core, halo, peak in self.cond.glare:
            r = np.hypot(X - gx, (Y - gy) * 1.3)
            G += peak * np.exp(-((r / halo) ** 2)) + 260.0 * (r < core) * np.clip(
                (core - r) / 1.5, 0, 1
            )
        return G

    def _kernel(self, sigma):
        # a pillbox (defocus) convolved with a small Gaussian: not a pure Gaussian
        R = max(0.6, sigma * 1.3)
        n = math.ceil(R + 3 * 0.45 * sigma) * 2 + 1
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - n // 2
        disk = np.clip(R + 0.5 - np.hypot(xx, yy), 0, 1)
        disk /= disk.sum()
        k = cv2.GaussianBlur(disk, (0, 0), 0.45 * sigma)
        return (k / k.sum()).astype(np.float32)

    # --- pieces ----------------------------------------------------------------------------
    def sprite(self, p: Piece):
        key = (p.marker_id, p.rotation, round(p.angle, 2), p.card)
        if key not in self.sprites:
            if p.card:
                self.sprites[key] = W.tile_sprite(
                    self.dic,
                    p.marker_id,
                    p.rotation,
                    p.angle,
                    40.0,
                    60.0,
                    None,
                    np.array([236, 240, 242], np.float32),
                    1.0,
                )
            else:
                self.sprites[key] = W.tile_sprite(
                    self.dic,
                    p.marker_id,
                    p.rotation,
                    p.angle,
                    self.sizes[p.marker_id],
                    W.TILE_MM,
                    self.rng,
                )
        return self.sprites[key]

    def frame(self, board: dict[str, list[Piece]], hands: list[Hand]) -> np.ndarray:
        tex = self.base.copy()
        carts = []
        for name, pieces in board.items():
            loc = self.squares[name]
            for p in pieces:
                cx, cy = loc.x_mm + p.dx, loc.y_mm + p.dy
                if p.cart:
                    carts.append((p, cx, cy))
                    continue
                spr, a = self.sprite(p)
                # contact shadow: the lamp stands north-west, so the shadow falls south-east
                W.shade(tex, a, cx, cy, 0.28, 1.2, 0.7, 0.9, grow_mm=0.3)
                W.paste(tex, spr, a, cx, cy)
        for _p, cx, cy in carts:  # a cart's soft shadow on the tile / mat
            a = W.rounded_mask(int(26 * W.T), int(26 * W.T), 3 * W.T).astype(np.float32) / 255
            W.shade(tex, a, cx, cy, 0.35, 2.5, 3.0, 4.0)
        for h in hands:  # a hand's shadow, soft, displaced by its height
            a = np.zeros((int(120 * W.T), int(120 * W.T)), np.float32)
            cv2.ellipse(
                a,
                (a.shape[1] // 2, a.shape[0] // 2),
                (int(40 * W.T), int(50 * W.T)),
                0,
                0,
                360,
                1.0,
                -1,
            )
            W.shade(
                tex,
                a,
                h.x + 0.15 * h.z,
                h.y + 0.2 * h.z,
                min(0.3, 0.006 * h.z + 0.1),
                6 + 0.1 * h.z,
                0,
                0,
            )
        img = cv2.remap(
            tex,
            self.mx,
            self.my,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=tuple(float(v) for v in W.TABLE),
        )
        occ = np.zeros(img.shape[:2], np.uint8)  # where 3-D things hide the glossy mat
        for p, cx, cy in sorted(
            carts, key=lambda c: -np.hypot(c[1] - self.cam.C[0], c[2] - self.cam.C[1])
        ):
            self._cart(img, occ, p, cx, cy)
        for h in hands:
            self._hand(img, occ, h)
        f = img.astype(np.float32) * self.light[..., None]
        small = cv2.resize(f, self.cam.size, interpolation=cv2.INTER_AREA)
        # a specular reflection clips the sensor whatever the lamp's colour: added at the sensor
        g = cv2.resize(self.glare * (occ == 0), self.cam.size, interpolation=cv2.INTER_AREA)
        return self._sensor(small, g)

    def _quad(self, img, occ, pts3, colour=None, texture=None):
        p = self.cam.project(np.asarray(pts3, np.float64), W.SS).astype(np.float32)
        if texture is None:
            cv2.fillConvexPoly(
                img,
                np.round(p * 16).astype(np.int32),
                tuple(float(c) for c in colour),
                cv2.LINE_8,
                4,
            )
            cv2.fillConvexPoly(occ, np.round(p * 16).astype(np.int32), 255, cv2.LINE_8, 4)
            return
        th, tw = texture.shape[:2]
        src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
        M = cv2.getPerspectiveTransform(src, p)
        x0, y0 = np.floor(p.min(0)).astype(int) - 2
        x1, y1 = np.ceil(p.max(0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
        if x1 <= x0 or y1 <= y0:
            return
        Tm = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
        warped = cv2.warpPerspective(
            texture.astype(np.float32),
            Tm,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_AREA if False else cv2.INTER_LINEAR,
        )
        mask = cv2.warpPerspective(np.ones((th, tw), np.float32), Tm, (x1 - x0, y1 - y0))
        roi = img[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(
            roi * (1 - mask[..., None]) + warped * mask[..., None], 0, 255
        ).astype(np.uint8)
        occ[y0:y1, x0:x1][mask > 0.5] = 255

    def _cart(self, img, occ, p: Piece, cx, cy):
        top, foot, h = 15.0, 12.5, 30.0  # half sides: a minecart widens towards its rim
        a = math.radians(p.angle)
        ca, sa = math.cos(a), math.sin(a)

        def pt(u, v, z):
            return [cx + u * ca - v * sa, cy + u * sa + v * ca, -z]

        corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        body = np.array(p.colour, np.float32)
        faces = []
        for i in range(4):
            (u0, v0), (u1, v1) = corners[i], corners[(i + 1) % 4]
            quad = [
                pt(u0 * foot, v0 * foot, 2.0),
                pt(u1 * foot, v1 * foot, 2.0),
                pt(u1 * top, v1 * top, h),
                pt(u0 * top, v0 * top, h),
            ]
            q = np.array(quad)
            centre = q.mean(0)
            n = np.array(
                [
                    (u0 + u1) / 2 * ca - (v0 + v1) / 2 * sa,
                    (u0 + u1) / 2 * sa + (v0 + v1) / 2 * ca,
                    0.0,
                ]
            )
            to_cam = self.cam.C - centre
            if n @ to_cam <= 0:
                continue
            lightness = 0.50 + 0.22 * max(0.0, n @ np.array([-0.6, -0.8, 0]))
            faces.append((-np.linalg.norm(to_cam), quad, body * lightness))
        for _, quad, col in sorted(faces, key=lambda f: f[0]):
            self._quad(img, occ, quad, col)
        # the top: a rim of body colour around the 20 mm sticker
        spr = self._cart_top(p)
        self._quad(
            img,
            occ,
            [pt(-top, -top, h), pt(top, -top, h), pt(top, top, h), pt(-top, top, h)],
            texture=spr,
        )

    def _cart_top(self, p: Piece):
        key = ("cart", p.marker_id, p.rotation, p.colour)
        if key not in self.sprites:
            n = int(30 * W.T)
            s_img, _ = W.sticker_img(self.dic, p.marker_id, self.sizes[p.marker_id], 1.0, W.T)
            col = np.empty((n, n, 3), np.float32)
            col[:] = np.array(p.colour, np.float32) * 0.92
            o = (n - s_img.shape[0]) // 2
            col[o : o + s_img.shape[0], o : o + s_img.shape[1]] = s_img[..., None]
            self.sprites[key] = np.rot90(col, k=-p.rotation).copy()
        return self.sprites[key]

    def _hand(self, img, occ, h: Hand):
        skin = np.array(h.skin, np.float32)
        ux, uy = math.cos(h.toward), math.sin(h.toward)  # towards the arm
        vx, vy = -uy, ux
        if h.held is not None:
            # the tile hangs just below the fingers, in front of the palm
            spr, _ = self.sprite(h.held)
            s = W.TILE_MM / 2
            tx, ty, tz = h.x - ux * 120, h.y - uy * 120, h.z - 8
            a = math.radians(h.held.angle)
            quad = [
                [
                    tx + (-s) * math.cos(a) - (-s) * math.sin(a),
                    ty + (-s) * math.sin(a) + (-s) * math.cos(a),
                    -tz,
                ],
                [
                    tx + s * math.cos(a) - (-s) * math.sin(a),
                    ty + s * math.sin(a) + (-s) * math.cos(a),
                    -tz,
                ],
                [
                    tx + s * math.cos(a) - s * math.sin(a),
                    ty + s * math.sin(a) + s * math.cos(a),
                    -tz,
                ],
                [
                    tx + (-s) * math.cos(a) - s * math.sin(a),
                    ty + (-s) * math.sin(a) + s * math.cos(a),
                    -tz,
                ],
            ]
            n = int(W.TILE_MM * W.T)
            self._quad(
                img,
                occ,
                quad,
                texture=spr[
                    (spr.shape[0] - n) // 2 : (spr.shape[0] + n) // 2,
                    (spr.shape[1] - n) // 2 : (spr.shape[1] + n) // 2,
                ],
            )

        def P(a, b, z):  # a along the arm (towards the player), b across, at height z
            return [h.x + a * ux + b * vx, h.y + a * uy + b * vy, -z]

        # the arm: strips across its width, shaded like a cylinder lit from the north-west
        length, half = 700.0, 40.0
        strips = 8
        for _part, (a0, a1, col) in enumerate(
            [(30, 110, skin), (110, length, np.array(h.sleeve, np.float32) if h.sleeve else skin)]
        ):
            for i in range(strips):
                b0 = -half + 2 * half * i / strips
                b1 = -half + 2 * half * (i + 1) / strips
                t = (b0 + b1) / 2 / half
                lit = 0.62 + 0.38 * math.sqrt(max(0.0, 1 - t * t)) + 0.08 * t
                z = h.z + 25 * math.sqrt(max(0.0, 1 - t * t)) + 0.10 * a0
                self._quad(
                    img,
                    occ,
                    [
                        P(a0, b0, z),
                        P(a1, b0, z + 0.1 * (a1 - a0)),
                        P(a1, b1, z + 0.1 * (a1 - a0)),
                        P(a0, b1, z),
                    ],
                    col * lit,
                )
        # the palm: an ellipse of points, then four fingers and a thumb
        ell = [
            P(45 * math.cos(t), 42 * math.sin(t), h.z + 18)
            for t in np.linspace(0, 2 * math.pi, 24, endpoint=False)
        ]
        p2 = self.cam.project(np.array(ell), W.SS)
        cv2.fillPoly(
            img,
            [np.round(p2 * 16).astype(np.int32)],
            tuple(float(c) for c in skin * 0.95),
            cv2.LINE_8,
            4,
        )
        cv2.fillPoly(occ, [np.round(p2 * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
        for k, (b, ln, w) in enumerate(
            [(-27, 62, 8.5), (-9, 72, 9), (9, 70, 9), (26, 58, 8), (46, 40, 10)]
        ):
            ang = 0.35 if k == 4 else 0.0
            a0 = -35 if k < 4 else 0
            end_a = a0 - ln * math.cos(ang)
            end_b = b + ln * math.sin(ang) * (1 if k == 4 else 0)
            pts = []
            for s_ in (-1, 1):
                pts.append(P(a0, b + s_ * w, h.z + 12))
            for s_ in (1, -1):
                pts.append(P(end_a, end_b + s_ * w * 0.85, h.z + 6))
            self._quad(img, occ, [pts[0], pts[1], pts[2], pts[3]], skin * (0.9 - 0.03 * k))

    # --- the camera ------------------------------------------------------------------------
    def _sensor(self, f: np.ndarray, glare: np.ndarray) -> np.ndarray:
        c = self.cond
        f = f * self.vignette * self.cast + glare[..., None]
        f = cv2.filter2D(f, -1, self.blur_kernel, borderType=cv2.BORDER_REFLECT)
        if c.flicker > 0:
            rows = np.arange(f.shape[0], dtype=np.float32)
            period = 131.0
            phase = 2 * math.pi * (0.29 * self.frame_no + 0.1)
            band = 1 + c.flicker / 2 * np.sin(2 * math.pi * rows / period + phase)
            f = f * band[:, None, None]
        self.frame_no += 1
        # sensor noise: shot noise (variance grows with the signal) + read noise, a little
        # shared between channels (demosaicing correlates them)
        shot = np.sqrt(np.maximum(f, 0) * 0.35) * c.noise
        common = self.rng.normal(0, 1, f.shape[:2]).astype(np.float32)[..., None]
        indep = self.rng.normal(0, 1, f.shape).astype(np.float32)
        f = (
            f
            + shot * (0.6 * common + 0.8 * indep)
            + 1.2 * c.noise * self.rng.normal(0, 1, f.shape).astype(np.float32)
        )
        out = np.clip(f, 0, 255).astype(np.uint8)
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, c.jpeg])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
