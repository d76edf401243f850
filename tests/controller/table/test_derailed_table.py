"""Derailed!'s white cards under the simulated camera (issue 23's vision): a card lying on the
mat is read there, never taken as held above the board nor its white body as glare."""

from __future__ import annotations

from controller.simulated.camera import SimulatedCamera
from controller.simulated.table import PhysicalTable
from controller.vision_bridge import observation, stickers
from rules.derailed import physical
from rules.derailed.grid import slot_names
from rules.physical import PlacedPiece, TableObservation
from vision.pipeline import VisionPipeline
from vision.readings import LocationState


def test_white_cards_laid_one_by_one_are_read_where_they_lie() -> None:
    """Cards laid one after another over a whole 4-lane mat: each settled view reads every card
    where it lies, and nothing unknown. (A white card on B2 was read 12 % bigger than the cards
    before it, since OpenCV's corners sometimes lie inside a marker's border: it was taken as
    held above the board, its blown-out body then as glare, and the game stalled.)"""
    layout, catalogue = physical.layout(4), physical.catalogue()
    turns = {e.piece: e.rotations for e in catalogue.entries}
    table = PhysicalTable(layout, catalogue)
    camera = SimulatedCamera(table, layout, catalogue)
    pipeline = VisionPipeline(camera.geometry, stickers(catalogue))
    rails = [e.piece for e in catalogue.entries if e.piece.kind == "rail"]
    laid: dict[str, tuple[PlacedPiece, ...]] = {}
    for i, name in enumerate(slot_names(4)):
        laid[name] = (PlacedPiece(rails[i % len(rails)], 1 + 2 * (i % 2)),)
        table.lay(dict(laid))
        seen: TableObservation | None = None
        for _ in range(10):
            report = pipeline.process(camera.frame())
            if report.settled is not None:
                unknown = [
                    (r.name, r.reason)
                    for r in report.settled.readings
                    if r.state == LocationState.OCCLUDED
                ]
                assert not unknown, f"after laying {name}: {unknown}"
                seen = observation(report.settled, catalogue)
        assert seen is not None, f"no view after laying {name}"
        for where, pieces in laid.items():
            expected = tuple(PlacedPiece(p.piece, p.rotation % turns[p.piece]) for p in pieces)
            assert seen.at(where) == expected, where
