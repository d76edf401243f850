"""Shared fixtures: the demo board, its renderer and a helper that reads a still table."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vision.geometry import BoardGeometry
from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import SettledView
from vision.render import TableRenderer
from vision.synthetic import demo_board, demo_stickers

STICKERS = demo_stickers()


@pytest.fixture(scope="session")
def board() -> BoardGeometry:
    return demo_board()


@pytest.fixture(scope="session")
def renderer(board: BoardGeometry) -> TableRenderer:
    return TableRenderer(board)


def read_still(pipeline: VisionPipeline, frame: Image) -> SettledView:
    """Feed one still frame until the pipeline settles; return its settled view."""
    for _ in range(pipeline.settings.still_frames + 2):
        report = pipeline.process(frame)
        if report.settled is not None:
            return report.settled
    raise AssertionError(f"no settled view: calibration {pipeline.calibrator.reason}")


@pytest.fixture(name="read_still")
def read_still_fixture() -> Callable[[VisionPipeline, Image], SettledView]:
    return read_still
