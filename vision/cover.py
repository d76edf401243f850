"""What covers a location: the pixels neither plain mat nor a piece read explains (a hand, a
sleeve), a piece beneath the one read, saturated glare, a sticker half hidden by a tall piece."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.colour import Colours, chroma, similar, texture
from vision.decode_settings import DecodeSettings
from vision.markers import DetectedMarker, Image
from vision.readings import MarkerReading


def darkest(crop: Image) -> Image:
    """Each pixel's darkest channel (as `crop.min(axis=2)`, a plane at a time: numpy's
    reductions over a 3-wide last axis cost ten times as much)."""
    if crop.ndim == 2:
        return crop
    out: Image = np.minimum(np.minimum(crop[..., 0], crop[..., 1]), crop[..., 2])
    return out


@dataclass(frozen=True)
class Cover:
    """What covers a location's crop (`pixels`), and what only a piece beneath a piece read
    explains (`beneath`: its rim showing round the piece on top)."""

    pixels: Image
    beneath: Image


@dataclass(frozen=True)
class CoverTest:
    """Tells what covers a location from what explains it: plain mat (`mat_white`, `settings`)
    and the pieces read, each a sticker `sticker_scale` of its marker's side (its white quiet
    zone) on a body of its own colour."""

    settings: DecodeSettings
    mat_white: float
    sticker_scale: float

    def sticker_behind(
        self,
        cover: Image,
        wb: Image,
        luma: Image,
        bodies: Image,
        inner: Image,
        colour: Image | None = None,
    ) -> bool:
        """Whether what covers the location is a printed sticker (neutral, black and white) that
        meets a tall piece's silhouette: a marker whose part the tall piece hides, so it does
        not read. A hand, an arm or a coloured sleeve is not neutral; a dark sleeve has no
        white."""
        s = self.settings
        if not bodies.any():
            return False
        near = cv2.dilate(
            bodies.astype(np.uint8), np.ones((round(2 * s.px_per_mm) | 1,) * 2, np.uint8)
        )
        if not np.any(cover & (near > 0)):
            return False
        colour = chroma(wb) if colour is None else colour
        if float(np.mean(colour[cover] <= s.paper_chroma)) < 0.9:
            return False
        white = float(np.percentile(luma[inner], 95))
        level = luma[cover]
        return (
            float(np.mean(level < 0.4 * white)) >= 0.15
            and float(np.mean(level > 0.7 * white)) >= 0.15
        )

    def pieces(self, crop: Image, found: list[tuple[MarkerReading, DetectedMarker]]) -> Image:
        """Around each marker read, its piece (a white card's body and a sticker's white may be
        blown out where the mat is not: a read marker is trusted)."""
        mask = np.zeros(crop.shape[:2], np.uint8)
        for _, m in found:
            c = m.corners.mean(axis=0)
            quad = np.round(c + (m.corners - c) * self.sticker_scale * 1.9).astype(np.int32)
            cv2.fillConvexPoly(mask, quad, 1)
        return mask.astype(bool)

    def white_bodies(
        self,
        crop: Image,
        found: list[tuple[MarkerReading, DetectedMarker]],
        low: Image | None = None,
    ) -> Image:
        """Around each marker read whose piece's body is blown out (a white card, a white
        piece: the ring just outside its sticker saturated in every channel), its sticker.
        `low`: the crop's darkest channel (`darkest`), if already worked out."""
        s = self.settings
        mask = np.zeros(crop.shape[:2], np.uint8)
        if not found:
            return mask.astype(bool)
        low = darkest(crop) if low is None else low
        k = self.sticker_scale
        for _, m in found:
            c = m.corners.mean(axis=0)
            sticker = np.zeros(crop.shape[:2], np.uint8)
            cv2.fillConvexPoly(
                sticker, np.round(c + (m.corners - c) * k * 1.04).astype(np.int32), 1
            )
            ring = np.zeros(crop.shape[:2], np.uint8)
            cv2.fillConvexPoly(ring, np.round(c + (m.corners - c) * k * 1.14).astype(np.int32), 1)
            around = low[(ring > 0) & (sticker == 0)]
            if len(around) and float(np.median(around)) >= s.glare_level:
                mask |= sticker
        return mask.astype(bool)

    def glare(
        self,
        crop: Image,
        area: Image,
        local_white: float | Callable[[], float],
        pieces: Image | Callable[[], Image],
        low: Image | None = None,
    ) -> bool:
        """Whether saturated glare lies over `area`: a patch blown out in every channel, 3 mm
        wide or more, over `glare_fraction` of it, that is not part of a white piece read
        (`pieces`, or a function giving it, asked only when some patch is blown out: a white
        card's body is blown out where the mat is not; a patch reaching the sticker of a piece
        whose body is blown out is that body; glare on a tan tile is not). `low`: the crop's
        darkest channel (`darkest`), if already worked out; `local_white` may be a function
        giving it, asked only when some pixel is blown out."""
        s = self.settings
        low = darkest(crop) if low is None else low
        blown = low >= s.glare_level
        if not blown.any():
            return False  # nothing blown out in every channel: no glare (and no work)
        white = local_white() if callable(local_white) else local_white
        if white >= s.glare_level - 6:
            return False  # the mat around is itself blown out: glare cannot be told from it
        # glare blows every channel out over a patch 3 mm wide or more; the noise of a white
        # card, or JPEG's ringing beside a marker's black, saturates only specks
        core = round(3.0 * s.px_per_mm) | 1
        saturated = cv2.erode(blown.astype(np.uint8), np.ones((core, core), np.uint8)).astype(bool)
        if not saturated.any():
            return False
        pieces = pieces() if callable(pieces) else pieces
        if pieces.any():
            _, labels = cv2.connectedComponents(saturated.astype(np.uint8))
            touching = np.unique(labels[pieces & saturated])
            saturated &= ~np.isin(labels, touching[touching > 0])
        share = float(np.count_nonzero(saturated & area)) / max(1, int(np.count_nonzero(area)))
        return share > s.glare_fraction

    def cover(
        self,
        wb: Image,
        luma: Image,
        found: list[DetectedMarker],
        bodies: Image | None = None,
        colour: Image | None = None,
    ) -> Cover:
        """Pixels of the crop that neither plain mat nor a read piece (nor a tall piece's body,
        `bodies`, wherever it stands) explains, and those only a piece beneath one read does.
        `colour`: `chroma(wb)`, if already worked out."""
        s = self.settings
        colour = chroma(wb) if colour is None else colour
        paper = (
            (colour <= s.paper_chroma)
            & (luma >= s.min_brightness * self.mat_white)
            & (texture(luma, 1.2 * s.px_per_mm) <= s.paper_texture)
        )
        explained = paper.astype(np.uint8)
        if bodies is not None:
            explained |= bodies.astype(np.uint8)
        under = np.zeros(wb.shape[:2], np.uint8)  # explained only as a piece beneath one read
        shape = wb.shape[:2]
        colours = Colours.of(wb) if found else None
        for m in found:
            centre = m.corners.mean(axis=0)

            def scaled(k: float, c: Any = centre, corners: Any = m.corners) -> Any:
                return np.round(c + (corners - c) * k).astype(np.int32)

            k = self.sticker_scale
            sticker = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(sticker, scaled(k * 1.04), 1)
            ring = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(ring, scaled(k * 1.14), 1)
            ring = ring.astype(bool) & ~sticker.astype(bool)
            explained |= sticker
            body_px = wb[ring].astype(np.float32)
            if len(body_px) == 0:
                continue
            body = np.median(body_px, axis=0) + 1.0
            zone = np.zeros(shape, np.uint8)
            cv2.fillConvexPoly(zone, scaled(k * 1.9), 1)
            # the body, and its edge where the camera blends it with the mat (about 3 mm)
            grow = np.ones((round(3.0 * s.px_per_mm) | 1,) * 2, np.uint8)
            own = zone & similar(wb, body, colours)
            body_mask: Image = np.asarray(cv2.dilate(own, grow), np.uint8)
            explained |= zone & body_mask
            if bodies is not None and bodies.any():
                # a tall piece's sides and foot are its body too: a tile beneath shows round
                # its foot, which parallax puts away from its top
                tall = bodies.astype(np.uint8)
                own, body_mask = own | tall, body_mask | tall
            under |= self._beneath(wb, own, body_mask, paper, colours)
        beneath = (under > 0) & (explained == 0)
        explained |= under
        grown = cv2.dilate(explained, np.ones((round(1.4 * s.px_per_mm) | 1,) * 2, np.uint8))
        cover = (grown == 0).astype(np.uint8)
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (round(1.8 * s.px_per_mm) | 1,) * 2)
        return Cover(cv2.morphologyEx(cover, cv2.MORPH_OPEN, kernel).astype(bool), beneath)

    def _beneath(
        self,
        wb: Image,
        own: Image,
        body_mask: Image,
        paper: Image,
        colours: Colours | None = None,
    ) -> Image:
        """A piece under the piece read (a minecart on a tile hides the tile's marker): its rim
        showing just beyond the body, up to `beneath_mm`, in one colour that is not paper."""
        s = self.settings
        reach = np.ones((round(s.beneath_mm * s.px_per_mm) | 1,) * 2, np.uint8)
        near = np.ones((round(1.5 * s.px_per_mm) | 1,) * 2, np.uint8)
        ring = (cv2.dilate(body_mask, near) > 0) & (body_mask == 0) & ~paper
        if np.count_nonzero(ring) < 4 * s.px_per_mm * s.px_per_mm:
            return np.zeros(own.shape, np.uint8)
        under = np.median(wb[ring].astype(np.float32), axis=0) + 1.0
        rim = np.asarray(cv2.dilate(own, reach), np.uint8)
        out: Image = rim & np.asarray(cv2.dilate(similar(wb, under, colours), near), np.uint8)
        return out
