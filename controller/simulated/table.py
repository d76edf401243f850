"""The simulated table's pieces: what lies where, for the virtual sensor board and the camera."""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.referee.tables import Pieces
from rules.physical import Catalogue, Layout
from vision.render import PlacedMarker

# How the renderer draws each kind of piece: its body around the marker (mm) and colour (BGR).
_LOOKS: dict[str, tuple[float, tuple[int, int, int]]] = {
    "tile": (46.0, (170, 140, 110)),
    "minecart": (26.0, (60, 60, 70)),
    "wagon": (26.0, (60, 60, 70)),
    "rock": (26.0, (90, 90, 90)),
    "chasm_token": (30.0, (40, 40, 40)),
}
_CARD = (60.0, (245, 245, 245))


class PhysicalTable:
    """What lies on the simulated table, per location; thread-safe; feeds the renderer and the
    virtual sensor board (through `on_magnets`)."""

    def __init__(self, layout: Layout, catalogue: Catalogue) -> None:
        self.layout = layout
        self.by_piece = catalogue.by_piece()
        self.magnetic = frozenset(e.piece for e in catalogue.entries if e.magnetic)
        self.sensors = {loc.name: loc.sensor for loc in layout.locations if loc.sensor}
        self._pieces: dict[str, Pieces] = {}
        self._lock = threading.Lock()
        self.version = 0
        self.on_magnets: Callable[[frozenset[tuple[int, int]]], None] | None = None

    def pieces(self) -> dict[str, Pieces]:
        with self._lock:
            return dict(self._pieces)

    def lay(self, table: dict[str, Pieces]) -> None:
        """Make the table hold exactly `table`."""
        laid = {n: tuple(p) for n, p in table.items() if p}
        with self._lock:
            if laid == self._pieces:
                return  # nothing moved: no hand crosses the camera's view
            self._pieces = laid
            self.version += 1
        if self.on_magnets is not None:
            self.on_magnets(self.magnets())

    def magnets(self) -> frozenset[tuple[int, int]]:
        with self._lock:
            return frozenset(
                self.sensors[name]
                for name, pieces in self._pieces.items()
                if name in self.sensors and any(p.piece in self.magnetic for p in pieces)
            )

    def content(self) -> dict[str, tuple[PlacedMarker, ...]]:
        """The table for the camera's renderer: one marker per piece, turned as it lies."""
        out: dict[str, tuple[PlacedMarker, ...]] = {}
        for name, pieces in self.pieces().items():
            loose = [p for p in pieces if p.piece in self.magnetic]
            spread = self._spread(name, len(loose))
            markers = []
            for placed in pieces:
                entry = self.by_piece.get(placed.piece)
                if entry is None:
                    continue
                body, colour = _LOOKS.get(placed.piece.kind, _CARD)
                dx, dy = spread.pop(0) if placed in loose and spread else (0.0, 0.0)
                markers.append(
                    PlacedMarker(
                        entry.marker_id, placed.rotation % 4, entry.size_mm, body, colour, dx, dy
                    )
                )
            out[name] = tuple(markers)
        return out

    def _spread(self, name: str, count: int) -> list[tuple[float, float]]:
        """Where several loose pieces stand side by side in one area (a starting area's wagons),
        so each one's marker can be read; one piece stands in the middle."""
        if count < 2:
            return []
        where = self.layout.location(name)
        step = min(max(where.w_mm, where.h_mm) / count, 60.0)
        offsets = [(i - (count - 1) / 2) * step for i in range(count)]
        if where.w_mm >= where.h_mm:
            return [(x, 0.0) for x in offsets]
        return [(0.0, y) for y in offsets]
