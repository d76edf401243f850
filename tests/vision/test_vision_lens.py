"""The lens: a wide, tilted camera's barrel distortion is measured from the corner markers (or
taken from a stored calibration) and undone, so every square lies where the rules' mat says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from vision_testkit import STICKERS

import rules
from controller.vision_bridge import board_geometry
from vision.calibration import Calibrator, project
from vision.conditions import Conditions
from vision.geometry import BoardGeometry
from vision.lens import Lens, load_lens, save_lens
from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import CalibrationState, LocationState, SettledView
from vision.render import TableRenderer, View
from vision.synthetic import demo_piece

Reader = Callable[[VisionPipeline, Image], SettledView]
COND = Conditions(blur_sigma=0.8, noise_sigma=2.0)


@pytest.fixture(scope="module")
def mat() -> tuple[BoardGeometry, TableRenderer]:
    info = rules.game_info("offtherails")
    assert info.layout is not None and info.catalogue is not None
    board = board_geometry(info.layout({}), info.catalogue())
    return board, TableRenderer(board, px_per_mm=1.5)


def test_distort_and_undistort_are_inverse_within_the_lens_reach() -> None:
    for k1 in (-0.3, -0.1, 0.0, 0.15):
        lens = Lens(900.0, 900.0, 640.0, 360.0, (k1, 0.01, 0.001, -0.001, 0.0), (1280, 720))
        u, v = np.meshgrid(np.arange(100, 1180, 37.0), np.arange(60, 660, 29.0))
        ideal = np.stack([u.ravel(), v.ravel()], axis=1)
        assert np.abs(lens.undistort(lens.distort(ideal)) - ideal).max() < 1e-6


@pytest.mark.parametrize("tilt", [0.0, 25.0])
@pytest.mark.parametrize("k1", [0.0, -0.2, -0.3])
def test_every_square_is_found_within_two_millimetres_under_a_wide_tilted_lens(
    mat: tuple[BoardGeometry, TableRenderer], tilt: float, k1: float
) -> None:
    board, renderer = mat
    view = View.camera(board, 1280, 720, tilt_deg=tilt, k1=k1, fill=0.92)
    frame = renderer.render({}, view, COND, seed=1)
    calibrator = Calibrator(board)
    for _ in range(3):
        calibrator.update(frame)
    # before: 7.6 mm off at k1 = -0.2 (tilted 25 degrees), and rejected at -0.3
    assert calibrator.state is CalibrationState.CALIBRATED, calibrator.reason
    cal = calibrator.calibration
    assert cal is not None
    mm = np.array([[loc.x_mm, loc.y_mm] for loc in board.locations])
    seen_at = view.lens.distort(project(renderer.mat_to_image(view), mm))
    assert np.linalg.norm(cal.to_mat(seen_at) - mm, axis=1).max() < 2.0
    assert np.linalg.norm(cal.to_image(mm) - seen_at, axis=1).max() < 4.0


def test_pieces_read_right_through_a_wide_tilted_lens(
    renderer: TableRenderer, read_still: Reader
) -> None:
    board = renderer.board
    content = {
        "A1": (demo_piece(5, 1),),
        "L12": (demo_piece(9, 2),),
        "F7": (demo_piece(20, 3),),
        "A12": (demo_piece(21, 0),),
        "L1": (demo_piece(22, 1),),
    }
    view = View.camera(board, 1280, 720, tilt_deg=25, k1=-0.3, fill=0.92)
    frame = renderer.render(content, view, COND, seed=3)
    pipeline = VisionPipeline(board, STICKERS)
    settled = read_still(pipeline, frame)
    for name, pieces in content.items():
        reading = settled.at(name)
        assert reading.state is LocationState.OCCUPIED, (name, reading)
        assert reading.ids_and_rotations() == tuple((p.marker_id, p.rotation) for p in pieces)
    others = [r for r in settled.readings if r.name not in content]
    assert all(r.state is LocationState.EMPTY for r in others), [
        r for r in others if r.state is not LocationState.EMPTY
    ]


def test_a_stored_lens_is_used_and_a_damaged_one_named(
    mat: tuple[BoardGeometry, TableRenderer], tmp_path: Path
) -> None:
    board, renderer = mat
    view = View.camera(board, 1280, 720, tilt_deg=10, k1=-0.25, fill=0.92)
    save_lens(tmp_path, "/dev/video0", view.lens)
    lens = load_lens(tmp_path, "/dev/video0")
    assert lens == view.lens
    assert load_lens(tmp_path, "another camera") is None
    frame = renderer.render({}, view, COND, seed=2)
    calibrator = Calibrator(board, lens=lens)
    for _ in range(3):
        calibrator.update(frame)
    assert calibrator.calibration is not None and calibrator.calibration.lens == view.lens
    half = Calibrator(board, lens=lens)
    half.update(frame[:, :960].copy())
    assert "calibrate the camera again" in half.reason
    path = next(tmp_path.glob("lens-*.json"))
    path.write_text('{"fx": "wide"}')
    with pytest.raises(ValueError, match="not a lens record"):
        load_lens(tmp_path, "/dev/video0")


def test_an_out_of_focus_camera_says_so_and_a_covered_corner_is_named(
    mat: tuple[BoardGeometry, TableRenderer],
) -> None:
    board, renderer = mat
    view = View.camera(board, 1280, 720, tilt_deg=10, fill=0.92)
    blurred = renderer.render({}, view, Conditions(blur_sigma=4.0, noise_sigma=2.0), seed=1)
    calibrator = Calibrator(board)
    calibrator.update(blurred)
    assert calibrator.state is CalibrationState.UNCALIBRATED
    assert "out of focus" in calibrator.reason and "focus ring" in calibrator.reason
    sharp = renderer.render({}, view, COND, seed=1)
    corner = board.corners[2]
    at = project(renderer.mat_to_image(view), np.array([[corner.x_mm, corner.y_mm]]))[0]
    covered = sharp.copy()
    x, y = int(at[0]), int(at[1])
    covered[y - 40 : y + 40, x - 40 : x + 40] = (90, 120, 170)  # a hand over corner 2
    calibrator = Calibrator(board)
    calibrator.update(covered)
    assert calibrator.reason == "corner markers [2] not seen", calibrator.reason
