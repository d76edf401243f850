"""Colour judged against the mat: white balance, chroma, a piece's body colour, texture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.markers import Image


def chroma(bgr: Image) -> Image:
    """How far each pixel is from neutral grey: the distance of its Cr and Cb from 128."""
    return chroma_of(cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb))


def chroma_of(ycc: Image) -> Image:
    """`chroma` from the pixels already in YCrCb (8-bit)."""
    cr = ycc[..., 1].astype(np.int16)
    cb = ycc[..., 2].astype(np.int16)
    cr -= 128
    cb -= 128
    out: Image = np.abs(cr)
    out += np.abs(cb)
    return out


def texture(luma: Image, sigma: float) -> Image:
    """Local texture: the mean relative deviation from the smooth light, over about `sigma`."""
    smooth = cv2.GaussianBlur(luma, (0, 0), sigma)
    dev = np.abs(luma / smooth - 1.0)
    out: Image = cv2.GaussianBlur(dev, (0, 0), sigma / 2)
    return out


@dataclass(frozen=True)
class Colours:
    """A crop's brightness (the sum of its channels, each plus one) and chromaticity (each
    channel's share of it), worked out once for the comparison with every piece's body."""

    total: Image
    chroma: tuple[Image, Image, Image]

    @staticmethod
    def of(wb: Image) -> Colours:
        px = wb.astype(np.float32) + 1.0
        b, g, r = px[..., 0], px[..., 1], px[..., 2]
        total = b + g + r  # as px.sum(axis=2) adds them, a plane at a time (numpy's reductions
        # over a 3-wide last axis cost ten times as much)
        return Colours(total, (b / total, g / total, r / total))


def similar(wb: Image, body: Any, colours: Colours | None = None) -> Image:
    """Pixels of the body's colour, lit brighter or darker (a shadow across a piece)."""
    c = colours if colours is not None else Colours.of(wb)
    ratio = c.total / float(body.sum())
    chroma_body = body / float(body.sum())
    far = np.abs(c.chroma[0] - chroma_body[0])
    np.maximum(far, np.abs(c.chroma[1] - chroma_body[1]), out=far)
    np.maximum(far, np.abs(c.chroma[2] - chroma_body[2]), out=far)
    out: Image = ((far <= 0.06) & (ratio >= 0.4) & (ratio <= 1.6)).astype(np.uint8)
    return out


def skin_fraction(bgr: Image) -> float:
    """Share of pixels whose colour falls in the usual skin range of YCrCb (any brightness)."""
    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    mask = cv2.inRange(ycc, (40, 138, 77), (255, 178, 127))
    return float(np.count_nonzero(mask)) / max(1, mask.size)


def white_balance_gains(mat_bgr: tuple[float, float, float] | None) -> tuple[float, float, float]:
    """Per-channel gains that make the mat's colour neutral (its brightness kept), within 0.5-2."""
    if mat_bgr is None or min(mat_bgr) <= 1.0:
        return (1.0, 1.0, 1.0)
    mean = sum(mat_bgr) / 3
    b, g, r = (min(2.0, max(0.5, mean / c)) for c in mat_bgr)
    return b, g, r


def balance(bgr: Image, gains: tuple[float, float, float]) -> Image:
    """`bgr` with each channel multiplied by its gain (saturating)."""
    if all(abs(g - 1.0) < 0.01 for g in gains):
        return bgr
    out: Image = cv2.transform(bgr, np.diag(np.array(gains, dtype=np.float32)))
    return out
