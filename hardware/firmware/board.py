"""The sensor board's logic: scan, debounce, report snapshots, obey host commands; no I/O."""

from hardware.firmware import protocol
from hardware.firmware.hal import Hardware
from hardware.firmware.protocol import AckStatus, MessageType, SnapshotReason
from hardware.firmware.scanner import Debouncer, scan_matrix

FIRMWARE_VERSION = (0, 1, 0)
MAX_SIDE = 16

DEFAULT_SCAN_INTERVAL_MS = 2
DEFAULT_DEBOUNCE_MS = 4
DEFAULT_HEARTBEAT_MS = 500

SCAN_INTERVAL_RANGE = (1, 1000)
DEBOUNCE_RANGE = (0, 1000)
HEARTBEAT_RANGE = (50, 60000)

# Frames waiting to be sent, beyond the one on the wire (PROTOCOL.md section 6). A snapshot or
# an IDENTITY takes the place of a waiting one of its kind; past this many, the oldest waiting
# ACK is dropped. So a burst of requests never delays a real change by more than a few frames.
MAX_WAITING = 8


class SensorBoard:
    """One power-on of the board: call boot(), then receive() bytes and poll() the clock."""

    def __init__(
        self, hardware: Hardware, rows: int, cols: int, board_id: bytes, boot_id: int
    ) -> None:
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise ValueError("matrix " + str(rows) + "x" + str(cols) + " outside 1..16 x 1..16")
        self.hardware = hardware
        self.rows = rows
        self.cols = cols
        self.board_id = board_id
        self.boot_id = boot_id & 0xFFFF
        self.scan_interval_ms = DEFAULT_SCAN_INTERVAL_MS
        self.heartbeat_ms = DEFAULT_HEARTBEAT_MS
        self.debouncer = Debouncer(rows * cols, DEFAULT_DEBOUNCE_MS)
        self.leds = bytearray(3 * rows * cols)
        self.snapshot_id = 0
        self._raw = bytearray(rows * cols)
        self._reader = protocol.FrameReader()
        # Numbers the frames as they leave (next_frame), so a superseded frame uses none.
        self._seq = 0
        # (type, payload) of each frame waiting to be sent, oldest first.
        self._waiting: list[tuple[int, bytes]] = []
        self.acks_dropped = 0
        self._next_scan_ms = 0
        self._last_scan_ms = 0
        self._last_snapshot_ms = 0

    # --- the main loop's three calls -------------------------------------------------------

    def boot(self, now_ms: int) -> None:
        """Announce the board and what is on it; the host learns of any reset from this."""
        self.hardware.show_leds(self.leds)
        # What lies on the board at power-on is taken as settled: no debounce, so a reset
        # never reports pieces as lifted and then put back.
        scan_matrix(self.hardware, self.rows, self.cols, self._raw)
        self.debouncer.stable[:] = self._raw
        self._send(MessageType.IDENTITY, self._identity())
        self._send_snapshot(SnapshotReason.BOOT, now_ms)
        self._last_scan_ms = now_ms
        self._next_scan_ms = now_ms

    def receive(self, data: bytes, now_ms: int) -> None:
        """Take bytes from the host; obey each good frame and acknowledge it."""
        for seq, msg_type, payload in self._reader.feed(data):
            self._obey(seq, msg_type, payload, now_ms)

    def poll(self, now_ms: int) -> None:
        """Scan when due, report a change after debounce, and send the heartbeat."""
        self.hardware.feed_watchdog()
        if now_ms >= self._next_scan_ms:
            self._last_scan_ms = now_ms
            self._next_scan_ms = now_ms + self.scan_interval_ms
            scan_matrix(self.hardware, self.rows, self.cols, self._raw)
            if self.debouncer.update(self._raw, now_ms):
                self.snapshot_id = (self.snapshot_id + 1) & 0xFFFF
                self._send_snapshot(SnapshotReason.CHANGE, now_ms)
        if now_ms - self._last_snapshot_ms >= self.heartbeat_ms:
            self._send_snapshot(SnapshotReason.HEARTBEAT, now_ms)

    def next_frame(self) -> bytes | None:
        """The next frame to put on the wire, numbered now; None when nothing waits.

        Call it when the line can take a frame: what waits here can still be superseded.
        """
        if not self._waiting:
            return None
        msg_type, payload = self._waiting.pop(0)
        frame = protocol.encode_frame(self._seq, msg_type, payload)
        self._seq = (self._seq + 1) & 0xFF
        return frame

    def take_output(self) -> list[bytes]:
        """Every waiting frame, numbered and encoded, oldest first (for a line that never fills)."""
        out: list[bytes] = []
        frame = self.next_frame()
        while frame is not None:
            out.append(frame)
            frame = self.next_frame()
        return out

    @property
    def frames_waiting(self) -> int:
        """Frames queued for the wire; never more than MAX_WAITING."""
        return len(self._waiting)

    def next_due_ms(self) -> int:
        """When poll() next has work to do."""
        return min(self._next_scan_ms, self._last_snapshot_ms + self.heartbeat_ms)

    @property
    def frames_rejected(self) -> int:
        """Received frames dropped for a bad CRC, length or escape."""
        return self._reader.rejected

    # --- commands --------------------------------------------------------------------------

    def _obey(self, seq: int, msg_type: int, payload: bytes, now_ms: int) -> None:
        # A payload that does not fit its type exactly is refused, and nothing else is sent
        # (PROTOCOL.md section 6), except that a HELLO of another version always gets IDENTITY,
        # whatever follows its first byte: a later version's HELLO may be longer.
        status = AckStatus.OK
        reply = None
        if msg_type == MessageType.HELLO:
            if len(payload) >= 1 and payload[0] != protocol.PROTOCOL_VERSION:
                status = AckStatus.VERSION_MISMATCH
                reply = MessageType.IDENTITY
            elif len(payload) != 1:
                status = AckStatus.BAD_PAYLOAD
            else:
                reply = MessageType.IDENTITY
        elif msg_type == MessageType.REQUEST_SNAPSHOT:
            if payload:
                status = AckStatus.BAD_PAYLOAD
            else:
                reply = MessageType.SNAPSHOT
        elif msg_type == MessageType.SET_LEDS:
            if not self._set_leds(payload):
                status = AckStatus.BAD_PAYLOAD
        elif msg_type == MessageType.SET_SCAN:
            if not self._set_scan(payload):
                status = AckStatus.BAD_PAYLOAD
        else:
            status = AckStatus.UNKNOWN_TYPE
        # The reply goes first so that, when the host sees the ACK, the reply is already in.
        if reply == MessageType.IDENTITY:
            self._send(MessageType.IDENTITY, self._identity())
        elif reply == MessageType.SNAPSHOT:
            self._send_snapshot(SnapshotReason.REQUEST, now_ms)
        self._send(MessageType.ACK, protocol.encode_ack(seq, status))

    def _set_leds(self, payload: bytes) -> bool:
        # count 0 is a valid no-op; a square listed twice takes its last entry.
        if len(payload) < 1 or len(payload) != 1 + 4 * payload[0]:
            return False
        squares = self.rows * self.cols
        for offset in range(1, len(payload), 4):
            if payload[offset] >= squares:
                return False
        for offset in range(1, len(payload), 4):
            base = 3 * payload[offset]
            self.leds[base] = payload[offset + 1]
            self.leds[base + 1] = payload[offset + 2]
            self.leds[base + 2] = payload[offset + 3]
        self.hardware.show_leds(self.leds)
        return True

    def _set_scan(self, payload: bytes) -> bool:
        if len(payload) != 6:
            return False
        scan = (payload[0] << 8) | payload[1]
        debounce = (payload[2] << 8) | payload[3]
        heartbeat = (payload[4] << 8) | payload[5]
        if not (
            SCAN_INTERVAL_RANGE[0] <= scan <= SCAN_INTERVAL_RANGE[1]
            and DEBOUNCE_RANGE[0] <= debounce <= DEBOUNCE_RANGE[1]
            and HEARTBEAT_RANGE[0] <= heartbeat <= HEARTBEAT_RANGE[1]
        ):
            return False
        # In force at once: the next scan is due scan_interval_ms after the last one (now, if
        # that has passed), a pending reading is judged by the new debounce, and the heartbeat
        # is due heartbeat_ms after the last snapshot.
        self.scan_interval_ms = scan
        self._next_scan_ms = self._last_scan_ms + scan
        self.debouncer.debounce_ms = debounce
        self.heartbeat_ms = heartbeat
        return True

    # --- reports ---------------------------------------------------------------------------

    def _identity(self) -> bytes:
        return protocol.encode_identity(
            FIRMWARE_VERSION, self.rows, self.cols, self.board_id, self.boot_id
        )

    def _send_snapshot(self, reason: int, now_ms: int) -> None:
        self._last_snapshot_ms = now_ms
        payload = protocol.encode_snapshot(
            self.boot_id, self.snapshot_id, reason, self.rows, self.cols, self.debouncer.stable
        )
        self._send(MessageType.SNAPSHOT, payload)

    def _send(self, msg_type: int, payload: bytes) -> None:
        waiting = self._waiting
        if msg_type != MessageType.ACK:
            # Each snapshot is the whole truth and IDENTITY never changes within a boot: a new
            # one takes the waiting one's place, still ahead of the ACKs queued after it.
            for index in range(len(waiting)):
                if waiting[index][0] == msg_type:
                    waiting[index] = (msg_type, payload)
                    return
        if len(waiting) >= MAX_WAITING:
            # At most one snapshot and one IDENTITY wait, so there is an ACK to drop. A lost
            # ACK costs a retransmission; asks are answered by their reports anyway.
            for index in range(len(waiting)):
                if waiting[index][0] == MessageType.ACK:
                    del waiting[index]
                    self.acks_dropped += 1
                    break
        waiting.append((msg_type, payload))
