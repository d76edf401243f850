"""Between the rules' physical form and vision: a `Layout` and `Catalogue` as vision's geometry and
stickers, and vision's settled views as `TableObservation`s."""

from __future__ import annotations

from rules.physical import Catalogue, Layout, PlacedPiece, TableObservation
from vision.geometry import BoardGeometry, CornerMark, MarkerFamily, Rect, Sticker
from vision.readings import ON_TOP, LocationState, SettledView


def marker_family(layout: Layout, catalogue: Catalogue) -> MarkerFamily:
    """The smallest 4x4 ArUco family holding every id the game prints (corners included)."""
    ids = [c.marker_id for c in layout.corner_markers] + [e.marker_id for e in catalogue.entries]
    return MarkerFamily.smallest_for(max(ids))


def board_geometry(layout: Layout, catalogue: Catalogue) -> BoardGeometry:
    """The layout as vision's `BoardGeometry` (slots and squares alike become named rectangles)."""
    rects = tuple(
        Rect(loc.name, loc.x_mm, loc.y_mm, loc.w_mm, loc.h_mm) for loc in layout.locations
    )
    c = layout.corner_markers
    corners = (
        CornerMark(c[0].marker_id, c[0].x_mm, c[0].y_mm, c[0].size_mm),
        CornerMark(c[1].marker_id, c[1].x_mm, c[1].y_mm, c[1].size_mm),
        CornerMark(c[2].marker_id, c[2].x_mm, c[2].y_mm, c[2].size_mm),
        CornerMark(c[3].marker_id, c[3].x_mm, c[3].y_mm, c[3].size_mm),
    )
    return BoardGeometry(
        layout.name,
        layout.width_mm,
        layout.height_mm,
        rects,
        corners,
        marker_family(layout, catalogue),
    )


def stickers(catalogue: Catalogue, copies: dict[int, int] | None = None) -> tuple[Sticker, ...]:
    """As many stickers of each catalogue entry as the game has pieces (or `copies[id]`)."""
    copies = copies or {e.marker_id: e.copies for e in catalogue.entries}
    return tuple(
        Sticker(e.marker_id, e.label, e.size_mm, copies.get(e.marker_id, 1), e.height_mm)
        for e in catalogue.entries
    )


def observation(view: SettledView, catalogue: Catalogue) -> TableObservation:
    """A settled view in the rules' terms: pieces per location (rotations reduced to the turns that
    look different for that piece), occluded locations as unknown, unknown ids dropped; where
    tall pieces stand on a piece they hide, the location is `on_top`: where vision sees the rim
    of a piece beneath (ON_TOP), and wherever only tall pieces are read (a minecart, a wagon):
    what lies under a tall piece is never seen for sure, whatever shows round its foot."""
    entries = catalogue.by_marker()
    pieces: dict[str, list[PlacedPiece]] = {}
    unknown = set()
    on_top = set()
    for reading in view.readings:
        if reading.state == LocationState.OCCLUDED:
            unknown.add(reading.name)
            continue
        tall = [entries.get(m.marker_id) for m in reading.markers]
        if reading.reason == ON_TOP or (
            tall and all(e is not None and e.height_mm > 0 for e in tall)
        ):
            on_top.add(reading.name)
        for m in reading.markers:
            entry = entries.get(m.marker_id)
            if entry is not None:
                turns = m.rotation % max(1, entry.rotations)
                pieces.setdefault(reading.name, []).append(PlacedPiece(entry.piece, turns))
    return TableObservation.of(pieces, unknown, on_top)
