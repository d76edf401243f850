"""Fusing the camera's settled view and the sensor board's occupancy into one table observation.

Pure: no threads, no I/O. The camera says *what* lies on a location and how it is turned; the sensor
board says *that* a magnetic piece (a minecart, a wagon, the Rock) is there, is fast, and is never
fooled by a hand. Each location ends up in one of three states (`Seen`): known exactly, known only
by its magnets, or unknown, with the reason in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from rules.physical import Catalogue, Layout, Piece, PlacedPiece, TableObservation


class InputMode(StrEnum):
    """Which inputs the observation was made from."""

    CAMERA_AND_SENSORS = "camera_and_sensors"
    CAMERA_ONLY = "camera_only"
    SENSORS_ONLY = "sensors_only"
    NONE = "none"  # every action comes from the phones


class Seen(StrEnum):
    """How much is known of one location."""

    EXACT = "exact"  # every piece on it, with its rotation
    ON_TOP = "on_top"  # the pieces standing on top, with their rotation; what they hide is unseen
    MAGNET = "magnet"  # only whether a magnetic piece lies on it
    UNKNOWN = "unknown"  # nothing (a hand over it, no input covers it, the inputs disagree)


@dataclass(frozen=True)
class LocationView:
    """What is known of one location: all of it, its magnets, or nothing, and why."""

    seen: Seen
    pieces: tuple[PlacedPiece, ...] = ()  # EXACT, ON_TOP: the pieces (seen), sorted
    magnet: bool = False  # MAGNET: a magnetic piece lies there
    reason: str = ""  # why it is not EXACT (or what the inputs disagree about)


NO_INPUT = "no input covers it"
UNSEEN = LocationView(Seen.UNKNOWN, reason=NO_INPUT)
COVERED = "covered from the camera"


@dataclass(frozen=True)
class Observation:
    """The whole table: one view per location of the layout, and the inputs it was made from."""

    mode: InputMode
    views: Mapping[str, LocationView] = field(default_factory=dict)

    def view(self, name: str) -> LocationView:
        return self.views.get(name, UNSEEN)

    def unknown(self) -> dict[str, str]:
        """Locations nobody can see now, with the reason."""
        return {n: v.reason for n, v in self.views.items() if v.seen is Seen.UNKNOWN}

    def covered(self) -> frozenset[str]:
        """Locations hidden for now (a hand, the inputs disagreeing), not for good (no input; the
        sensor board alone, which never sees what is not magnetic; what a piece standing on top
        hides, ON_TOP)."""
        return frozenset(
            n
            for n, v in self.views.items()
            if (v.seen is Seen.UNKNOWN and v.reason != NO_INPUT)
            or (v.seen is Seen.MAGNET and v.reason == COVERED)
        )

    def camera_covers(self, name: str) -> bool:
        """Whether a camera looks at this location (a hand may cover it just now)."""
        view = self.view(name)
        if view.seen in (Seen.EXACT, Seen.ON_TOP):
            return True
        if view.seen is Seen.MAGNET:
            return view.reason == COVERED
        return view.reason != NO_INPUT

    @staticmethod
    def exact(table: TableObservation, names: Iterable[str]) -> Observation:
        """A camera-only observation that sees `table` exactly (its unknown locations unknown)."""
        have = table.as_dict()
        views = {
            n: LocationView(Seen.UNKNOWN, reason=COVERED)
            if n in table.unknown
            else LocationView(
                Seen.ON_TOP if n in table.on_top else Seen.EXACT, tuple(sorted(have.get(n, ())))
            )
            for n in names
        }
        return Observation(InputMode.CAMERA_ONLY, views)


def magnetic_pieces(catalogue: Catalogue) -> frozenset[Piece]:
    """The pieces of a game that carry a magnet, so the sensor board sees them."""
    return frozenset(e.piece for e in catalogue.entries if e.magnetic)


def fuse(
    layout: Layout,
    catalogue: Catalogue,
    camera: TableObservation | None,
    occupied: frozenset[tuple[int, int]] | None,
    catching_up: bool = False,
) -> Observation:
    """One observation from the camera's settled table (rules' terms, occluded locations unknown)
    and the sensor board's occupied (row, col) squares; either may be None (input missing).

    `catching_up`: the camera's table is older than the board's (a hand still in view, frames
    still settling). Where the two disagree the board's magnet is then what lies there, and the
    rest of the location is covered for now (judged again once the camera has seen it); else a
    disagreement is unknown."""
    if camera is not None and occupied is not None:
        mode = InputMode.CAMERA_AND_SENSORS
    elif camera is not None:
        mode = InputMode.CAMERA_ONLY
    elif occupied is not None:
        mode = InputMode.SENSORS_ONLY
    else:
        mode = InputMode.NONE
    magnetic = magnetic_pieces(catalogue)
    seen_by_camera = camera.as_dict() if camera is not None else {}
    views: dict[str, LocationView] = {}
    for loc in layout.locations:
        sensed = None if occupied is None or loc.sensor is None else loc.sensor in occupied
        if camera is None:
            views[loc.name] = UNSEEN if sensed is None else LocationView(Seen.MAGNET, magnet=sensed)
            continue
        if loc.name in camera.unknown:
            views[loc.name] = (
                LocationView(Seen.UNKNOWN, reason=COVERED)
                if sensed is None
                else LocationView(Seen.MAGNET, magnet=sensed, reason=COVERED)
            )
            continue
        pieces = tuple(sorted(seen_by_camera.get(loc.name, ())))
        if sensed is not None and sensed != any(p.piece in magnetic for p in pieces):
            if catching_up:
                views[loc.name] = LocationView(Seen.MAGNET, magnet=sensed, reason=COVERED)
                continue
            what = "a magnet" if sensed else "no magnet"
            shown = ", ".join(str(p.piece) for p in pieces if p.piece in magnetic) or "none"
            views[loc.name] = LocationView(
                Seen.UNKNOWN,
                reason=f"the sensor board feels {what}; the camera sees magnetic pieces: {shown}",
            )
            continue
        # where pieces stand on others they hide (a wagon on its tile), the camera sees the top
        views[loc.name] = LocationView(
            Seen.ON_TOP if loc.name in camera.on_top else Seen.EXACT, pieces
        )
    return Observation(mode, views)


def magnet_changes(
    layout: Layout,
    catalogue: Catalogue,
    camera: TableObservation | None,
    occupied: frozenset[tuple[int, int]] | None,
) -> tuple[frozenset[str], frozenset[str]]:
    """(arrived, left): locations where the board feels a magnet the camera's table does not
    show, and where it feels none under a magnetic piece the camera shows."""
    if camera is None or occupied is None:
        return frozenset(), frozenset()
    magnetic = magnetic_pieces(catalogue)
    seen_by_camera = camera.as_dict()
    arrived, left = set[str](), set[str]()
    for loc in layout.locations:
        if loc.sensor is None or loc.name in camera.unknown:
            continue
        shown = any(p.piece in magnetic for p in seen_by_camera.get(loc.name, ()))
        felt = loc.sensor in occupied
        if felt and not shown:
            arrived.add(loc.name)
        elif shown and not felt:
            left.add(loc.name)
    return frozenset(arrived), frozenset(left)


def disagreements(observation: Observation) -> Mapping[str, str]:
    """Locations where the two inputs disagree, with what each says."""
    return {
        n: v.reason
        for n, v in observation.views.items()
        if v.seen is Seen.UNKNOWN and v.reason.startswith("the sensor board")
    }
