"""What vision reports: markers read per location, occlusion, calibration and stability states."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

ON_TOP = "on top"
"""`LocationReading.reason` of an OCCUPIED location whose tall pieces stand on a piece they hide."""


# Why an OCCLUDED location is unknown (`LocationReading.reason`):
COVERED = "covered"  # something that is not a piece: a hand, an arm, a sleeve
GLARE = "glare"  # a saturated reflection
HAND_BESIDE = "hand beside it"  # its look changed while a hand came over a neighbour
HELD = "held above the board"  # a piece seen nearer the camera than the board: still in a hand
BEHIND = "behind a tall piece"  # a neighbour's tall piece hides most of it from the camera
UNCLEAR = "no marker read, mat not seen"  # neither a piece read nor plain mat (an unreadable one)


class LocationState(StrEnum):
    """A settled location: plain mat, markers on it, or covered by something not a marker."""

    EMPTY = "empty"
    OCCUPIED = "occupied"
    OCCLUDED = "occluded"


class CalibrationState(StrEnum):
    """Whether the mat-to-camera homography can be trusted."""

    UNCALIBRATED = "uncalibrated"
    CALIBRATED = "calibrated"
    LOST = "lost"
    IMPLAUSIBLE = "implausible"
    TOO_FEW_PIXELS = "too_few_pixels"  # the camera cannot resolve the game's smallest markers


class Stability(StrEnum):
    """Whether the warped board is still (settled) or something moves over it (unsettled)."""

    SETTLED = "settled"
    UNSETTLED = "unsettled"


@dataclass(frozen=True, order=True)
class MarkerReading:
    """One marker: id, quarter turns clockwise (0-3), confidence 0-1, centre on the mat (mm)."""

    marker_id: int
    rotation: int
    confidence: float
    x_mm: float
    y_mm: float


@dataclass(frozen=True)
class LocationReading:
    """A location's state and the markers seen on it (sorted by id); for an OCCLUDED one, why
    it is unknown: COVERED (a hand, a sleeve, something not a piece), GLARE, HAND_BESIDE (its
    look changed while a hand covers a neighbour: the piece may still be held), HELD (a piece
    seen floating above the board), BEHIND (a neighbour's tall piece hides most of it) or
    UNCLEAR (no marker read, and no plain mat seen either); for an
    OCCUPIED one, `ON_TOP` when the pieces read stand on a piece whose marker they hide (a wagon
    on its tile): more lies there than the markers say."""

    name: str
    state: LocationState
    markers: tuple[MarkerReading, ...] = ()
    reason: str = ""

    def ids_and_rotations(self) -> tuple[tuple[int, int], ...]:
        return tuple(sorted((m.marker_id, m.rotation) for m in self.markers))

    def same_content(self, other: LocationReading) -> bool:
        """Same state and markers at the same rotations (confidence and position ignored)."""
        return self.state == other.state and self.ids_and_rotations() == other.ids_and_rotations()


@dataclass(frozen=True)
class SettledView:
    """The table once it stood still: every location's reading and which changed since the last.

    `changed` names locations whose definite content (empty or markers) differs from the previous
    settled view; `occluded` names locations covered by something that is not a marker.
    """

    frame_index: int
    readings: tuple[LocationReading, ...]
    changed: frozenset[str]
    occluded: frozenset[str]
    full_decode: bool

    def as_dict(self) -> Mapping[str, LocationReading]:
        return {r.name: r for r in self.readings}

    def at(self, name: str) -> LocationReading:
        for r in self.readings:
            if r.name == name:
                return r
        raise KeyError(f"no location named {name!r} in this view")


@dataclass(frozen=True)
class FrameReport:
    """One processed frame: states, locations moving, and a settled view if one formed."""

    frame_index: int
    calibration: CalibrationState
    stability: Stability
    moving: frozenset[str]
    decoded: int
    settled: SettledView | None = None
    reason: str = ""  # in words, when the calibration state is not CALIBRATED
