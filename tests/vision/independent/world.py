"""An independent table renderer for the camera check (no vision renderer, synthetic or bench).

World: mat millimetres, x to the east (right), y to the south (down the printed mat), z INTO the
table (a height h above the mat is z = -h), so (x, y, z) is right-handed and a camera looking
down sees the mat unmirrored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from assemble import assemble

T = 4.0  # texture pixels per mm
PAD = 90.0  # table around the mat, mm
SS = 2  # supersampling of the camera picture


def aruco_dict(n_ids: int):
    for size in (50, 100, 250, 1000):
        if n_ids <= size:
            return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, f"DICT_4X4_{size}"))
    raise ValueError(n_ids)


def sticker_img(dic, marker_id: int, marker_mm: float, quiet_cells: float, px_per_mm: float):
    """Grey sticker: the marker (black border incl.) with a white quiet zone, as printed."""
    cell = marker_mm / 6
    side_mm = marker_mm + 2 * quiet_cells * cell
    side = round(side_mm * px_per_mm)
    m = round(marker_mm * px_per_mm)
    img = np.full((side, side), 248, np.uint8)
    mk = cv2.aruco.generateImageMarker(dic, marker_id, m * 4, borderBits=1)
    mk = cv2.resize(mk, (m, m), interpolation=cv2.INTER_AREA)
    o = (side - m) // 2
    img[o : o + m, o : o + m] = (22 + (mk.astype(np.float32) / 255.0) * (248 - 22)).astype(np.uint8)
    return img, side_mm


@dataclass
class Camera:
    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    R: np.ndarray
    C: np.ndarray  # centre in world
    size: tuple[int, int]

    def project(self, pts: np.ndarray, scale: int = 1) -> np.ndarray:
        K = self.K.copy()
        if scale != 1:
            K[:2, :2] *= scale
            K[0, 2] = K[0, 2] * scale + (scale - 1) / 2
            K[1, 2] = K[1, 2] * scale + (scale - 1) / 2
        p, _ = cv2.projectPoints(
            pts.reshape(-1, 1, 3).astype(np.float64), self.rvec, self.tvec, K, self.dist
        )
        return p.reshape(-1, 2)


def _pose(mat_w, mat_h, height_mm, tilt_deg, yaw_deg, aim):
    th = math.radians(tilt_deg)
    target = np.array([mat_w / 2 + aim[0], mat_h / 2 + aim[1], 0.0])
    # the camera leans from the south edge (players' side), slightly off to the east
    C = np.array([target[0] + 30.0, target[1] + height_mm * math.tan(th), -height_mm])
    f = target - C
    f /= np.linalg.norm(f)
    yaw = math.radians(yaw_deg)
    xh = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    x = xh - f * (f @ xh)
    x /= np.linalg.norm(x)
    y = np.cross(f, x)
    R = np.stack([x, y, f])  # world -> camera rows
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ C
    return R, rvec, tvec, C


def make_camera(mat_w, mat_h, height_mm, tilt_deg, k1, size=(1280, 720), fill=0.93, yaw_deg=1.5):
    """A camera `height_mm` above the mat, leaning `tilt_deg`, its zoom and aim set the way a
    player frames the mat: all of it in view, filling about `fill` of the frame."""
    dist = np.array([k1, 0.01, 0.0004, -0.0003, 0.0])  # a little k2 and decentring: real lenses
    W, H = size
    corners = np.array(
        [[x_, y_, 0.0] for x_ in np.linspace(0, mat_w, 9) for y_ in (0, mat_h)]
        + [[x_, y_, 0.0] for y_ in np.linspace(0, mat_h, 9) for x_ in (0, mat_w)]
    )
    aim = [0.0, 0.0]
    for _ in range(5):
        R, rvec, tvec, C = _pose(mat_w, mat_h, height_mm, tilt_deg, yaw_deg, aim)
        lo, hi = 200.0, 4000.0
        for _ in range(40):
            fm = (lo + hi) / 2
            cam = Camera(
                np.array([[fm, 0, W / 2 - 3.0], [0, fm, H / 2 + 4.0], [0, 0, 1]]),
                dist,
                rvec,
                tvec,
                R,
                C,
                size,
            )
            p = cam.project(corners)
            ok = (np.ptp(p[:, 1]) <= fill * H) and (np.ptp(p[:, 0]) <= fill * W)
            lo, hi = (fm, hi) if ok else (lo, fm)
        cam = Camera(
            np.array([[lo, 0, W / 2 - 3.0], [0, lo, H / 2 + 4.0], [0, 0, 1]]),
            dist,
            rvec,
            tvec,
            R,
            C,
            size,
        )
        p = cam.project(corners)
        du = (p[:, 0].max() + p[:, 0].min()) / 2 - W / 2
        dv = (p[:, 1].max() + p[:, 1].min()) / 2 - H / 2
        k = lo / height_mm
        aim[0] += du / k
        aim[1] += dv / k
    return cam


def plane_maps(cam: Camera, z: float = 0.0):
    """For each supersampled camera pixel: the texture coordinate of the mat point it sees."""
    W, H = cam.size[0] * SS, cam.size[1] * SS
    K = cam.K.copy()
    K[:2, :2] *= SS
    K[0, 2] = K[0, 2] * SS + (SS - 1) / 2
    K[1, 2] = K[1, 2] * SS + (SS - 1) / 2
    u, v = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    pts = np.stack([u.ravel(), v.ravel()], 1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(
        pts,
        K,
        cam.dist,
        None,
        None,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-6),
    ).reshape(-1, 2)
    d = np.concatenate([und, np.ones((und.shape[0], 1))], 1) @ cam.R  # world directions (rows)
    t = (z - cam.C[2]) / d[:, 2]
    X = cam.C[0] + t * d[:, 0]
    Y = cam.C[1] + t * d[:, 1]
    mx = ((X + PAD) * T - 0.5).reshape(H, W).astype(np.float32)
    my = ((Y + PAD) * T - 0.5).reshape(H, W).astype(np.float32)
    return mx, my, X.reshape(H, W), Y.reshape(H, W)


# ----------------------------------------------------------------------------------------------
PAPER = np.array([226, 234, 240], np.float32)  # BGR, a slightly warm matt paper
TABLE = np.array([38, 58, 86], np.float32)  # oak


def mat_texture(folder, game, w_mm, h_mm, rng):
    grey, _s = assemble(folder, game, w_mm, h_mm)
    g = cv2.resize(grey, (round(w_mm * T), round(h_mm * T)), interpolation=cv2.INTER_AREA)
    g = g.astype(np.float32) / 255.0
    tw, th = round((w_mm + 2 * PAD) * T), round((h_mm + 2 * PAD) * T)
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = TABLE
    grain = cv2.GaussianBlur(
        rng.normal(0, 1, (th, tw)).astype(np.float32), (0, 0), sigmaX=9, sigmaY=1.5
    )
    tex *= (1 + 0.12 * grain / (grain.std() + 1e-6))[..., None]
    p = round(PAD * T)
    paper = (
        PAPER[None, None, :]
        * (1 + 0.008 * cv2.GaussianBlur(rng.normal(0, 1, g.shape).astype(np.float32), (0, 0), 3))[
            ..., None
        ]
    )
    # ink: a dark grey with a bluish tint, not pure black
    ink = np.array([34, 30, 30], np.float32)
    tex[p : p + g.shape[0], p : p + g.shape[1]] = paper * g[..., None] + ink * (1 - g[..., None])
    return np.clip(tex, 0, 255).astype(np.uint8)


def rounded_mask(w, h, r):
    m = np.zeros((h, w), np.uint8)
    r = max(1, int(r))
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


TILE_MM = 40.0
TILE_COLOUR = np.array([96, 150, 196], np.float32)  # tan card, BGR


def tile_sprite(
    dic,
    marker_id,
    rotation,
    angle_deg,
    marker_mm=30.0,
    tile_mm=TILE_MM,
    rng=None,
    body=TILE_COLOUR,
    sticker_quiet=0.85,
):
    """BGR sprite and alpha (texture resolution) of a flat piece with its sticker, turned by
    `rotation` quarter turns clockwise plus `angle_deg`."""
    s_img, _s_mm = sticker_img(dic, marker_id, marker_mm, sticker_quiet, T)
    n = round(tile_mm * T)
    col = np.empty((n, n, 3), np.float32)
    col[:] = body
    if rng is not None:
        # printed track art on the tile's face: a darker band
        col *= (
            1 + 0.03 * cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 2)
        )[..., None]
        c = n // 2
        cv2.rectangle(
            col, (c - n // 8, 0), (c + n // 8, n - 1), tuple(float(v) for v in body * 0.72), -1
        )
    o = (n - s_img.shape[0]) // 2
    sticker = np.repeat(s_img[..., None].astype(np.float32), 3, 2) * np.array(
        [0.985, 1.0, 1.0], np.float32
    )
    col[o : o + s_img.shape[0], o : o + s_img.shape[1]] = sticker
    col = np.rot90(col, k=-rotation).copy()
    alpha = rounded_mask(n, n, 1.5 * T).astype(np.float32) / 255.0
    # turn by a small angle about the centre, on a canvas big enough
    big = int(n * 1.2) + 4
    canvas = np.zeros((big, big, 3), np.float32)
    acan = np.zeros((big, big), np.float32)
    q = (big - n) // 2
    canvas[q : q + n, q : q + n] = col
    acan[q : q + n, q : q + n] = alpha
    M = cv2.getRotationMatrix2D((big / 2 - 0.5, big / 2 - 0.5), -angle_deg, 1.0)
    canvas = cv2.warpAffine(canvas, M, (big, big), flags=cv2.INTER_LINEAR)
    acan = cv2.warpAffine(acan, M, (big, big), flags=cv2.INTER_LINEAR)
    return canvas, acan


def paste(tex, sprite, alpha, cx_mm, cy_mm):
    """Alpha-paste a sprite centred at a mat point (texture is uint8)."""
    h, w = alpha.shape
    x0 = round((cx_mm + PAD) * T - w / 2)
    y0 = round((cy_mm + PAD) * T - h / 2)
    ys, xs, sy, sx = _clip(tex, x0, y0, w, h)
    if ys is None:
        return
    roi = tex[ys, xs].astype(np.float32)
    a = alpha[sy, sx][..., None]
    tex[ys, xs] = np.clip(roi * (1 - a) + sprite[sy, sx] * a, 0, 255).astype(np.uint8)


def _clip(tex, x0, y0, w, h):
    X0, Y0 = max(x0, 0), max(y0, 0)
    X1, Y1 = min(x0 + w, tex.shape[1]), min(y0 + h, tex.shape[0])
    if X1 <= X0 or Y1 <= Y0:
        return None, None, None, None
    return slice(Y0, Y1), slice(X0, X1), slice(Y0 - y0, Y1 - y0), slice(X0 - x0, X1 - x0)


def shade(tex, alpha, cx_mm, cy_mm, strength, sigma_mm, dx_mm, dy_mm, grow_mm=0.0):
    """A contact shadow: the footprint, grown, blurred with a box-then-Gaussian (not a plain
    Gaussian), offset away from the lamp, darkening the texture."""
    h, w = alpha.shape
    pad = int(4 * sigma_mm * T + abs(dx_mm * T) + abs(dy_mm * T) + grow_mm * T) + 2
    m = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
    m[pad : pad + h, pad : pad + w] = alpha
    if grow_mm > 0:
        k = max(1, int(grow_mm * T))
        m = cv2.dilate(m, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    k = max(1, int(sigma_mm * T))
    m = cv2.blur(m, (2 * k + 1, 2 * k + 1))
    m = cv2.GaussianBlur(m, (0, 0), sigma_mm * T * 0.6)
    M = np.float32([[1, 0, dx_mm * T], [0, 1, dy_mm * T]])
    m = cv2.warpAffine(m, M, (m.shape[1], m.shape[0]))
    H_, W_ = m.shape
    x0 = round((cx_mm + PAD) * T - W_ / 2)
    y0 = round((cy_mm + PAD) * T - H_ / 2)
    ys, xs, sy, sx = _clip(tex, x0, y0, W_, H_)
    if ys is None:
        return
    roi = tex[ys, xs].astype(np.float32)
    f = 1 - strength * m[sy, sx][..., None]
    tex[ys, xs] = np.clip(roi * f, 0, 255).astype(np.uint8)
