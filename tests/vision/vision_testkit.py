"""Helpers shared by the vision tests (a unique module name: test folders are not packages)."""

from __future__ import annotations

from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import SettledView
from vision.synthetic import demo_stickers

STICKERS = demo_stickers()


def read_still(pipeline: VisionPipeline, frame: Image) -> SettledView:
    """Feed one still frame until the pipeline settles; return its settled view."""
    for _ in range(pipeline.settings.still_frames + 2):
        report = pipeline.process(frame)
        if report.settled is not None:
            return report.settled
    raise AssertionError(f"no settled view: calibration {pipeline.calibrator.reason}")
