"""The settings of reading one location: crop scale, the plain-mat, cover and glare tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DecodeSettings:
    """Crop scale, the plain-mat test, the cover (hand) test and the glare test (see
    `LocationDecoder`)."""

    px_per_mm: float = 3.5
    # what is not a marker (paper, a cover, glare, the printed outline) is judged at this
    # scale: a camera sees the mat at 1.1 (720p) to 1.7 (1080p) px/mm, so the crops markers are
    # read from, at `px_per_mm`, hold no more for it than this, at a quarter of the pixels
    judge_px_per_mm: float = 1.75
    margin_mm: float = 4.0
    interior: float = 0.7
    max_texture: float = 0.03
    min_brightness: float = 0.35
    size_tolerance: float = 0.3
    paper_chroma: float = 16.0
    paper_texture: float = 0.035
    max_cover: float = 0.04
    beneath_mm: float = 6.0  # how far a piece under the piece read may show beyond it
    edge_mm: float = 2.5
    cover_edge_mm: float = 5.0  # a neighbour's piece may overhang this far: not a cover
    label_mm: tuple[float, float] = (14.0, 5.5)
    outline_contrast: float = 0.985  # the printed outline, averaged along a side, this darker
    glare_level: int = 250
    glare_fraction: float = 0.02
    max_not_paper: float = 0.05  # share of an empty square's seen interior that may look odd
    min_seen: float = 0.4  # share of its interior a square must show to be judged empty
    tall_body: float = 1.7  # a tall piece's body, at most, in sticker sides (its top's square)
    above_board: float = 0.02  # a marker this much bigger than those lying on the board floats
    # a crop with no pixel darker than this share of its brightest holds no marker's black
    # border: no marker is looked for there (read markers' crops reach below 0.04)
    marker_dark: float = 0.3
