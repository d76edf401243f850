"""Shared fixtures: the demo board, its renderer and a helper that reads a still table."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.vision.vision_testkit import read_still
from vision.geometry import BoardGeometry
from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import SettledView
from vision.render import TableRenderer
from vision.synthetic import demo_board


@pytest.fixture(scope="session")
def board() -> BoardGeometry:
    return demo_board()


@pytest.fixture(scope="session")
def renderer(board: BoardGeometry) -> TableRenderer:
    return TableRenderer(board)


@pytest.fixture(name="read_still")
def read_still_fixture() -> Callable[[VisionPipeline, Image], SettledView]:
    return read_still
