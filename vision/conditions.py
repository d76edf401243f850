"""Camera and room for the synthetic table: light, hard shadows, glare, soft highlights, the
lens, blur, flicker, noise, a Bayer sensor and JPEG."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.lens import Lens
from vision.markers import Image


@dataclass(frozen=True)
class Light:
    """Uneven light: overall `gain`, a left-to-right and top-to-bottom slope, and a dark rim."""

    gain: float = 1.0
    slope_x: float = 0.0
    slope_y: float = 0.0
    vignette: float = 0.0


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
