"""Sequences through the whole pipeline: hands, placements, light, calibration."""

from collections.abc import Callable

from vision_testkit import STICKERS

from vision.conditions import Conditions, Light
from vision.geometry import BoardGeometry, CornerMark
from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import CalibrationState, LocationState, SettledView
from vision.render import TableRenderer, View
from vision.sequence import MoveKind, Script, ScriptWriter
from vision.synthetic import demo_piece

Reader = Callable[[VisionPipeline, Image], SettledView]
START = {"C10": (demo_piece(5, 1),), "H5": (demo_piece(9, 2),), "slot2": (demo_piece(57, 0),)}
COND = Conditions(blur_sigma=0.9, noise_sigma=2.5)


def run(renderer: TableRenderer, script: Script, view: View) -> list[SettledView]:
    pipeline = VisionPipeline(renderer.board, STICKERS)
    views = []
    for f, img in script.render(renderer, view, COND, seed=5):
        report = pipeline.process(img, f.index)
        if report.settled is not None:
            views.append(report.settled)
    return views


def writer(renderer: TableRenderer, view: View) -> ScriptWriter:
    w = ScriptWriter(renderer, view, START, hand_frames=6, rest_frames=6, seed=2)
    w.rest()
    return w


def test_a_hand_crossing_the_board_reports_no_change(renderer: TableRenderer) -> None:
    view = View.overhead(renderer.board, tilt=0.05)
    w = writer(renderer, view)
    for target in ("C10", "F7", "H5", "slot2"):
        w.cross(target)
    views = run(renderer, w.script, view)
    assert views[0].full_decode
    assert [v.changed for v in views[1:]] == []


def test_a_piece_placed_under_a_passing_hand_is_reported_once_it_leaves(
    renderer: TableRenderer,
) -> None:
    view = View.overhead(renderer.board, turn_deg=-3)
    w = writer(renderer, view)
    w.change(MoveKind.PLACE, "E8", (demo_piece(20, 3),))
    views = run(renderer, w.script, view)
    (move,) = w.script.moves
    (report,) = views[1:]
    assert report.changed == {"E8"}
    assert report.at("E8").ids_and_rotations() == ((20, 3),)
    assert report.at("C10").ids_and_rotations() == ((5, 1),)
    assert move.hands_gone <= report.frame_index <= move.hands_gone + 5


def test_turns_removals_carts_and_cards_are_each_reported_with_the_square(
    renderer: TableRenderer,
) -> None:
    view = View.overhead(renderer.board, tilt=0.1)
    w = writer(renderer, view)
    w.change(MoveKind.TURN, "C10", (demo_piece(5, 2),))
    w.change(MoveKind.REMOVE, "H5", ())
    w.change(MoveKind.CART, "C10", (demo_piece(5, 2), demo_piece(44, 1)))
    w.change(MoveKind.CARD, "slot2", (demo_piece(58, 3),))
    views = run(renderer, w.script, view)[1:]
    assert [sorted(v.changed) for v in views] == [["C10"], ["H5"], ["C10"], ["slot2"]]
    assert views[0].at("C10").ids_and_rotations() == ((5, 2),)
    assert views[1].at("H5").state == LocationState.EMPTY
    assert views[2].at("C10").ids_and_rotations() == ((44, 1),)
    assert views[3].at("slot2").ids_and_rotations() == ((58, 3),)
    for move, v in zip(w.script.moves, views, strict=True):
        assert move.start <= v.frame_index < move.end


def test_a_change_of_light_is_not_a_change_of_the_table(renderer: TableRenderer) -> None:
    view = View.overhead(renderer.board)
    w = writer(renderer, view)
    w.relight(Light(0.8, 0.2, -0.1, 0.2))
    w.relight(Light(1.05, -0.2, 0.2, 0.0))
    w.relight(Light(0.7, 0.0, 0.0, 0.4))
    views = run(renderer, w.script, view)
    assert len(views) == 1 and views[0].full_decode


def test_a_hand_that_rests_is_occluded_then_the_table_is_back(renderer: TableRenderer) -> None:
    view = View.overhead(renderer.board)
    w = writer(renderer, view)
    w.change(MoveKind.PLACE, "E8", (demo_piece(20, 0),))
    w.cross("H5", linger=8)
    views = run(renderer, w.script, view)
    occluded = [v for v in views if v.occluded]
    assert occluded, "a resting hand must be reported as occlusion"
    assert all(v.at("H5").state == LocationState.OCCLUDED for v in occluded)
    assert all(not v.changed - {"E8"} for v in views[1:])
    assert views[-1].occluded == frozenset()
    assert views[-1].at("H5").ids_and_rotations() == ((9, 2),)


def test_a_bumped_camera_is_recalibrated_with_a_full_decode(
    renderer: TableRenderer, read_still: Reader
) -> None:
    board = renderer.board
    pipeline = VisionPipeline(board, STICKERS)
    first = read_still(pipeline, renderer.render(START, View.overhead(board), seed=1))
    moved = renderer.render(START, View.overhead(board, shift=(25, -12), turn_deg=2), seed=2)
    reports = [pipeline.process(moved) for _ in range(12)]
    views = [r.settled for r in reports if r.settled is not None]
    assert first.full_decode
    assert len(views) == 1 and views[0].full_decode and views[0].changed == frozenset()
    assert views[0].at("H5").ids_and_rotations() == ((9, 2),)


def test_hidden_corners_make_calibration_lost_not_garbage(renderer: TableRenderer) -> None:
    board = renderer.board
    view = View.overhead(board)
    pipeline = VisionPipeline(board, STICKERS)
    for _ in range(4):
        pipeline.process(renderer.render(START, view, seed=1))
    covered = renderer.render(START, view, seed=1)
    covered[:, :400] = (40, 40, 40)  # a sheet over the left half: two corners gone
    states = [pipeline.process(covered).calibration for _ in range(60)]
    assert states[0] == CalibrationState.CALIBRATED
    assert states[-1] == CalibrationState.LOST
    assert pipeline.calibrator.reason == "corner markers [0, 3] not seen"
    reports = [pipeline.process(renderer.render(START, view, seed=3)) for _ in range(10)]
    assert reports[-1].calibration == CalibrationState.CALIBRATED


def test_a_layout_that_does_not_match_the_mat_is_implausible(renderer: TableRenderer) -> None:
    board = renderer.board
    c = board.corners
    wrong = BoardGeometry(
        "wrong",
        board.width_mm,
        board.height_mm,
        board.locations,
        (c[0], c[1], CornerMark(c[2].marker_id, c[2].x_mm - 60, c[2].y_mm, c[2].size_mm), c[3]),
    )
    pipeline = VisionPipeline(wrong, STICKERS)
    report = pipeline.process(renderer.render(START, View.overhead(board), seed=1))
    assert report.calibration == CalibrationState.IMPLAUSIBLE
    assert report.settled is None
    assert "disagree with the layout" in pipeline.calibrator.reason


def test_a_mat_out_of_view_is_uncalibrated_and_says_which_corners(
    renderer: TableRenderer,
) -> None:
    pipeline = VisionPipeline(renderer.board, STICKERS)
    blank = renderer.render({}, View.overhead(renderer.board), seed=1)
    blank[:] = 90
    assert pipeline.process(blank).calibration == CalibrationState.UNCALIBRATED
    assert pipeline.calibrator.reason == "corner markers [0, 1, 2, 3] not seen"


def test_a_full_decode_on_request(renderer: TableRenderer, read_still: Reader) -> None:
    pipeline = VisionPipeline(renderer.board, STICKERS)
    frame = renderer.render(START, View.overhead(renderer.board), seed=1)
    read_still(pipeline, frame)
    pipeline.request_full_decode()
    again = read_still(pipeline, frame)
    assert again.full_decode and again.changed == frozenset()


def test_annotated_jpeg_shows_the_settled_view(renderer: TableRenderer, read_still: Reader) -> None:
    import cv2
    import numpy as np

    pipeline = VisionPipeline(renderer.board, STICKERS)
    frame = renderer.render(START, View.overhead(renderer.board), seed=1)
    read_still(pipeline, frame)
    data = pipeline.annotated_jpeg(frame)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert data[:2] == b"\xff\xd8" and image.shape == frame.shape
    b, g, r = (image[:, :, i].astype(int) for i in range(3))
    green = (g > b + 50) & (g > r + 50)
    assert np.count_nonzero(green) > 100  # occupied locations outlined in green


def test_a_corner_marker_touching_the_frame_edge_is_still_found(renderer: TableRenderer) -> None:
    import numpy as np

    from vision.calibration import project

    board = renderer.board
    base = View.overhead(board, tilt=0.1)
    corner = board.corners[3]
    lowest = project(renderer.mat_to_image(base), np.array(corner.corners_mm()))[:, 1].max()
    view = View.overhead(board, tilt=0.1, shift=(0.0, 718.6 - lowest))
    pipeline = VisionPipeline(board, STICKERS)
    report = pipeline.process(renderer.render(START, view, Conditions(0.5, 1.0)))
    assert report.calibration == CalibrationState.CALIBRATED, pipeline.calibrator.reason


def test_a_hand_sweeping_over_a_corner_marker_does_not_recalibrate(
    renderer: TableRenderer,
) -> None:
    import numpy as np

    from vision.calibration import project
    from vision.hands import Hand

    board = renderer.board
    view = View.overhead(board, tilt=0.05)
    pipeline = VisionPipeline(board, STICKERS)
    for _ in range(4):
        pipeline.process(renderer.render(START, view, COND, seed=0))
    first = pipeline.calibrator.calibration
    corner = board.corners[0]
    ((cx, cy),) = project(renderer.mat_to_image(view), np.array([[corner.x_mm, corner.y_mm]]))
    views = []
    for i in range(24):
        hand = Hand(cx - 70 + 6 * i, cy + 20, 40.0, entry=(cx - 70 + 6 * i, 900.0))
        report = pipeline.process(renderer.render(START, view, COND, [hand], seed=i + 1))
        views.append(report.settled)
    for i in range(6):
        views.append(pipeline.process(renderer.render(START, view, COND, seed=50 + i)).settled)
    assert pipeline.calibrator.calibration is first
    assert [v for v in views if v is not None and (v.full_decode or v.changed)] == []


def test_a_hand_resting_from_the_start_stays_occluded_until_it_leaves(
    renderer: TableRenderer, read_still: Reader
) -> None:
    import numpy as np

    from vision.calibration import project
    from vision.hands import Hand

    board = renderer.board
    view = View.overhead(board)
    to_px = renderer.mat_to_image(view)
    centres_mm = np.array([[270.0, 270.0], [70.0, 70.0]])  # f6, a1
    (fx, fy), (ax, ay) = project(to_px, centres_mm)
    resting = Hand(fx, fy, 50.0, entry=(fx, 900.0))
    pipeline = VisionPipeline(board, STICKERS)
    first = read_still(pipeline, renderer.render(START, view, COND, [resting], seed=1))
    assert first.at("F7").state == LocationState.OCCLUDED
    # another hand passes over a1 and leaves while the first one keeps resting
    for i in range(6):
        passing = Hand(ax + 8 * i, ay, 40.0, entry=(ax + 8 * i, -200.0))
        pipeline.process(renderer.render(START, view, COND, [resting, passing], seed=10 + i))
    still = [
        pipeline.process(renderer.render(START, view, COND, [resting], seed=20 + i))
        for i in range(5)
    ]
    assert all(r.settled is None or "F7" in r.settled.occluded for r in still)
    assert pipeline.last_view is not None and "F7" in pipeline.last_view.occluded
    gone = read_still(pipeline, renderer.render(START, view, COND, seed=30))
    assert gone.at("F7").state == LocationState.EMPTY and gone.occluded == frozenset()


def test_a_hard_bump_reports_no_change_and_recalibrates(renderer: TableRenderer) -> None:
    board = renderer.board
    for shift, turn in (((60.0, 30.0), 0.0), ((-70.0, -20.0), 1.5)):
        pipeline = VisionPipeline(board, STICKERS)
        still = renderer.render(START, View.overhead(board), COND, seed=1)
        for _ in range(5):
            pipeline.process(still)
        first = pipeline.calibrator.calibration
        moved = View.overhead(board, shift=shift, turn_deg=turn)
        reports = [
            pipeline.process(renderer.render(START, moved, COND, seed=2 + i)) for i in range(12)
        ]
        views = [r.settled for r in reports if r.settled is not None]
        assert [v.changed for v in views if v.changed] == [], shift
        assert pipeline.calibrator.calibration is not first
        assert len(views) == 1 and views[0].full_decode and views[0].occluded == frozenset()
        got = {r.name: r.ids_and_rotations() for r in views[0].readings if r.markers}
        assert got == {"C10": ((5, 1),), "H5": ((9, 2),), "slot2": ((57, 0),)}


def test_a_grey_frame_is_refused_at_the_door_with_a_clear_error(renderer: TableRenderer) -> None:
    import cv2
    import pytest

    pipeline = VisionPipeline(renderer.board, STICKERS)
    colour = renderer.render(START, View.overhead(renderer.board), seed=1)
    grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    for bad in (grey, grey[:, :, None], colour.astype("float32")):
        for _ in range(5):  # refused on the first frame, not at the first settle
            with pytest.raises(ValueError, match="BGR colour frame"):
                pipeline.process(bad)
    assert pipeline.process(colour).calibration == CalibrationState.CALIBRATED


def test_under_a_warm_lamp_moves_are_reported_and_a_resting_hand_is_occluded(
    renderer: TableRenderer,
) -> None:
    import numpy as np

    view = View.overhead(renderer.board, tilt=0.05)
    w = writer(renderer, view)
    w.change(MoveKind.PLACE, "E8", (demo_piece(20, 0),))
    w.cross("H5", linger=8)
    w.change(MoveKind.REMOVE, "C10", ())
    pipeline = VisionPipeline(renderer.board, STICKERS)
    lamp = np.array((0.80, 0.92, 1.0), np.float32)  # blue -20 %, green -8 %
    views = []
    for f, img in w.script.render(renderer, view, COND, seed=5):
        warm = np.clip(img.astype(np.float32) * lamp, 0, 255).astype(np.uint8)
        report = pipeline.process(warm, f.index)
        if report.settled is not None:
            views.append(report.settled)
    assert views[0].full_decode and views[0].occluded == frozenset()
    assert [sorted(v.changed) for v in views[1:] if v.changed] == [["E8"], ["C10"]]
    assert any(v.at("H5").state == LocationState.OCCLUDED for v in views)
    last = views[-1]
    assert last.occluded == frozenset()
    assert {r.name: r.ids_and_rotations() for r in last.readings if r.markers} == {
        "E8": ((20, 0),),
        "H5": ((9, 2),),
        "slot2": ((57, 0),),
    }
