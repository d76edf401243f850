"""The board's side of the serial protocol (hardware/PROTOCOL.md); MicroPython and CPython alike."""

# This file is copied to the Pico as is: no dataclasses, enum, typing or f-strings here.
# Annotations are fine: MicroPython parses and ignores them.

PROTOCOL_VERSION = 1

SYNC = 0x7E
ESCAPE = 0x7D
ESCAPE_XOR = 0x20

HEADER_SIZE = 3  # LEN, SEQ, TYPE
CRC_SIZE = 2
MIN_FRAME = HEADER_SIZE + CRC_SIZE
MAX_FRAME = 255
MAX_PAYLOAD = MAX_FRAME - MIN_FRAME
MAX_LEDS_PER_FRAME = (MAX_PAYLOAD - 1) // 4
# The longest run between two sync bytes that can be one frame: every body byte escaped.
MAX_STUFFED = 2 * MAX_FRAME


class MessageType:
    """Message type codes; host-to-board below 0x80, board-to-host from 0x80."""

    HELLO = 0x01
    REQUEST_SNAPSHOT = 0x02
    SET_LEDS = 0x03
    SET_SCAN = 0x04
    IDENTITY = 0x81
    SNAPSHOT = 0x82
    ACK = 0x83


class AckStatus:
    """Status byte of an ACK."""

    OK = 0
    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    VERSION_MISMATCH = 3


class SnapshotReason:
    """Why the board sent a snapshot."""

    BOOT = 0
    CHANGE = 1
    HEARTBEAT = 2
    REQUEST = 3


def _make_crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_crc_table()


def crc16_ccitt(data: bytes | bytearray) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def encode_frame(seq: int, msg_type: int, payload: bytes) -> bytes:
    """One frame on the wire: sync, escaped LEN SEQ TYPE PAYLOAD CRC, sync."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of " + str(len(payload)) + " bytes exceeds " + str(MAX_PAYLOAD))
    body = bytearray()
    body.append(MIN_FRAME + len(payload))
    body.append(seq & 0xFF)
    body.append(msg_type & 0xFF)
    body.extend(payload)
    crc = crc16_ccitt(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    # A sync byte on both sides: the first one ends any garbage the line picked up while idle.
    out = bytearray((SYNC,))
    for byte in body:
        if byte in (SYNC, ESCAPE):
            out.append(ESCAPE)
            out.append(byte ^ ESCAPE_XOR)
        else:
            out.append(byte)
    out.append(SYNC)
    return bytes(out)


def unstuff(chunk: bytes) -> bytes | None:
    """Undo the escaping of the bytes between two sync bytes; None when an escape is broken."""
    if ESCAPE not in chunk:
        return bytes(chunk)
    out = bytearray()
    escaped = False
    for byte in chunk:
        if escaped:
            if byte == ESCAPE:
                return None  # an escape followed by another escape (PROTOCOL.md section 3)
            out.append(byte ^ ESCAPE_XOR)
            escaped = False
        elif byte == ESCAPE:
            escaped = True
        else:
            out.append(byte)
    if escaped:
        return None
    return bytes(out)


def check_body(body: bytes) -> bool:
    """True when an unescaped frame body has a consistent length and a good CRC."""
    if len(body) < MIN_FRAME or body[0] != len(body):
        return False
    crc = (body[-2] << 8) | body[-1]
    return crc16_ccitt(body[:-2]) == crc


class FrameReader:
    """Splits received bytes into frames (seq, type, payload); drops and counts bad ones."""

    def __init__(self) -> None:
        self._pending = bytearray()
        # More than MAX_STUFFED bytes since the last sync byte: drop bytes until the next one.
        self._overlong = False
        self.frames = 0
        self.rejected = 0

    def feed(self, data: bytes) -> list[tuple[int, int, bytes]]:
        """Take received bytes; return the good frames completed by them."""
        # Byte by byte: the host sends little, and this needs nothing MicroPython might lack.
        frames: list[tuple[int, int, bytes]] = []
        for byte in data:
            if byte != SYNC:
                if self._overlong:
                    continue
                if len(self._pending) >= MAX_STUFFED:
                    # No frame is this long: the run is rejected now, once, and the rest of it
                    # is dropped unkept until the next sync byte (PROTOCOL.md section 3).
                    self._pending = bytearray()
                    self._overlong = True
                    self.rejected += 1
                    continue
                self._pending.append(byte)
                continue
            if self._overlong:
                self._overlong = False  # the end of the rejected run
                continue
            if not self._pending:
                continue  # idle line, or between two frames
            body = unstuff(bytes(self._pending))
            self._pending = bytearray()
            if body is None or not check_body(body):
                self.rejected += 1
                continue
            self.frames += 1
            frames.append((body[1], body[2], body[HEADER_SIZE:-CRC_SIZE]))
        return frames


def encode_identity(
    firmware_version: tuple[int, int, int], rows: int, cols: int, board_id: bytes, boot_id: int
) -> bytes:
    """IDENTITY payload."""
    if len(board_id) != 8:
        raise ValueError("board id must be 8 bytes, got " + str(len(board_id)))
    return (
        bytes((PROTOCOL_VERSION, firmware_version[0], firmware_version[1], firmware_version[2]))
        + bytes((rows, cols))
        + board_id
        + bytes((boot_id >> 8 & 0xFF, boot_id & 0xFF))
    )


def encode_snapshot(
    boot_id: int, snapshot_id: int, reason: int, rows: int, cols: int, occupied: bytearray
) -> bytes:
    """SNAPSHOT payload; occupied holds one 0/1 per square, row by row."""
    bitmap = bytearray((rows * cols + 7) // 8)
    for index in range(rows * cols):
        if occupied[index]:
            bitmap[index >> 3] |= 0x80 >> (index & 7)
    header = bytes(
        (
            boot_id >> 8 & 0xFF,
            boot_id & 0xFF,
            snapshot_id >> 8 & 0xFF,
            snapshot_id & 0xFF,
            reason,
            rows,
            cols,
        )
    )
    return header + bytes(bitmap)


def encode_ack(acked_seq: int, status: int) -> bytes:
    """ACK payload."""
    return bytes((acked_seq & 0xFF, status))
