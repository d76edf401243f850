"""Whether a location shows plain mat: its paper, its printed outline, the light on it, and a
hard shadow's edge (light, not a cover)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.colour import chroma
from vision.decode_settings import DecodeSettings
from vision.geometry import Rect
from vision.markers import Image


@dataclass(frozen=True)
class PlainMat:
    """What plain mat looks like in this frame: `mat_white` is its white's brightness; the
    rest is in `settings`."""

    settings: DecodeSettings
    mat_white: float

    def shadow_edge(
        self, cover: Image, wb: Image, luma: Image, inner: Image, colour: Image | None = None
    ) -> bool:
        """Whether all that covers the location is the edge of a hard shadow: a narrow band
        along one straight line right across it, with plain paper on both sides at two levels
        of light. (The cover test divides the light out with a Gaussian, which turns a step of
        light into texture along it; a hand, an arm or a coloured or textured sleeve covers
        more than a band, and a sleeve's rounded shading is judged later, with the paper.)"""
        s = self.settings
        p = s.px_per_mm
        ys, xs = np.nonzero(cover)
        if len(xs) < 10:
            return False
        line = one_line(ys, xs, 2.5 * p)
        if line is None:
            return False  # more than a band along one line
        vx, vy, x0, y0 = line
        iy, ix = np.nonzero(inner)
        across = (ix - x0) * vy - (iy - y0) * vx  # signed distance from the line
        along = (ix - x0) * vx + (iy - y0) * vy
        chord = along[np.abs(across) <= 1.0]
        extent = (xs - x0) * vx + (ys - y0) * vy
        if len(chord) == 0 or float(np.ptp(extent)) < 0.8 * float(np.ptp(chord)):
            return False  # it stops inside the location: an edge of something lying there
        level = luma[iy, ix]
        neutral = (chroma(wb) if colour is None else colour)[iy, ix] <= s.paper_chroma
        paper = neutral & (level >= s.min_brightness * self.mat_white)
        sides = []
        for side in (across > 3.0 * p, across < -3.0 * p):
            light = level[side & paper & (np.abs(across) < 12.0 * p)]
            if len(light) < 4 * p * p:
                return False
            median = float(np.median(light))
            if float(np.percentile(light, 90) - np.percentile(light, 10)) > 0.12 * median:
                return False  # not flat paper on that side
            sides.append(median)
        return min(sides) < 0.85 * max(sides)

    def outline_seen(self, luma: Image, rect: Rect, hidden: Image) -> bool:
        """Whether the location's printed outline shows: averaged along each side (clear of its
        corners, its name and what tall pieces hide), a narrow line near where the calibration
        puts the edge (within 2.5 mm), darker than the flat paper just inside it and than what
        lies just beyond it. A side with nothing brighter than the line just beyond it (a
        neighbour's piece, its shadow) cannot tell and is not judged; of the sides judged, all
        and at least one, or at least two, must show it.

        A shadow keeps the line; soft focus and a soft highlight weaken it but the average along
        a side still shows it; a hand or a sleeve over it hides it, and the rounded shading of a
        sleeve is no line (it darkens towards the sleeve's edge, beyond the line)."""
        s = self.settings
        p = s.px_per_mm
        m = s.margin_mm * p
        h, w = luma.shape[:2]
        out, ins = round(m - 4.0 * p), round(m + 6.0 * p)
        label_x, label_y = round(m + s.label_mm[0] * p), round(m + s.label_mm[1] * p)
        # each side as a strip from 4 mm outside the edge to 6 mm inside, read inwards, and
        # the span along it that counts (clear of the corners; the name at the top left)
        sides = [
            (luma[:, out:ins].T, hidden[:, out:ins].T, max(label_y, ins), h - ins),
            (
                luma[:, w - ins : w - out][:, ::-1].T,
                hidden[:, w - ins : w - out][:, ::-1].T,
                ins,
                h - ins,
            ),
            (luma[out:ins, :], hidden[out:ins, :], max(label_x, ins), w - ins),
            (
                luma[h - ins : h - out, :][::-1, :],
                hidden[h - ins : h - out, :][::-1, :],
                ins,
                w - ins,
            ),
        ]
        edge = round(4.0 * p)  # the edge, where the calibration puts it, in the strip
        search = round(2.5 * p)  # the lens and the homography put it within this
        near, far = round(1.2 * p), round(2.5 * p)  # the line's blur; paper beyond
        seen = judged = 0
        anything_hidden = bool(hidden.any())
        for strip, hid, lo, hi in sides:
            if anything_hidden:
                cols = np.arange(lo, hi)
                cols = cols[~hid[:, lo:hi].any(axis=0)]
                if len(cols) < 8 * p:
                    continue  # hidden by a tall piece: not judged
                prof = strip[:, cols].mean(axis=1)
            elif hi - lo < 8 * p:
                continue
            else:
                prof = np.add.reduce(strip[:, lo:hi], axis=1) / (hi - lo)  # as .mean, less overhead
            # the line: the darkest place within `search` of the edge that is darker than what
            # lies just beyond it (a neighbour's tile 2-3 mm beyond the line is darker still:
            # taken for the line, the side could not tell, and a square with tiles on all four
            # sides stayed unknown for good)
            window = prof[edge - search : edge + search + 1]
            line, outside, at = 0.0, 0.0, -1
            for i in edge - search + np.argsort(window, kind="stable"):
                beyond = float(prof[max(0, i - far) : max(1, i - near + 1)].max())
                if beyond > prof[i]:
                    line, outside, at = float(prof[i]), beyond, int(i)
                    break
            if at < 0:
                continue  # something darker than the line lies beyond: cannot tell
            darkest = at == edge - search + int(np.argmin(window))
            paper = prof[max(at + far, edge + round(3.5 * p)) :]
            inside = median1d(paper)
            flat = float(paper.max() - paper.min()) < 0.4 * (inside - line)
            contrast = s.outline_contrast
            shows = line < contrast * inside and line < contrast * outside and flat
            if not darkest and not shows:
                continue  # only a darker neighbour's edge, and no line before it: cannot tell
            judged += 1
            seen += int(shows)
        return seen >= 2 or (seen >= 1 and seen == judged)

    def paper(self, inner: Image, luma: Image, hidden: Image, colour: Image | None = None) -> bool:
        """Whether the interior, where no tall piece hides it, is paper: neutral, at least
        `min_brightness` of the mat's white, no texture once the light is divided out (the light
        as a median over 3 mm, which keeps a hard shadow's edge and a contact shadow as light);
        a few odd specks (noise, JPEG) and a sliver of a neighbour's edge are allowed
        (`max_not_paper`), a piece's body or a finger is not."""
        s = self.settings
        k = round(3.0 * s.px_per_mm) | 1
        # 16-bit values give the same median, by a sorting network (5 px or less) rather than
        # the histograms OpenCV takes for 8-bit ones (20 times slower on a small crop)
        depth = np.uint16 if k <= 5 else np.uint8
        light = cv2.medianBlur(np.clip(luma, 0, 255).astype(depth), k).astype(np.float32) + 1
        texture = cv2.GaussianBlur(np.abs(luma / light - 1.0), (0, 0), 0.5 * s.px_per_mm)
        paper = (
            ((chroma(inner) if colour is None else colour) <= s.paper_chroma)
            & (luma >= s.min_brightness * self.mat_white)
            & (texture <= s.paper_texture)
        )
        odd: Image = (~paper & ~hidden).astype(np.uint8)
        speck = round(1.5 * s.px_per_mm) | 1
        odd = cv2.morphologyEx(odd, cv2.MORPH_OPEN, np.ones((speck, speck), np.uint8))
        shown = max(1, int(np.count_nonzero(~hidden)))
        if float(np.count_nonzero(odd)) / shown > s.max_not_paper:
            return False
        return self._lit_like_paper(luma, light, ~hidden)

    def _lit_like_paper(self, luma: Image, light: Image, shown: Image) -> bool:
        """Whether the light across the interior is what falls on flat paper: smooth (a lamp's
        slope, a soft shadow's edge, a soft highlight), or two levels with a hard shadow's edge
        between them; not the rounded shading of a sleeve or the folds of cloth."""
        s = self.settings
        smooth = cv2.GaussianBlur(luma, (0, 0), 2.0 * s.px_per_mm)
        relative = luma / smooth
        if float((relative if shown.all() else relative[shown]).std()) <= s.max_texture:
            return True
        level = light[shown]
        lo, hi = (float(v) for v in np.percentile(level, [10, 90]))
        between = (level > lo * 1.04) & (level < hi / 1.04)
        if float(np.mean(between)) <= 0.15:
            return True
        # a hard shadow's edge slanting right across: more lies between its two levels, but
        # all of it in one narrow straight band (a sleeve's shading fills a broad one)
        # (the shadow's side, dimmer, is noisier: the band is what lies well between the two)
        if hi < 1.25 * lo or float(np.mean(between)) > 0.35:
            return False
        ys, xs = np.nonzero(shown & (light > lo * 1.1) & (light < hi / 1.1))
        return one_line(ys, xs, 2.5 * s.px_per_mm) is not None


def median1d(values: Any) -> float:
    """`np.median` of a short 1-D array, by one sort (without np.median's overhead)."""
    ordered = np.sort(values)
    n = len(ordered)
    if n % 2:
        return float(ordered[n // 2])
    return float((ordered[n // 2 - 1] + ordered[n // 2]) / 2)


def one_line(ys: Any, xs: Any, width_px: float) -> tuple[float, float, float, float] | None:
    """The straight line (direction, a point) that 97 % of these pixels lie within `width_px`
    of, if there is one."""
    if len(xs) < 10:
        return None
    pts = np.column_stack([xs, ys]).astype(np.float32)
    vx, vy, x0, y0 = (float(v) for v in cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel())
    if float(np.mean(np.abs((xs - x0) * vy - (ys - y0) * vx) <= width_px)) < 0.97:
        return None
    return vx, vy, x0, y0
