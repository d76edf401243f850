"""Synthetic hands over the table: skin tones and sleeves, a hand reaching in, a hand holding
a piece, drawn on a camera frame."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.drawing import PlacedMarker
from vision.markers import Image

SKIN_BGR = (120, 150, 205)
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
