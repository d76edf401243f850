"""The stabiliser: motion unsettles the view; enough still frames in a row settle it again."""

from __future__ import annotations

from dataclasses import dataclass

from vision.readings import Stability


@dataclass
class Stabiliser:
    """Pure state machine fed one motion flag per frame.

    `step` answers True exactly once per unsettled period: on the `still_frames`-th still frame in
    a row, when the new view may be compared with the last settled one. It starts unsettled, so the
    first still frames give the first settled view.
    """

    still_frames: int = 3
    state: Stability = Stability.UNSETTLED
    still_count: int = 0

    def step(self, motion: bool) -> bool:
        if motion:
            self.state = Stability.UNSETTLED
            self.still_count = 0
            return False
        if self.state == Stability.SETTLED:
            return False
        self.still_count += 1
        if self.still_count >= self.still_frames:
            self.state = Stability.SETTLED
            return True
        return False

    def unsettle(self) -> None:
        """Force a new settled view (start, recalibration, a request for a full decode)."""
        self.state = Stability.UNSETTLED
        self.still_count = 0
