"""The pure parts: settled comparison (real change vs light) and the stabiliser."""

import numpy as np
import pytest

from vision.change import CellBoxes, compare, motion_counts
from vision.geometry import MarkerFamily
from vision.markers import marker_image
from vision.readings import Stability
from vision.stabiliser import Stabiliser

N, CELL = 4, 20


def grid() -> CellBoxes:
    xs = np.array([c * CELL for _ in range(N) for c in range(N)], dtype=np.intp)
    ys = np.array([r * CELL for r in range(N) for _ in range(N)], dtype=np.intp)
    names = tuple(f"{r}{c}" for r in range(N) for c in range(N))
    return CellBoxes(names, xs, ys, xs + CELL, ys + CELL)


def board(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((N * CELL, N * CELL), 220.0)
    img[25:35, 25:35] = marker_image(MarkerFamily.ARUCO_4X4_100, 9, 10)  # a piece on "11"
    return np.clip(img + rng.normal(0, 1.5, img.shape), 0, 255).astype(np.uint8)


def relight(img: np.ndarray, gain: float, slope: float) -> np.ndarray:
    """Light times `gain`, rising by `slope` from the middle to the edge of a 640 mm mat (this
    80-cell board is a quarter of one at 2 mm per cell)."""
    ramp = 1 + slope * np.linspace(-0.25, 0.25, img.shape[1])[None, :]
    return np.clip(img * gain * ramp, 0, 255).astype(np.uint8)


def test_a_new_marker_is_a_change_and_nothing_else_is() -> None:
    before, after = board(0), board(1)
    after[45:55, 65:75] = marker_image(MarkerFamily.ARUCO_4X4_100, 12, 10)  # on "23"
    cmp = compare(before, after, grid())
    assert cmp.changed == {"23"}


def test_a_turned_marker_is_a_change() -> None:
    before, after = board(0), board(1)
    after[25:35, 25:35] = np.rot90(after[25:35, 25:35])
    assert compare(before, after, grid()).changed == {"11"}


@pytest.mark.parametrize(("gain", "slope"), [(0.7, 0.0), (1.15, 0.0), (0.8, 0.25), (1.0, -0.3)])
def test_light_over_the_whole_mat_changes_nothing(gain: float, slope: float) -> None:
    before, after = board(0), relight(board(1), gain, slope)
    cmp = compare(before, after, grid())
    assert cmp.changed == frozenset()
    assert cmp.relit  # it did look different: the references get refreshed


def test_a_soft_shadow_over_a_few_locations_is_light_not_a_change() -> None:
    before, after = board(0), board(1).astype(float)
    after[0:40, 0:40] *= 0.8
    cmp = compare(before, after.astype(np.uint8), grid())
    assert cmp.changed == frozenset() and {"00", "01", "10", "11"} <= cmp.relit


def test_motion_counts_cells_per_location() -> None:
    a = board(0)
    b = a.copy()
    b[60:63, 0:5] = 0
    counts = motion_counts(a, b, grid(), 16)
    assert counts.tolist() == [0] * 12 + [15, 0, 0, 0]


def test_stabiliser_settles_once_after_enough_still_frames() -> None:
    s = Stabiliser(still_frames=3)
    assert [s.step(m) for m in (False, False, False, False)] == [False, False, True, False]
    assert s.state == Stability.SETTLED
    steps = [s.step(m) for m in (True, False, True, False, False, False, False)]
    assert steps == [False, False, False, False, False, True, False]
    s.unsettle()
    assert s.state == Stability.UNSETTLED
    assert [s.step(False) for _ in range(3)] == [False, False, True]
