"""The simulated camera: frames of the simulated table from the synthetic renderer, a hand crossing
after each change, and a fault knob that unplugs it."""

from __future__ import annotations

import time
from typing import Any

import cv2
import numpy as np

from controller.simulated.table import PhysicalTable
from controller.vision_bridge import board_geometry
from rules.physical import Catalogue, Layout
from vision.conditions import Conditions
from vision.hands import Hand
from vision.render import TableRenderer, View

NOISE_SIGMA = 1.5  # the sensor's noise (grey levels)
NOISE_FRAMES = 3  # frames of noise drawn once and taken in turn: drawing 2.8 million normal
# numbers took most of a frame's time (about 60 of 80 ms), and a still table must still look
# like a camera's (never two frames alike in a row), not like a picture


class SimulatedCamera:
    """Frames of the simulated table from the synthetic renderer; a hand crosses after a change.

    `frame` may run on a thread of its own: it reads the table once per frame, at one version
    (`shown_version`: the table's version the last frame showed)."""

    def __init__(self, table: PhysicalTable, layout: Layout, catalogue: Catalogue) -> None:
        self.table = table
        self.geometry = board_geometry(layout, catalogue)
        self.renderer = TableRenderer(self.geometry, px_per_mm=1.5)
        self.view = View.overhead(self.geometry, 1280, 720, fill=0.94)
        self.conditions = Conditions(blur_sigma=0.6, noise_sigma=0.0)
        self._noise = [
            np.clip(
                np.rint(
                    np.random.default_rng(n).standard_normal((720, 1280, 3), np.float32)
                    * NOISE_SIGMA
                ),
                -127,
                127,
            ).astype(np.int8)
            for n in range(NOISE_FRAMES)
        ]
        self.index = 0
        self.shown_version = -1
        self._hand_frames = 0
        self.unplugged_until = 0.0

    def unplug(self, seconds: float) -> None:
        """The fault knob: no frames for `seconds`, as a camera whose cable was pulled."""
        self.unplugged_until = time.monotonic() + seconds

    def frame(self) -> Any:
        if time.monotonic() < self.unplugged_until:
            return None
        version, content = self.table.seen()
        if version != self.shown_version:
            self.shown_version = version
            self._hand_frames = 2  # the hand that moved the piece leaves over two frames
        hands: tuple[Hand, ...] = ()
        if self._hand_frames > 0:
            self._hand_frames -= 1
            x = 200.0 + 300.0 * self._hand_frames
            hands = (Hand(x, 700.0, 40.0, (x, 760.0)),)
        self.index += 1
        image = self.renderer.render(content, self.view, self.conditions, hands, seed=self.index)
        return cv2.add(image, self._noise[self.index % NOISE_FRAMES], dtype=cv2.CV_8U)

    @property
    def moving(self) -> bool:
        """A hand is still to cross the view (frames of it are yet to come)."""
        return self._hand_frames > 0
