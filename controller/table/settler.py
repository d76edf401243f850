"""When the table has settled: the one place that decides, from what each tick saw, whether the
table is judged now, judged on the sensor board's word before the camera's, or waited for.

Pure: no threads and no clock of its own (the time comes with each look). The camera's frames are
steadied by the vision pipeline first (its own stabiliser says whether a frame's view is still);
this joins that word with the fused table, the simulated table's version, the game's changes and
the event log's health.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.referee.observe import Observation, fuse, magnet_changes
from controller.referee.verdict import VerdictKind
from rules.physical import Catalogue, Layout, TableObservation

STORE_RETRY_S = 1.0  # while the event log cannot be written, the table is judged again this often
# Before the camera has seen the table, a verdict is acted on only when it applies what the
# magnets alone make certain; anything else is left unsaid until the camera has looked.
BOARD_FIRST_VERDICTS = frozenset({VerdictKind.APPLIED})


class Settle(StrEnum):
    """What a tick does with the table it saw."""

    WAIT = "wait"  # something still moves, or this table was judged already
    JUDGE = "judge"  # the table has settled: judge it
    BOARD_FIRST = "board first"  # the board has settled, the camera not yet: judge the magnets


@dataclass(frozen=True)
class Readings:
    """The inputs at one tick: the game's mat, the camera's settled table (None: no camera, or
    none yet) and the squares the sensor board feels (None: no board connected)."""

    layout: Layout
    catalogue: Catalogue
    camera: TableObservation | None
    occupied: frozenset[tuple[int, int]] | None

    def fused(self) -> Observation:
        """The table now, the camera's and the board's words joined."""
        return fuse(self.layout, self.catalogue, self.camera, self.occupied)

    def board_first(self) -> tuple[Observation | None, frozenset[str]]:
        """Where the sensor board has felt a magnetic piece come or go that the camera has not
        seen yet (its magnets settle in milliseconds, the camera waits for a hand to go and for
        still frames), and the table as the board has it, to judge before the camera, when
        pieces the camera knew moved: as many magnets left squares as arrived on others. A
        magnet that only arrives may be any piece (a mistake the camera would name, read by the
        magnets as a legal piece), one that only leaves a move half made: the camera judges."""
        arrived, left = magnet_changes(self.layout, self.catalogue, self.camera, self.occupied)
        if not arrived or len(left) != len(arrived):
            return None, arrived | left
        early = fuse(self.layout, self.catalogue, self.camera, self.occupied, catching_up=True)
        return early, arrived | left


@dataclass(frozen=True)
class Glance:
    """What one tick saw: the fused table, the camera's own word, the game's change count."""

    table: Observation
    camera_still: bool = True  # the camera's view is still (always, without a camera)
    shown_version: int = -1  # the simulated table's version its camera's last frame showed
    table_version: int | None = None  # the simulated table's version now (None: a real camera)
    changes: int = 0  # the game's change count (a phone's answer, decision or undo bumps it)
    store_failing: bool = False  # the event log cannot be written


class Settler:
    """Decides, tick by tick, when the table has settled: the same fused table for
    `settle_ticks` looks (the board debounces and the camera steadies its frames: this only
    joins the two), the camera still and not behind the simulated table, and something new to
    judge (another table, or the game changed from a phone since)."""

    def __init__(self, settle_ticks: int, store_retry_s: float = STORE_RETRY_S) -> None:
        self.settle_ticks = settle_ticks
        self.store_retry_s = store_retry_s
        self.last: Observation | None = None  # the table the last look saw
        self.camera_still = True  # the camera sees nothing moving, as of the last look
        self._quiet = 0  # looks since the table last changed
        self._judged: Observation | None = None
        self._board_first: Observation | None = None  # last judged before the camera saw it
        self._judged_changes = -1  # the game's change count when the table was last judged
        self._retry_at = 0.0  # a full disk: when to try writing the table's verdict again

    def look(self, glance: Glance, now: float) -> Settle:
        """One tick's look. JUDGE and BOARD_FIRST count as that table judged: the caller judges
        it and then says how it went (`judged`)."""
        behind = glance.table_version is not None and glance.shown_version != glance.table_version
        self.camera_still = glance.camera_still and not behind  # a frame of the table before
        # the change, fused with the board after it, would be judged a mistake
        if glance.table != self.last:
            self.last, self._quiet = glance.table, 0
        else:
            self._quiet += 1
        if not self._quiet_enough():
            return Settle.WAIT
        if self.camera_still:
            new = glance.table != self._judged or glance.changes != self._judged_changes
            if new and (not glance.store_failing or now >= self._retry_at):
                self._judged = glance.table
                return Settle.JUDGE
            return Settle.WAIT
        if glance.table != self._board_first and not glance.store_failing:
            self._board_first = glance.table
            return Settle.BOARD_FIRST
        return Settle.WAIT

    def judged(self, changes: int, stored: bool, now: float) -> None:
        """The table was judged and acted on, the game now at `changes`; `stored`: its verdict
        was written (if not, it is judged again every `store_retry_s` until it is)."""
        self._judged_changes = changes
        if not stored:
            self._judged = None
            self._retry_at = now + self.store_retry_s

    def look_again(self) -> None:
        """Judge the table again at the next settled look, even if it looks the same (a bot
        played: what it did may be nothing the inputs see)."""
        self._judged = None

    def forget(self) -> None:
        """The inputs were wired anew (another mat): every table seen so far is forgotten."""
        self.last = self._judged = self._board_first = None

    @property
    def settled(self) -> bool:
        """The table unchanged, the camera still, and this table judged."""
        return self._quiet_enough() and self.camera_still and self._judged == self.last

    def _quiet_enough(self) -> bool:
        return self._quiet >= self.settle_ticks
