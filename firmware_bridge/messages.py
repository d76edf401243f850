"""The protocol's messages as typed values, with their payload encodings (hardware/PROTOCOL.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from firmware_bridge.framing import MAX_PAYLOAD, Frame, encode_frame

PROTOCOL_VERSION = 1
MAX_SIDE = 16
LED_ENTRY_SIZE = 4
MAX_LEDS_PER_FRAME = (MAX_PAYLOAD - 1) // LED_ENTRY_SIZE


class MessageType(IntEnum):
    """Type codes: host to board below 0x80, board to host from 0x80."""

    HELLO = 0x01
    REQUEST_SNAPSHOT = 0x02
    SET_LEDS = 0x03
    SET_SCAN = 0x04
    IDENTITY = 0x81
    SNAPSHOT = 0x82
    ACK = 0x83


class AckStatus(IntEnum):
    """What the board made of an acknowledged command."""

    OK = 0
    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    VERSION_MISMATCH = 3


class SnapshotReason(IntEnum):
    """Why the board sent a snapshot."""

    BOOT = 0
    CHANGE = 1
    HEARTBEAT = 2
    REQUEST = 3


class MessageError(ValueError):
    """A frame passed its CRC but its payload does not fit its message type."""


class ProtocolVersionError(MessageError):
    """The board speaks another protocol version than this host."""

    def __init__(self, board_version: int) -> None:
        self.board_version = board_version
        super().__init__(
            f"the board speaks protocol version {board_version}, this host speaks "
            f"{PROTOCOL_VERSION}: flash firmware of the same protocol version as the host"
        )


@dataclass(frozen=True, order=True)
class Square:
    """A square of the sensor matrix, counted from 0 at the board's connector corner."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < MAX_SIDE and 0 <= self.col < MAX_SIDE):
            raise ValueError(f"square ({self.row}, {self.col}) outside a 16x16 matrix")


@dataclass(frozen=True)
class Color:
    """An LED colour, 0..255 per channel."""

    r: int
    g: int
    b: int

    def __post_init__(self) -> None:
        if not all(0 <= c <= 255 for c in (self.r, self.g, self.b)):
            raise ValueError(f"colour channels must be 0..255, got {self.r, self.g, self.b}")


OFF = Color(0, 0, 0)


@dataclass(frozen=True)
class Occupancy:
    """Which squares of a rows x cols matrix hold something magnetic."""

    rows: int
    cols: int
    occupied: frozenset[Square] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not (1 <= self.rows <= MAX_SIDE and 1 <= self.cols <= MAX_SIDE):
            raise ValueError(f"matrix {self.rows}x{self.cols} outside 1..16 x 1..16")
        for square in self.occupied:
            if not (0 <= square.row < self.rows and 0 <= square.col < self.cols):
                raise ValueError(f"{square} outside the {self.rows}x{self.cols} matrix")

    def index(self, square: Square) -> int:
        """The square's position in the protocol's row-by-row order."""
        return square.row * self.cols + square.col


# --- host to board ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """Host opens the conversation with its protocol version; the board answers IDENTITY."""

    protocol_version: int = PROTOCOL_VERSION

    def payload(self) -> bytes:
        return bytes((self.protocol_version,))


@dataclass(frozen=True)
class RequestSnapshot:
    """Ask the board for a snapshot now."""

    def payload(self) -> bytes:
        return b""


@dataclass(frozen=True)
class SetLeds:
    """Set the LED under each listed square; squares not listed keep their colour."""

    cols: int
    colors: tuple[tuple[Square, Color], ...]

    def payload(self) -> bytes:
        if len(self.colors) > MAX_LEDS_PER_FRAME:
            raise ValueError(
                f"{len(self.colors)} LEDs in one frame; at most {MAX_LEDS_PER_FRAME} fit"
            )
        out = bytearray((len(self.colors),))
        for square, color in self.colors:
            out += bytes((square.row * self.cols + square.col, color.r, color.g, color.b))
        return bytes(out)


@dataclass(frozen=True)
class ScanSettings:
    """How often the board scans, how long a reading must hold, how often it sends a heartbeat."""

    scan_interval_ms: int = 2
    debounce_ms: int = 4
    heartbeat_ms: int = 500

    def __post_init__(self) -> None:
        for name, low, high in (
            ("scan_interval_ms", 1, 1000),
            ("debounce_ms", 0, 1000),
            ("heartbeat_ms", 50, 60000),
        ):
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} must be within {low}..{high}, got {value}")

    def payload(self) -> bytes:
        values = (self.scan_interval_ms, self.debounce_ms, self.heartbeat_ms)
        return b"".join(v.to_bytes(2, "big") for v in values)


Command = Hello | RequestSnapshot | SetLeds | ScanSettings

COMMAND_TYPES: dict[type[Command], MessageType] = {
    Hello: MessageType.HELLO,
    RequestSnapshot: MessageType.REQUEST_SNAPSHOT,
    SetLeds: MessageType.SET_LEDS,
    ScanSettings: MessageType.SET_SCAN,
}


def encode_command(seq: int, command: Command) -> bytes:
    """The frame carrying a host command."""
    return encode_frame(seq, COMMAND_TYPES[type(command)], command.payload())


# --- board to host ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """The board's answer to HELLO, and its announcement after every boot."""

    protocol_version: int
    firmware_version: tuple[int, int, int]
    rows: int
    cols: int
    board_id: bytes
    boot_id: int

    @property
    def board_id_hex(self) -> str:
        return self.board_id.hex()


@dataclass(frozen=True)
class Snapshot:
    """The board's whole occupancy; any one snapshot says everything, so a lost one is harmless."""

    boot_id: int
    snapshot_id: int
    reason: SnapshotReason
    occupancy: Occupancy


@dataclass(frozen=True)
class Ack:
    """The board received the command sent with this sequence number."""

    acked_seq: int
    status: AckStatus


Report = Identity | Snapshot | Ack

IDENTITY_SIZE = 16
SNAPSHOT_HEADER_SIZE = 7


def decode_report(frame: Frame) -> Report:
    """The board's message in a good frame; MessageError when the payload does not fit its type.

    What fits is exact (PROTOCOL.md section 5): the size each type has in this version, no
    unknown reason or status, no bit set past the last square. Anything else is malformed, to be
    ignored and counted: a CRC-checked frame that breaks these is a bug, not noise.
    """
    payload = frame.payload
    if frame.type == MessageType.IDENTITY:
        # The first byte is the protocol version in every version, so a mismatch is always readable.
        if len(payload) >= 1 and payload[0] != PROTOCOL_VERSION:
            raise ProtocolVersionError(payload[0])
        if len(payload) != IDENTITY_SIZE:
            raise MessageError(f"IDENTITY payload of {len(payload)} bytes, expected 16")
        if not (1 <= payload[4] <= MAX_SIDE and 1 <= payload[5] <= MAX_SIDE):
            raise MessageError(
                f"IDENTITY of a {payload[4]}x{payload[5]} matrix, outside 1..16 x 1..16"
            )
        return Identity(
            protocol_version=payload[0],
            firmware_version=(payload[1], payload[2], payload[3]),
            rows=payload[4],
            cols=payload[5],
            board_id=payload[6:14],
            boot_id=int.from_bytes(payload[14:16], "big"),
        )
    if frame.type == MessageType.SNAPSHOT:
        return _decode_snapshot(payload)
    if frame.type == MessageType.ACK:
        if len(payload) != 2:
            raise MessageError(f"ACK payload of {len(payload)} bytes, expected 2")
        try:
            status = AckStatus(payload[1])
        except ValueError:
            raise MessageError(f"ACK with unknown status {payload[1]}") from None
        return Ack(acked_seq=payload[0], status=status)
    raise MessageError(f"unknown board message type 0x{frame.type:02x}")


def _decode_snapshot(payload: bytes) -> Snapshot:
    if len(payload) < SNAPSHOT_HEADER_SIZE:
        raise MessageError(f"SNAPSHOT payload of {len(payload)} bytes is shorter than its header")
    rows, cols = payload[5], payload[6]
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise MessageError(f"SNAPSHOT of a {rows}x{cols} matrix, outside 1..16 x 1..16")
    bitmap = payload[SNAPSHOT_HEADER_SIZE:]
    if len(bitmap) != (rows * cols + 7) // 8:
        raise MessageError(
            f"SNAPSHOT bitmap of {len(bitmap)} bytes for {rows}x{cols}, "
            f"expected {(rows * cols + 7) // 8}"
        )
    spare = -(rows * cols) % 8
    if spare and bitmap[-1] & ((1 << spare) - 1):
        raise MessageError(
            f"SNAPSHOT of {rows}x{cols} with bits set past its last square: "
            f"last byte 0x{bitmap[-1]:02x}"
        )
    try:
        reason = SnapshotReason(payload[4])
    except ValueError:
        raise MessageError(f"SNAPSHOT with unknown reason {payload[4]}") from None
    occupied = frozenset(
        Square(i // cols, i % cols)
        for i in range(rows * cols)
        if bitmap[i >> 3] & (0x80 >> (i & 7))
    )
    return Snapshot(
        boot_id=int.from_bytes(payload[0:2], "big"),
        snapshot_id=int.from_bytes(payload[2:4], "big"),
        reason=reason,
        occupancy=Occupancy(rows, cols, occupied),
    )
