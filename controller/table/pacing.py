"""Chores of the table's tick that come round every so often (the time is passed in)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Every:
    """A chore due every `period_s` seconds of the monotonic clock, first at `next_at`."""

    period_s: float
    next_at: float = 0.0

    def due(self, now: float) -> bool:
        """True (and the next time set) when the chore is due at `now`."""
        if now < self.next_at:
            return False
        self.next_at = now + self.period_s
        return True


@dataclass(frozen=True)
class Pacing:
    """What the tick does now and then: pet systemd's watchdog (None: no watchdog), give freed
    memory back, let a bot play on the simulated table, step a camera with no thread of its own."""

    watchdog: Every | None
    trim: Every
    bots: Every
    frames: Every
