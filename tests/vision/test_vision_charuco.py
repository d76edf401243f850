"""Measuring a lens from a printed ChArUco sheet held in front of the camera."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.charuco import Collector, find_sheet, measure_lens, sheet_image
from vision.conditions import bend
from vision.lens import Lens
from vision.markers import Image

SIZE = (1280, 720)
TRUE = Lens(1090.0, 1090.0, 650.0, 355.0, (-0.3, 0.08, 0.0, 0.0, 0.0), SIZE)
PX_PER_MM = 4.0


def _photo(pattern: Image, yaw: float, pitch: float, x: float, y: float, z: float) -> Image:
    """The sheet `z` mm from the camera, turned, seen through the true lens."""
    h, w = pattern.shape[:2]
    mm = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) / PX_PER_MM
    mm -= mm.mean(axis=0)
    pts = np.c_[mm, np.zeros(4)]
    rvec = np.array([math.radians(pitch), math.radians(yaw), 0.0])
    k = np.array([[TRUE.fx, 0, TRUE.cx], [0, TRUE.fy, TRUE.cy], [0, 0, 1]])
    ideal, _ = cv2.projectPoints(pts, rvec, np.array([x, y, z], np.float64), k, None)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hom = cv2.getPerspectiveTransform(src, ideal.reshape(4, 2).astype(np.float32))
    grey = cv2.warpPerspective(pattern, hom, SIZE, borderValue=(95,))
    frame = bend(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), TRUE)
    return cv2.GaussianBlur(frame, (0, 0), 0.7)


def test_twelve_varied_views_of_the_sheet_measure_the_lens() -> None:
    pattern = sheet_image(PX_PER_MM)
    collector = Collector(SIZE)
    poses = [
        (yaw, pitch, x, y, z)
        for z in (420.0, 560.0)
        for x, y in ((-150, -80), (150, -80), (150, 80), (-150, 80), (0, 0))
        for yaw, pitch in ((12, -8), (-10, 10))
    ]
    advice = [collector.advice()]
    for pose in poses:
        collector.offer(find_sheet(_photo(pattern, *pose)))
        advice.append(collector.advice())
        if collector.done:
            break
    assert collector.done, advice
    assert "top left" in advice[0]
    lens, rms = measure_lens(collector.views, SIZE)
    assert rms < 1.0
    # where the lens puts points over the frame, as the true lens does (within 1.5 px)
    u, v = np.meshgrid(np.linspace(150, 1130, 12), np.linspace(90, 630, 8))
    ideal = np.stack([u.ravel(), v.ravel()], axis=1)
    true_raw = TRUE.distort(ideal)
    assert np.abs(lens.undistort(true_raw) - ideal).max() < 3.0 or _same_mapping(lens, true_raw)


def _same_mapping(lens: Lens, raw: np.ndarray) -> bool:
    """Lenses can differ in focal length and still straighten lines alike: compare the ideal
    points up to a homography (which the mat's calibration absorbs)."""
    ideal_true = TRUE.undistort(raw)
    ideal_ours = lens.undistort(raw)
    h, _ = cv2.findHomography(ideal_ours, ideal_true, 0)
    mapped = cv2.perspectiveTransform(ideal_ours.reshape(-1, 1, 2), h).reshape(-1, 2)
    return bool(np.abs(mapped - ideal_true).max() < 1.5)


def test_too_few_views_are_refused_in_words() -> None:
    import pytest

    with pytest.raises(ValueError, match="at least 4"):
        measure_lens([], SIZE)
