"""One open port's conversation with the board: handshake, reports in, commands out; no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from firmware_bridge.framing import SYNC, FrameDecoder
from firmware_bridge.messages import (
    MAX_LEDS_PER_FRAME,
    OFF,
    Ack,
    AckStatus,
    Color,
    Hello,
    Identity,
    MessageError,
    Occupancy,
    ProtocolVersionError,
    RequestSnapshot,
    ScanSettings,
    SetLeds,
    Snapshot,
    Square,
    decode_report,
    encode_command,
)
from firmware_bridge.reliable import Outcome, ReliableSender, RetransmitPolicy


class LinkState(Enum):
    """Where the link to the board stands."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    INCOMPATIBLE = "incompatible"
    STOPPED = "stopped"


@dataclass(frozen=True)
class SquareChange:
    """One square gained (occupied) or lost its magnet."""

    square: Square
    occupied: bool


@dataclass(frozen=True)
class OccupancyChanged:
    """A snapshot differed from the last one; previous is None for the first one ever seen."""

    occupancy: Occupancy
    previous: Occupancy | None
    changes: tuple[SquareChange, ...]
    received_at: float


@dataclass(frozen=True)
class LinkStateChanged:
    """The link moved to another state; detail says why."""

    state: LinkState
    detail: str


BoardEvent = OccupancyChanged | LinkStateChanged


LINE_REFUSALS_RETRIED = 3  # SET_LEDS refused as BAD_PAYLOAD asked again before giving up


@dataclass(frozen=True)
class Refusal:
    """The board acknowledged a command with an error status and changed nothing.

    colors: the LEDs of a refused SET_LEDS (the host stops asking for them); empty for
    refused scan settings (the host goes back to the ones the board has).
    """

    command: SetLeds | ScanSettings
    colors: dict[Square, Color]
    status: AckStatus


class LinkLost(Exception):
    """The session cannot go on: the port must be closed and opened again."""


# The board's settings at boot (PROTOCOL.md section 6), and the host's when it wants no others.
DEFAULT_SCAN = ScanSettings()
DEFAULT_HEARTBEAT_S = DEFAULT_SCAN.heartbeat_ms / 1000


@dataclass(frozen=True)
class Timing:
    """How often the host asks again, and how long it waits before it calls the board lost.

    The quiet and silence limits are multiples of the heartbeat the board acknowledged: at the
    default 500 ms, a snapshot is asked for after 0.6 s without a frame and the board is lost
    after 3 s; at a 5 s heartbeat, after 6 s and 30 s.
    """

    ask_interval_s: float = 0.01
    quiet_heartbeats: float = 1.2
    # A frame part this old lost its closing sync byte: ask for a snapshot, whose opening sync
    # byte ends the damaged run. At 115200 baud the longest frame takes 45 ms.
    partial_frame_s: float = 0.06
    handshake_timeout_s: float = 3.0
    silence_heartbeats: float = 6.0


@dataclass
class HostIntent:
    """What the host wants the board to show and use; outlives sessions (owned by one thread).

    A square without a colour here is wanted off; scan None means the board's defaults.
    """

    leds: dict[Square, Color] = field(default_factory=dict)
    scan: ScanSettings | None = None

    @property
    def wanted_scan(self) -> ScanSettings:
        return self.scan if self.scan is not None else DEFAULT_SCAN


@dataclass
class SessionCounters:
    """What one session counted beyond its decoder's own figures."""

    frames_sent: int = 0
    frames_lost: int = 0
    board_resets: int = 0
    commands_failed: int = 0
    malformed: int = 0


def diff(previous: Occupancy | None, current: Occupancy) -> tuple[SquareChange, ...]:
    """The square changes from previous to current, in square order."""
    before = previous.occupied if previous is not None else frozenset()
    changed = sorted(before ^ current.occupied)
    return tuple(SquareChange(square, square in current.occupied) for square in changed)


class Session:
    """Feed it received bytes and the clock; take frames to write and events to deliver."""

    def __init__(
        self,
        intent: HostIntent,
        occupancy: Occupancy | None,
        now: float,
        timing: Timing | None = None,
        policy: RetransmitPolicy | None = None,
    ) -> None:
        self.intent = intent
        self.occupancy = occupancy
        self.timing = timing or Timing()
        self.state = LinkState.CONNECTING
        self.identity: Identity | None = None
        self.decoder = FrameDecoder()
        self.sender = ReliableSender(policy)
        self.counters = SessionCounters()
        self.last_frame_at: float | None = None
        self.has_snapshot = False
        self._opened_at = now
        self._expected_seq: int | None = None
        self._snapshot_wanted = True
        self._last_ask_at = float("-inf")
        self._last_ask: type[Hello | RequestSnapshot] | None = None
        self._partial_since: float | None = None
        self._leds_per_frame = MAX_LEDS_PER_FRAME
        # What the board is known to show and use. A board met on a newly opened port may have
        # run for hours under another host: nothing is known, so everything is sent once.
        self._board_leds: dict[Square, Color] = {}
        self._board_scan: ScanSettings | None = None
        # Refused by this boot of the board: not sent again unless asked for anew.
        self._refused_scan: ScanSettings | None = None
        self._refused_off: set[Square] = set()
        self._squares: tuple[Square, ...] = ()
        self.heartbeat_s = DEFAULT_HEARTBEAT_S  # as far as the host knows
        self._leds_in_flight: dict[Square, Color] | None = None
        self._out = bytearray()
        self._events: list[BoardEvent] = []
        self._refusals: list[Refusal] = []
        self._line_refusals = 0  # SET_LEDS refused as malformed in a row (line noise)

    # --- what the I/O layer calls ------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        """Take bytes read from the port."""
        rejected_before = self.decoder.stats.resyncs
        frames = self.decoder.feed(data)
        if self.decoder.stats.resyncs != rejected_before:
            # Whatever was damaged may have been a snapshot: ask for a fresh one.
            self._snapshot_wanted = True
        # The stalled-frame timer runs from the read that brought the first byte after a sync
        # byte, and stops at the next sync byte.
        if self.decoder.pending == 0:
            self._partial_since = None
        elif self._partial_since is None or SYNC in data:
            self._partial_since = now
        for frame in frames:
            self.last_frame_at = now
            gap = 0
            if self._expected_seq is not None:
                gap = (frame.seq - self._expected_seq) & 0xFF
            self._expected_seq = (frame.seq + 1) & 0xFF
            resets = self.counters.board_resets
            try:
                report = decode_report(frame)
            except ProtocolVersionError as error:
                self._set_state(LinkState.INCOMPATIBLE, str(error))
                raise
            except MessageError:
                report = None
                self.counters.malformed += 1
            if report is not None:
                self._handle(report, now)
            if gap and self.counters.board_resets == resets:
                # Frames went missing (a reset restarts the count, so that is no loss).
                self.counters.frames_lost += gap
                self._snapshot_wanted = True

    def poll(self, now: float) -> None:
        """Let time pass: timeouts, retransmissions, the next command."""
        if self.state is LinkState.CONNECTING:
            if now - self._opened_at > self.timing.handshake_timeout_s:
                raise LinkLost(f"no IDENTITY within {self.timing.handshake_timeout_s} s of HELLO")
        elif self.last_frame_at is not None and (now - self.last_frame_at > self.silence_timeout_s):
            raise LinkLost(f"board silent for {now - self.last_frame_at:.1f} s")
        quiet_since = self._opened_at if self.last_frame_at is None else self.last_frame_at
        if now - quiet_since > self.quiet_after_s:
            self._snapshot_wanted = True  # a heartbeat is overdue: damaged, or dropped
        if self._partial_since is not None and (
            now - self._partial_since > self.timing.partial_frame_s
        ):
            self._snapshot_wanted = True
        ask = self._next_ask()
        # An ask is repeated every ask_interval_s; another kind of ask (the first
        # REQUEST_SNAPSHOT after the handshake's HELLOs) goes out at once.
        if ask is not None and (
            type(ask) is not self._last_ask or now - self._last_ask_at >= self.timing.ask_interval_s
        ):
            self._last_ask_at = now
            self._last_ask = type(ask)
            self._out += encode_command(self.sender.allocate_seq(), ask)
            self.counters.frames_sent += 1
        if self.sender.idle and self.identity is not None:
            command = self._next_command()
            if command is not None:
                self.sender.submit(command)
        sends, ended = self.sender.poll(now)
        for send in sends:
            self._out += encode_command(send.seq, send.command)
            self.counters.frames_sent += 1
        for completion in ended:
            # Given up on, and counted; the intent is still unmet, so it goes out again, in
            # smaller frames. A board that is gone falls silent and is caught by the timeout.
            self.counters.commands_failed += 1
            if isinstance(completion.command, SetLeds):
                self._leds_per_frame = max(1, len(completion.command.colors) // 2)
                self._leds_in_flight = None

    def take_output(self) -> bytes:
        """Bytes to write to the port."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_refusals(self) -> list[Refusal]:
        """Commands the board refused since the last call, oldest first."""
        refusals = self._refusals
        self._refusals = []
        return refusals

    def take_events(self) -> list[BoardEvent]:
        """Events to deliver, oldest first."""
        events = self._events
        self._events = []
        return events

    @property
    def quiet_after_s(self) -> float:
        """No good frame for this long: a heartbeat is overdue, ask for a snapshot."""
        return self.timing.quiet_heartbeats * self.heartbeat_s

    @property
    def silence_timeout_s(self) -> float:
        """No good frame for this long while connected: the board is lost."""
        return self.timing.silence_heartbeats * self.heartbeat_s

    @property
    def in_sync(self) -> bool:
        """Connected, and the board has acknowledged everything the host intends."""
        return (
            self.state is LinkState.CONNECTED
            and self.sender.idle
            and not self._pending_leds()
            and self._next_scan() is None
        )

    def unacknowledged(self) -> tuple[frozenset[Square], bool]:
        """The squares whose wanted colour the board has not acknowledged, and whether it has
        not acknowledged the wanted scan settings: a request for anything else is done."""
        return frozenset(self._pending_leds()), self._next_scan() is not None

    # --- reports -----------------------------------------------------------------------------

    def _handle(self, report: Identity | Snapshot | Ack, now: float) -> None:
        if isinstance(report, Identity):
            self._on_identity(report)
        elif isinstance(report, Snapshot):
            self._on_snapshot(report, now)
        else:
            self._on_ack(report, now)

    def _on_identity(self, identity: Identity) -> None:
        if self.identity is not None and identity.boot_id == self.identity.boot_id:
            return  # an answer to a repeated HELLO
        if self.identity is not None:
            self._on_board_reset(identity)
            return
        self._meet(identity)
        self._set_state(
            LinkState.CONNECTED,
            f"board {identity.board_id_hex} firmware "
            f"{'.'.join(map(str, identity.firmware_version))}, "
            f"{identity.rows}x{identity.cols}",
        )

    def _on_board_reset(self, identity: Identity) -> None:
        # A new boot has every LED off and the default settings: send what differs, and take a
        # fresh snapshot.
        self._meet(identity)
        self.counters.board_resets += 1
        self._board_leds = dict.fromkeys(self._squares, OFF)
        self._board_scan = DEFAULT_SCAN
        self._refused_scan = None
        self._refused_off = set()
        self.heartbeat_s = DEFAULT_HEARTBEAT_S
        self._snapshot_wanted = True
        self._events.append(LinkStateChanged(LinkState.CONNECTED, "board reset; resyncing"))

    def _meet(self, identity: Identity) -> None:
        self.identity = identity
        self._squares = tuple(
            Square(row, col) for row in range(identity.rows) for col in range(identity.cols)
        )

    def _on_snapshot(self, snapshot: Snapshot, now: float) -> None:
        if self.identity is None:
            return  # not yet known to speak our protocol version
        occupancy = snapshot.occupancy
        if (occupancy.rows, occupancy.cols) != (self.identity.rows, self.identity.cols):
            self.counters.malformed += 1
            return
        if snapshot.boot_id != self.identity.boot_id:
            self._on_board_reset(
                Identity(
                    self.identity.protocol_version,
                    self.identity.firmware_version,
                    self.identity.rows,
                    self.identity.cols,
                    self.identity.board_id,
                    snapshot.boot_id,
                )
            )
        self._snapshot_wanted = False
        self.has_snapshot = True
        changes = diff(self.occupancy, occupancy)
        if changes or self.occupancy is None:
            self._events.append(OccupancyChanged(occupancy, self.occupancy, changes, now))
            self.occupancy = occupancy

    def _on_ack(self, ack: Ack, now: float) -> None:
        completion = self.sender.acknowledge(ack.acked_seq, ack.status, now)
        if completion is None:
            return
        command = completion.command
        if (
            completion.outcome is Outcome.REFUSED
            and completion.status is AckStatus.BAD_PAYLOAD
            and isinstance(command, SetLeds)
            and self._line_refusals < LINE_REFUSALS_RETRIED
        ):
            # The host builds only well-formed SET_LEDS: a bad payload is the line's doing (a
            # corruption the CRC let through). Ask again, a few times, before believing it.
            self._line_refusals += 1
            self._leds_in_flight = None
            return
        if isinstance(command, SetLeds):
            self._line_refusals = 0
        if completion.outcome is Outcome.REFUSED:
            self.counters.commands_failed += 1
            status = completion.status
            assert status is not None  # a refusal is an ACK with an error status
            if isinstance(command, SetLeds):
                self._refusals.append(Refusal(command, dict(command.colors), status))
            elif isinstance(command, ScanSettings):
                self._refusals.append(Refusal(command, {}, status))
        if isinstance(command, SetLeds) and self._leds_in_flight is not None:
            # Long frames rarely cross a noisy line whole: shrink them while they need resends.
            if completion.attempts > 1:
                self._leds_per_frame = max(1, len(command.colors) // 2)
            else:
                self._leds_per_frame = min(MAX_LEDS_PER_FRAME, self._leds_per_frame * 2)
            if completion.outcome is Outcome.ACKED:
                self._board_leds.update(self._leds_in_flight)
            else:
                # The board cannot show these: stop asking rather than ask forever. A colour
                # asked for since then is a new request and goes out.
                for square, color in self._leds_in_flight.items():
                    if square not in self.intent.leds:
                        self._refused_off.add(square)
                    elif self.intent.leds[square] == color:
                        del self.intent.leds[square]
                        self._refused_off.add(square)
            self._leds_in_flight = None
        elif isinstance(command, ScanSettings):
            if completion.outcome is Outcome.ACKED:
                self._board_scan = command
                self.heartbeat_s = command.heartbeat_ms / 1000
            else:
                # The board refused: go back to what it has, and stop asking for these.
                self._refused_scan = command
                if self.intent.scan == command:
                    self.intent.scan = self._board_scan

    # --- commands ----------------------------------------------------------------------------

    def _next_ask(self) -> Hello | RequestSnapshot | None:
        # Asks are answered by a report, so they are simply repeated until the report arrives.
        if self.identity is None:
            return Hello()
        if self._snapshot_wanted:
            return RequestSnapshot()
        return None

    def _next_command(self) -> SetLeds | ScanSettings | None:
        # Commands change the board's state, so they are acknowledged and retransmitted. Scan
        # settings first: they decide the heartbeat the host's timers follow.
        assert self.identity is not None
        scan = self._next_scan()
        if scan is not None:
            return scan
        pending = self._pending_leds()
        if pending:
            chunk = dict(list(pending.items())[: self._leds_per_frame])
            self._leds_in_flight = chunk
            return SetLeds(self.identity.cols, tuple(chunk.items()))
        return None

    def _next_scan(self) -> ScanSettings | None:
        """The scan settings to send, if the board may not have the ones wanted."""
        wanted = self.intent.wanted_scan
        if wanted == self._board_scan or wanted == self._refused_scan:
            return None
        return wanted

    def _pending_leds(self) -> dict[Square, Color]:
        """Each square of the board whose wanted colour it has not acknowledged.

        The colours asked for come first, in square order, then the squares wanted off only
        because nothing was asked for them (after a handshake, their state is unknown).
        """
        leds = self.intent.leds
        board = self._board_leds
        pending: dict[Square, Color] = {}
        unknown: dict[Square, Color] = {}
        for square in self._squares:
            color = leds.get(square)
            if color is not None:
                if board.get(square) != color:
                    pending[square] = color
            elif board.get(square) != OFF and square not in self._refused_off:
                unknown[square] = OFF
        pending.update(unknown)
        return pending

    def _set_state(self, state: LinkState, detail: str) -> None:
        self.state = state
        self._events.append(LinkStateChanged(state, detail))
