"""Reliable host-to-board commands: stop-and-wait with acknowledgement and RFC 6298 timeouts."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum

from firmware_bridge.messages import AckStatus, Command


@dataclass(frozen=True)
class RetransmitPolicy:
    """Bounds of the retransmission timeout and how many sends a command gets."""

    initial_rto_s: float = 0.1
    min_rto_s: float = 0.03
    max_rto_s: float = 0.25
    max_attempts: int = 6


class RtoEstimator:
    """Retransmission timeout from measured round trips (RFC 6298: SRTT, RTTVAR, K=4)."""

    def __init__(self, policy: RetransmitPolicy) -> None:
        self._policy = policy
        self._srtt: float | None = None
        self._rttvar = 0.0
        self.rto_s = policy.initial_rto_s

    def sample(self, rtt_s: float) -> None:
        """Fold in the round trip of a command acknowledged on its first send (Karn)."""
        if self._srtt is None:
            self._srtt = rtt_s
            self._rttvar = rtt_s / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - rtt_s)
            self._srtt = 0.875 * self._srtt + 0.125 * rtt_s
        self.rto_s = self._clamp(self._srtt + 4 * self._rttvar)

    def restore(self) -> None:
        """Return to the timeout computed from the samples, undoing any back-off."""
        base = self._policy.initial_rto_s if self._srtt is None else self._srtt + 4 * self._rttvar
        self.rto_s = self._clamp(base)

    def back_off(self) -> None:
        """Double the timeout after a retransmission."""
        self.rto_s = self._clamp(self.rto_s * 2)

    def _clamp(self, rto: float) -> float:
        return min(self._policy.max_rto_s, max(self._policy.min_rto_s, rto))


class Outcome(Enum):
    """How a command ended."""

    ACKED = "acknowledged"
    REFUSED = "acknowledged with an error status"
    GAVE_UP = "no acknowledgement after the last retransmission"
    CANCELLED = "link lost before it was acknowledged"


@dataclass(frozen=True)
class Completion:
    """The end of one submitted command."""

    ticket: int
    command: Command
    outcome: Outcome
    status: AckStatus | None
    attempts: int


@dataclass(frozen=True)
class Transmission:
    """A frame to write now: the command with the sequence number it travels under."""

    seq: int
    command: Command
    attempt: int


@dataclass
class _InFlight:
    ticket: int
    command: Command
    seq: int
    attempts: int
    first_sent_at: float
    deadline: float


class ReliableSender:
    """Sends one command at a time and resends it until acknowledged; pure, driven by a clock.

    Retransmissions keep their sequence number, so an ACK for any copy completes the command.
    """

    def __init__(self, policy: RetransmitPolicy | None = None) -> None:
        self.policy = policy or RetransmitPolicy()
        self.rto = RtoEstimator(self.policy)
        self._queue: deque[tuple[int, Command]] = deque()
        self._in_flight: _InFlight | None = None
        self._next_seq = 0
        self._next_ticket = 0
        self.retransmits = 0

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing waiting for an acknowledgement."""
        return self._in_flight is None and not self._queue

    def allocate_seq(self) -> int:
        """A sequence number for a frame sent outside this sender (a repeated ask)."""
        seq = self._next_seq
        self._next_seq = (seq + 1) & 0xFF
        return seq

    def submit(self, command: Command) -> int:
        """Queue a command; the ticket names it in its Completion."""
        self._next_ticket += 1
        self._queue.append((self._next_ticket, command))
        return self._next_ticket

    def poll(self, now: float) -> tuple[list[Transmission], list[Completion]]:
        """What to write now, and the commands given up on."""
        sends: list[Transmission] = []
        ended: list[Completion] = []
        flight = self._in_flight
        if flight is not None and now >= flight.deadline:
            if flight.attempts >= self.policy.max_attempts:
                f = flight
                ended.append(Completion(f.ticket, f.command, Outcome.GAVE_UP, None, f.attempts))
                # Losses on a serial line are noise, not congestion: the next command starts
                # from the measured timeout again.
                self.rto.restore()
                self._in_flight = None
            else:
                self.rto.back_off()
                self.retransmits += 1
                flight.attempts += 1
                flight.deadline = now + self.rto.rto_s
                sends.append(Transmission(flight.seq, flight.command, flight.attempts))
        if self._in_flight is None and self._queue:
            ticket, command = self._queue.popleft()
            seq = self.allocate_seq()
            self._in_flight = _InFlight(ticket, command, seq, 1, now, now + self.rto.rto_s)
            sends.append(Transmission(seq, command, 1))
        return sends, ended

    def next_deadline(self) -> float | None:
        """When poll() next has a retransmission to make, if anything is in flight."""
        return None if self._in_flight is None else self._in_flight.deadline

    def acknowledge(self, seq: int, status: AckStatus, now: float) -> Completion | None:
        """Match an ACK; a stale or unknown sequence number is ignored (None)."""
        flight = self._in_flight
        if flight is None or seq != flight.seq:
            return None
        if flight.attempts == 1:
            self.rto.sample(now - flight.first_sent_at)
        else:
            # The wire works again: drop the backed-off timeout (no new sample, after Karn).
            self.rto.restore()
        self._in_flight = None
        outcome = Outcome.ACKED if status is AckStatus.OK else Outcome.REFUSED
        return Completion(flight.ticket, flight.command, outcome, status, flight.attempts)

    def cancel_all(self) -> list[Completion]:
        """Drop everything (the link went down); returns a CANCELLED completion for each."""
        ended = []
        if self._in_flight is not None:
            f = self._in_flight
            ended.append(Completion(f.ticket, f.command, Outcome.CANCELLED, None, f.attempts))
            self._in_flight = None
        while self._queue:
            ticket, command = self._queue.popleft()
            ended.append(Completion(ticket, command, Outcome.CANCELLED, None, 0))
        return ended
