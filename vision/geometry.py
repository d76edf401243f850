"""Vision's own geometry: a mat in millimetres, its named rectangles and its four corner markers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class MarkerFamily(StrEnum):
    """A printed fiducial dictionary; every id a game prints must be below its `capacity`."""

    ARUCO_4X4_50 = "aruco_4x4_50"
    ARUCO_4X4_100 = "aruco_4x4_100"
    ARUCO_4X4_250 = "aruco_4x4_250"
    ARUCO_4X4_1000 = "aruco_4x4_1000"

    @property
    def capacity(self) -> int:
        return int(self.value.rsplit("_", 1)[1])

    @property
    def bits(self) -> int:
        """Data cells along one side (a printed marker is this plus a one-cell black border)."""
        return 4

    @property
    def opencv_name(self) -> str:
        """Name of the matching `cv2.aruco.DICT_*` constant."""
        return "DICT_" + self.value.removeprefix("aruco_").upper()

    @classmethod
    def smallest_for(cls, max_id: int) -> MarkerFamily:
        """The smallest family holding ids 0..max_id (fewer codes means fewer false reads)."""
        for family in cls:
            if max_id < family.capacity:
                return family
        raise ValueError(f"marker id {max_id} is beyond every supported family (max 999)")


DEFAULT_FAMILY = MarkerFamily.ARUCO_4X4_100


@dataclass(frozen=True)
class Rect:
    """A named location on the mat: centre (`x_mm`, `y_mm`) from the top-left corner, size in mm."""

    name: str
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float

    @property
    def x0(self) -> float:
        return self.x_mm - self.w_mm / 2

    @property
    def y0(self) -> float:
        return self.y_mm - self.h_mm / 2

    @property
    def x1(self) -> float:
        return self.x_mm + self.w_mm / 2

    @property
    def y1(self) -> float:
        return self.y_mm + self.h_mm / 2

    def contains(self, x_mm: float, y_mm: float) -> bool:
        return self.x0 <= x_mm < self.x1 and self.y0 <= y_mm < self.y1


@dataclass(frozen=True)
class CornerMark:
    """A calibration marker printed upright on the mat: id, centre and side length in mm."""

    marker_id: int
    x_mm: float
    y_mm: float
    size_mm: float

    def corners_mm(self) -> tuple[tuple[float, float], ...]:
        """Its four corners in OpenCV's order: top-left, top-right, bottom-right, bottom-left."""
        h = self.size_mm / 2
        x, y = self.x_mm, self.y_mm
        return ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))


@dataclass(frozen=True)
class BoardGeometry:
    """A mat: its size, the locations players put pieces on, and the four calibration corners."""

    name: str
    width_mm: float
    height_mm: float
    locations: tuple[Rect, ...]
    corners: tuple[CornerMark, CornerMark, CornerMark, CornerMark]
    family: MarkerFamily = DEFAULT_FAMILY

    def __post_init__(self) -> None:
        names = [r.name for r in self.locations]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"board {self.name!r}: duplicate location names {duplicates}")
        for r in self.locations:
            if r.x0 < 0 or r.y0 < 0 or r.x1 > self.width_mm or r.y1 > self.height_mm:
                raise ValueError(
                    f"board {self.name!r}: location {r.name!r} lies outside the "
                    f"{self.width_mm}x{self.height_mm} mm mat"
                )
        ids = [c.marker_id for c in self.corners]
        if len(set(ids)) != 4:
            raise ValueError(f"board {self.name!r}: corner marker ids must differ, got {ids}")
        too_big = [i for i in ids if i >= self.family.capacity]
        if too_big:
            raise ValueError(
                f"board {self.name!r}: corner ids {too_big} do not fit family {self.family.value}"
            )

    @property
    def corner_ids(self) -> frozenset[int]:
        return frozenset(c.marker_id for c in self.corners)

    def location(self, name: str) -> Rect:
        for r in self.locations:
            if r.name == name:
                return r
        raise KeyError(f"no location named {name!r} on board {self.name!r}")


@dataclass(frozen=True)
class Sticker:
    """One printed piece marker: id, the label a human reads, side length in mm, how many, and
    how high it sits above the mat (on a tall piece's top)."""

    marker_id: int
    label: str
    size_mm: float
    copies: int = 1
    height_mm: float = 0.0
