"""The simulated camera: frames of the simulated table from the synthetic renderer, a hand crossing
after each change, and a fault knob that unplugs it."""

from __future__ import annotations

import time
from typing import Any

from controller.simulated.table import PhysicalTable
from controller.vision_bridge import board_geometry
from rules.physical import Catalogue, Layout
from vision.render import Conditions, Hand, TableRenderer, View


class SimulatedCamera:
    """Frames of the simulated table from the synthetic renderer; a hand crosses after a change."""

    def __init__(self, table: PhysicalTable, layout: Layout, catalogue: Catalogue) -> None:
        self.table = table
        self.geometry = board_geometry(layout, catalogue)
        self.renderer = TableRenderer(self.geometry, px_per_mm=1.5)
        self.view = View.overhead(self.geometry, 1280, 720, fill=0.94)
        self.conditions = Conditions(blur_sigma=0.6, noise_sigma=1.5)
        self.index = 0
        self._seen_version = -1
        self._hand_frames = 0
        self.unplugged_until = 0.0

    def unplug(self, seconds: float) -> None:
        """The fault knob: no frames for `seconds`, as a camera whose cable was pulled."""
        self.unplugged_until = time.monotonic() + seconds

    def frame(self) -> Any:
        if time.monotonic() < self.unplugged_until:
            return None
        version = self.table.version
        if version != self._seen_version:
            self._seen_version = version
            self._hand_frames = 2  # the hand that moved the piece leaves over two frames
        hands: tuple[Hand, ...] = ()
        if self._hand_frames > 0:
            self._hand_frames -= 1
            x = 200.0 + 300.0 * self._hand_frames
            hands = (Hand(x, 700.0, 40.0, (x, 760.0)),)
        self.index += 1
        return self.renderer.render(
            self.table.content(), self.view, self.conditions, hands, seed=self.index
        )
