import numpy as np
import pytest

from vision.geometry import BoardGeometry, CornerMark, MarkerFamily, Rect
from vision.markers import bit_confidence, detect, make_detector, marker_image

CORNERS = (
    CornerMark(0, 20, 20, 30),
    CornerMark(1, 280, 20, 30),
    CornerMark(2, 280, 180, 30),
    CornerMark(3, 20, 180, 30),
)


def test_family_smallest_for_picks_the_smallest_that_holds_the_id() -> None:
    assert MarkerFamily.smallest_for(49) == MarkerFamily.ARUCO_4X4_50
    assert MarkerFamily.smallest_for(50) == MarkerFamily.ARUCO_4X4_100
    assert MarkerFamily.smallest_for(999) == MarkerFamily.ARUCO_4X4_1000
    with pytest.raises(ValueError, match="1000"):
        MarkerFamily.smallest_for(1000)


def test_board_rejects_duplicate_names_and_locations_off_the_mat() -> None:
    with pytest.raises(ValueError, match=r"duplicate location names \['A12'\]"):
        BoardGeometry("b", 300, 200, (Rect("A12", 50, 50, 40, 40),) * 2, CORNERS)
    with pytest.raises(ValueError, match="'x9' lies outside"):
        BoardGeometry("b", 300, 200, (Rect("x9", 290, 50, 40, 40),), CORNERS)
    with pytest.raises(ValueError, match="corner marker ids must differ"):
        BoardGeometry("b", 300, 200, (), (CORNERS[0],) * 4)


def test_marker_image_rejects_ids_outside_the_family() -> None:
    with pytest.raises(ValueError, match="marker id 100 is outside family aruco_4x4_100"):
        marker_image(MarkerFamily.ARUCO_4X4_100, 100, 60)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_detected_rotation_is_quarter_turns_clockwise(turns: int) -> None:
    fam = MarkerFamily.ARUCO_4X4_100
    img = np.full((120, 120), 255, np.uint8)
    img[30:90, 30:90] = marker_image(fam, 42, 60)
    img = np.ascontiguousarray(np.rot90(img, -turns))
    (found,) = detect(make_detector(fam), img)
    assert (found.marker_id, found.quarter_turns()) == (42, turns)
    assert bit_confidence(img, found, fam) > 0.9
