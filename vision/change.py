"""Change on the warped board: per-location motion between frames, and settled-view comparison
that tells a real change from a change of light."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.markers import Image

IntArray = NDArray[np.intp]


@dataclass(frozen=True)
class CellBoxes:
    """Each location's rectangle on the small warped board, as cell index bounds (end exclusive)."""

    names: tuple[str, ...]
    x0: IntArray
    y0: IntArray
    x1: IntArray
    y1: IntArray

    def patch(self, img: Image, i: int) -> Image:
        return img[self.y0[i] : self.y1[i], self.x0[i] : self.x1[i]]


def motion_counts(prev: Image, cur: Image, boxes: CellBoxes, threshold: int) -> IntArray:
    """Per location, how many cells differ by more than `threshold` grey levels between frames."""
    mask = (cv2.absdiff(prev, cur) > threshold).astype(np.uint8)
    integral = cv2.integral(mask)
    counts: IntArray = (
        integral[boxes.y1, boxes.x1]
        - integral[boxes.y0, boxes.x1]
        - integral[boxes.y1, boxes.x0]
        + integral[boxes.y0, boxes.x0]
    ).astype(np.intp)
    return counts


@dataclass(frozen=True)
class Comparison:
    """Settled-view comparison: locations really changed, and those only re-lit (shadow, lamp)."""

    changed: frozenset[str]
    relit: frozenset[str]
    light_gain: float


@dataclass(frozen=True)
class ChangeThresholds:
    """Knobs of the settled comparison (see `compare`)."""

    structure_z: float = 0.9
    structure_fraction: float = 0.03
    structure_cells: int = 0  # or this many cells, when fewer (0: no such cap): a small piece
    # leaving a long slot (the last wagon off a starting area) changes too few of its cells
    level_log: float = 0.3
    raw_fraction: float = 0.03
    raw_level: int = 14
    flat_floor: float = 0.06


def compare(
    ref: Image, cur: Image, boxes: CellBoxes, t: ChangeThresholds = ChangeThresholds()
) -> Comparison:
    """Compare two still views of the warped board, location by location.

    Light changes multiply brightness smoothly over the mat, so the per-location gain is fitted
    with a plane in log space (robustly: outliers, the real changes, are dropped and the fit is
    redone). After dividing out that field a location changed if its pattern changed (cells whose
    z-score moved by more than `structure_z`, over `structure_fraction` of the cells or over
    `structure_cells` cells, whichever is fewer; flat patches
    have their spread floored so noise cannot count) or its brightness moved by more than
    `level_log`. A location that differs raw but not after this is only re-lit.
    """
    n = len(boxes.names)
    refs = [boxes.patch(ref, i).astype(np.float32) + 1.0 for i in range(n)]
    curs = [boxes.patch(cur, i).astype(np.float32) + 1.0 for i in range(n)]
    log_gain = np.array([np.log(c.mean() / r.mean()) for r, c in zip(refs, curs, strict=True)])
    cx = (boxes.x0 + boxes.x1) / 2.0
    cy = (boxes.y0 + boxes.y1) / 2.0
    design = np.column_stack([np.ones(n), cx / max(1.0, cx.max()), cy / max(1.0, cy.max())])
    keep = np.ones(n, dtype=bool)
    fitted = np.zeros(n)
    for _ in range(3):
        if keep.sum() < 3:
            fitted = np.full(n, float(np.median(log_gain)))
            break
        coef, *_ = np.linalg.lstsq(design[keep], log_gain[keep], rcond=None)
        fitted = design @ coef
        keep = np.abs(log_gain - fitted) < 0.1
    changed: set[str] = set()
    relit: set[str] = set()
    for i, name in enumerate(boxes.names):
        r, c = refs[i], curs[i] / float(np.exp(fitted[i]))
        raw = np.count_nonzero(np.abs(curs[i] - r) > t.raw_level) > t.raw_fraction * r.size
        if _really_changed(r, c, t):
            changed.add(name)
        elif raw:
            relit.add(name)
    return Comparison(frozenset(changed), frozenset(relit), float(np.exp(np.median(fitted))))


def _really_changed(r: NDArray[np.float32], c: NDArray[np.float32], t: ChangeThresholds) -> bool:
    mr, mc = float(r.mean()), float(c.mean())
    if abs(np.log(mc / mr)) > t.level_log:
        return True
    floor = t.flat_floor * mr
    zr = (r - mr) / max(float(r.std()), floor)
    zc = (c - mc) / max(float(c.std()), floor)
    moved = np.count_nonzero(np.abs(zr - zc) > t.structure_z)
    limit = t.structure_fraction * r.size
    if t.structure_cells:
        limit = min(limit, t.structure_cells)
    return bool(moved > limit)


@dataclass(frozen=True)
class RowBands:
    """Which band of camera rows each cell of the small board was seen in.

    A mains-powered LED lamp flickers at twice the mains frequency; a rolling-shutter camera reads
    its rows one after another, so the flicker shows as horizontal bands of brightness across the
    *frame* that roll from frame to frame. On the small board those bands follow the camera's rows
    (tilted, turned, bent by the lens), so cells are grouped by the frame row they came from.
    """

    index: IntArray  # per cell, its band (same shape as the small board)
    count: int
    sizes: IntArray  # cells per band

    @staticmethod
    def from_rows(frame_rows: NDArray[np.float64], band_px: float) -> RowBands:
        """Bands of `band_px` frame rows from each cell's frame row (small-board shaped)."""
        lo = float(frame_rows.min())
        index = np.floor((frame_rows - lo) / band_px).astype(np.intp)
        count = int(index.max()) + 1
        sizes = np.bincount(index.ravel(), minlength=count).astype(np.intp)
        return RowBands(index, count, sizes)

    def banded(self, differs: NDArray[np.bool_], share: float = 0.3) -> bool:
        """Whether the cells that differ between two frames fill `share` of some band (flicker
        fills whole bands; a hand moving fills a small part of the bands it crosses)."""
        hits = np.bincount(self.index[differs], minlength=self.count)
        return bool(np.any(hits > share * np.maximum(self.sizes, 1)))


_LOG = np.log(np.arange(256, dtype=np.float32) + 1.0)


def band_gains(
    ref: Image,
    cur: Image,
    bands: RowBands,
    dark: int = 32,
    bright: int = 250,
    min_cells: int = 6,
    stride: int = 3,
) -> NDArray[np.float32]:
    """Per band of camera rows, the log brightness gain from `ref` to `cur`, robustly.

    Every `stride`-th column of cells is used. Cells too dark to measure a ratio (marker bits) or
    saturated are left out; each band's gain is the mean log ratio of its cells, refined twice on
    the cells near the last estimate, so a hand or a piece moved across part of a band does not
    pull it. Bands with too few cells take their neighbours' gain.
    """
    r, c = ref[:, ::stride], cur[:, ::stride]
    valid = (r > dark) & (c > dark) & (r < bright) & (c < bright)
    idx = bands.index[:, ::stride][valid]
    log_ratio = _LOG[c[valid]] - _LOG[r[valid]]
    n = bands.count
    gain = np.zeros(n, np.float64)
    for window in (0.35, 0.12, 0.05):
        near = np.abs(log_ratio - gain[idx]) < window
        counts = np.bincount(idx[near], minlength=n)
        sums = np.bincount(idx[near], weights=log_ratio[near], minlength=n)
        ok = counts >= min_cells
        if not ok.any():
            return np.zeros(n, np.float32)
        gain = np.interp(np.arange(n), np.flatnonzero(ok), sums[ok] / counts[ok])
    return gain.astype(np.float32)


def divide_gains(cur: Image, bands: RowBands, gains: NDArray[np.float32]) -> Image:
    """`cur` with each band's gain divided out (8-bit, as the small board)."""
    scale = np.exp(-gains)[bands.index]
    out: Image = np.clip(cur * scale + 0.5, 0, 255).astype(np.uint8)
    return out
