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
    groups = _same_shapes(boxes)
    refs = [_stack(ref, boxes, idx) for idx in groups]
    curs = [_stack(cur, boxes, idx) for idx in groups]
    log_gain = np.zeros(n)
    for idx, r, c in zip(groups, refs, curs, strict=True):
        log_gain[idx] = np.log(c.mean(axis=(1, 2)) / r.mean(axis=(1, 2)))
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
    really = np.zeros(n, dtype=bool)
    raw = np.zeros(n, dtype=bool)
    for idx, r, c in zip(groups, refs, curs, strict=True):
        size = r[0].size
        raw[idx] = np.count_nonzero(np.abs(c - r) > t.raw_level, axis=(1, 2)) > (
            t.raw_fraction * size
        )
        gain = np.exp(fitted[idx]).astype(np.float32)
        really[idx] = _really_changed(r, c / gain[:, None, None], t)
    changed = {name for name, yes in zip(boxes.names, really, strict=True) if yes}
    relit = {name for name, yes, no in zip(boxes.names, raw, really, strict=True) if yes and not no}
    return Comparison(frozenset(changed), frozenset(relit), float(np.exp(np.median(fitted))))


def _same_shapes(boxes: CellBoxes) -> list[IntArray]:
    """The locations grouped by the shape of their boxes (indices), to be compared together."""
    shapes: dict[tuple[int, int], list[int]] = {}
    heights, widths = boxes.y1 - boxes.y0, boxes.x1 - boxes.x0
    for i, shape in enumerate(zip(heights.tolist(), widths.tolist(), strict=True)):
        shapes.setdefault(shape, []).append(i)
    return [np.array(idx, dtype=np.intp) for idx in shapes.values()]


def _stack(img: Image, boxes: CellBoxes, idx: IntArray) -> NDArray[np.float32]:
    """The boxes `idx` (all of one shape) of `img`, one above another, as float32 plus one."""
    h = int(boxes.y1[idx[0]] - boxes.y0[idx[0]])
    w = int(boxes.x1[idx[0]] - boxes.x0[idx[0]])
    rows = boxes.y0[idx][:, None, None] + np.arange(h)[None, :, None]
    cols = boxes.x0[idx][:, None, None] + np.arange(w)[None, None, :]
    out: NDArray[np.float32] = img[rows, cols].astype(np.float32) + 1.0
    return out


def _really_changed(
    r: NDArray[np.float32], c: NDArray[np.float32], t: ChangeThresholds
) -> NDArray[np.bool_]:
    """Per location of a stack of patches (location, row, column): whether its pattern or its
    brightness changed from `r` to `c` (`c` with the light's field divided out)."""
    mr = r.mean(axis=(1, 2), keepdims=True)
    mc = c.mean(axis=(1, 2), keepdims=True)
    level = np.abs(np.log(mc / mr)).ravel() > t.level_log
    floor = t.flat_floor * mr
    zr = (r - mr) / np.maximum(r.std(axis=(1, 2), keepdims=True), floor)
    zc = (c - mc) / np.maximum(c.std(axis=(1, 2), keepdims=True), floor)
    moved = np.count_nonzero(np.abs(zr - zc) > t.structure_z, axis=(1, 2))
    limit = t.structure_fraction * r[0].size
    if t.structure_cells:
        limit = min(limit, t.structure_cells)
    out: NDArray[np.bool_] = level | (moved > limit)
    return out


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
