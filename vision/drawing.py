"""The table in mat space: the printed mat, and the pieces placed on it drawn (bodies,
stickers, a tall piece's sides as the camera sees them, contact shadows)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import BoardGeometry, MarkerFamily
from vision.markers import Image, marker_image

MAT_GREY = 236
LINE_GREY = 150


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
