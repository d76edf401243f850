"""The simulated table's pieces: what lies where, for the virtual sensor board and the camera."""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.referee.tables import Pieces
from rules.physical import Catalogue, Layout, PlacedPiece
from vision.drawing import PlacedMarker

# How the renderer draws each kind of piece: its body around the marker (mm) and colour (BGR).
_LOOKS: dict[str, tuple[float, tuple[int, int, int]]] = {
    "tile": (46.0, (170, 140, 110)),
    "minecart": (26.0, (60, 60, 70)),
    "wagon": (36.0, (60, 60, 70)),  # stands on its tile and hides its marker, not its rim
    "rock": (36.0, (70, 75, 80)),  # a dark stone
    "chasm_token": (30.0, (40, 40, 40)),
}
_CARD = (60.0, (245, 245, 245))
_FAN_PITCH_MM = 30.0  # a fanned card's visible part: its corner marker and a margin


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
        self.on_laid: Callable[[], None] | None = None  # the table changed (the camera looks)

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
        if self.on_laid is not None:
            self.on_laid()

    def state(self) -> tuple[int, dict[str, Pieces]]:
        """The table's version and its pieces at that version (one read under the lock)."""
        with self._lock:
            return self.version, dict(self._pieces)

    def show(self, version: int, pieces: dict[str, Pieces]) -> None:
        """Be a copy of a table in another process: its pieces at its `version` (an older
        version than this copy's is ignored; nothing is told)."""
        with self._lock:
            if version > self.version:
                self._pieces, self.version = dict(pieces), version

    def magnets(self) -> frozenset[tuple[int, int]]:
        with self._lock:
            return frozenset(
                self.sensors[name]
                for name, pieces in self._pieces.items()
                if name in self.sensors and any(p.piece in self.magnetic for p in pieces)
            )

    def content(self) -> dict[str, tuple[PlacedMarker, ...]]:
        """The table for the camera's renderer (see `seen`)."""
        return self.seen()[1]

    def seen(self) -> tuple[int, dict[str, tuple[PlacedMarker, ...]]]:
        """The table's version and, as it was at that version, what the camera's renderer draws:
        one marker per piece, turned as it lies. Several loose pieces in one area stand side by
        side, and several cards in one area (a seat's shares) are fanned out, as players lay
        them, so that each one's marker shows. (One read under the lock: a camera on another
        thread never draws half a move, nor a version it did not draw.)"""
        with self._lock:
            version, laid = self.version, dict(self._pieces)
        out: dict[str, tuple[PlacedMarker, ...]] = {}
        narrowest = {loc.name: min(loc.w_mm, loc.h_mm) for loc in self.layout.locations}
        for name, pieces in laid.items():
            loose = [p for p in pieces if p.piece in self.magnetic]
            cards = [p for p in pieces if p.piece.kind not in _LOOKS]
            spread = self._spread(name, len(loose))
            fanned = self._fan(name, len(cards))
            markers = []
            # what stands on something lies over it: tiles and cards first, then the pieces
            # that stand on them (a wagon or the Rock on a tile); cards keep their stacking order
            for placed in sorted(pieces, key=self._stands_tall):
                entry = self.by_piece.get(placed.piece)
                if entry is None:
                    continue
                body, colour = _LOOKS.get(placed.piece.kind, _CARD)
                dx, dy = 0.0, 0.0
                if placed in loose and spread:
                    dx, dy = spread.pop(0)
                elif placed in cards and fanned:
                    dx, dy, pitch = fanned.pop(0)
                    body = max(entry.size_mm + 4.0, min(body, pitch - 2.0))
                if placed in cards:  # a card in a narrow slot shows its strip, the rest lies under
                    body = max(entry.size_mm + 4.0, min(body, narrowest[name] - 2.0))
                markers.append(
                    PlacedMarker(
                        entry.marker_id, placed.rotation % 4, entry.size_mm, body, colour, dx, dy
                    )
                )
            out[name] = tuple(markers)
        return version, out

    def _stands_tall(self, placed: PlacedPiece) -> bool:
        entry = self.by_piece.get(placed.piece)
        return entry is not None and entry.height_mm > 0

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

    def _fan(self, name: str, count: int) -> list[tuple[float, float, float]]:
        """Where several cards in one area lie, fanned in rows so each marker shows: offsets
        from the area's centre and the pitch between neighbours (a card's visible part)."""
        if count < 2:
            return []
        where = self.layout.location(name)
        long, short = max(where.w_mm, where.h_mm), min(where.w_mm, where.h_mm)
        per_row = max(1, min(count, int(long // _FAN_PITCH_MM)))
        rows = -(-count // per_row)
        pitch = min(long / per_row, 60.0)
        row_pitch = short / rows
        out = []
        for i in range(count):
            row, col = divmod(i, per_row)
            along = (col - (per_row - 1) / 2) * pitch
            across = (row - (rows - 1) / 2) * row_pitch
            dx, dy = (along, across) if where.w_mm >= where.h_mm else (across, along)
            out.append((dx, dy, min(pitch, row_pitch)))
        return out
