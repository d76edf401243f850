"""Frames on the wire: CRC16-CCITT, byte stuffing, and the pure decoder fed bytes."""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from enum import Enum

SYNC = 0x7E
ESCAPE = 0x7D
ESCAPE_XOR = 0x20
HEADER_SIZE = 3  # LEN, SEQ, TYPE
CRC_SIZE = 2
MIN_FRAME = HEADER_SIZE + CRC_SIZE
MAX_FRAME = 255
MAX_PAYLOAD = MAX_FRAME - MIN_FRAME
# The longest run of bytes between sync bytes that could still be one frame: every byte escaped.
# A longer run is rejected as soon as its next byte arrives (PROTOCOL.md section 3).
MAX_STUFFED = 2 * MAX_FRAME

_SYNC_BYTE = bytes((SYNC,))


def crc16_ccitt(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected); b"123456789" -> 0x29B1."""
    # binascii's CRC-CCITT is this CRC, computed in C: about 30 times faster than a Python loop.
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Frame:
    """One good frame: the sender's sequence number, the message type code and the payload."""

    seq: int
    type: int
    payload: bytes


def encode_frame(seq: int, msg_type: int, payload: bytes) -> bytes:
    """The bytes on the wire for one frame: sync, escaped body, sync."""
    if not 0 <= seq <= 0xFF or not 0 <= msg_type <= 0xFF:
        raise ValueError(f"seq {seq} and type {msg_type} must each fit in one byte")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds the {MAX_PAYLOAD}-byte maximum")
    body = bytes((MIN_FRAME + len(payload), seq, msg_type)) + payload
    crc = crc16_ccitt(body)
    body += bytes((crc >> 8, crc & 0xFF))
    stuffed = body.replace(bytes((ESCAPE,)), bytes((ESCAPE, ESCAPE ^ ESCAPE_XOR))).replace(
        _SYNC_BYTE, bytes((ESCAPE, SYNC ^ ESCAPE_XOR))
    )
    # A sync byte on both sides: the first one ends any garbage the line picked up while idle.
    return _SYNC_BYTE + stuffed + _SYNC_BYTE


class Rejection(Enum):
    """Why a run of bytes ending at a sync byte was not accepted as a frame."""

    BROKEN_ESCAPE = "escape byte at the end of the frame"
    TOO_SHORT = "shorter than the smallest frame"
    LENGTH_MISMATCH = "length byte disagrees with the bytes received"
    BAD_CRC = "CRC does not match"
    OVERLONG = "longer than the longest possible frame"


@dataclass(frozen=True)
class DecoderStats:
    """What the decoder has seen so far."""

    frames: int = 0
    bytes_received: int = 0
    crc_errors: int = 0
    resyncs: int = 0
    bytes_discarded: int = 0


class FrameDecoder:
    """Pure frame decoder: feed() it bytes in any split; it returns whole, checked frames.

    A frame ends at the sync byte, which never occurs inside a frame (it is escaped), so after any
    damage the decoder resumes at the very next frame. Damaged runs are discarded and counted.
    """

    def __init__(self) -> None:
        self._pending = bytearray()
        # A run grew past MAX_STUFFED: it was rejected, its bytes are dropped up to the next sync.
        self._overlong = False
        self._frames = 0
        self._bytes = 0
        self._crc_errors = 0
        self._resyncs = 0
        self._discarded = 0
        self.last_rejection: Rejection | None = None

    @property
    def stats(self) -> DecoderStats:
        return DecoderStats(
            frames=self._frames,
            bytes_received=self._bytes,
            crc_errors=self._crc_errors,
            resyncs=self._resyncs,
            bytes_discarded=self._discarded,
        )

    @property
    def pending(self) -> int:
        """Bytes kept since the last sync byte: the start of a frame, or damage."""
        return len(self._pending)

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        """Take received bytes; return the frames they complete, oldest first.

        However the bytes are split across calls, the frames and the counts come out the same.
        """
        self._bytes += len(data)
        start = 0
        if self._overlong:
            end = data.find(SYNC)
            if end < 0:
                self._discarded += len(data)
                return []
            self._discarded += end + 1  # the rest of the rejected run and its closing sync
            self._overlong = False
            start = end + 1
        pending = self._pending
        pending += memoryview(data)[start:]
        frames: list[Frame] = []
        start = 0
        while True:
            end = pending.find(SYNC, start)
            if end < 0:
                break
            if end > start:
                frame = self._decode(bytes(pending[start:end]))
                if frame is not None:
                    frames.append(frame)
            start = end + 1
        del pending[:start]
        if len(pending) > MAX_STUFFED:
            # No frame is this long: reject the run now, once, and drop the rest of it unkept.
            self._reject(Rejection.OVERLONG, len(pending))
            pending.clear()
            self._overlong = True
        return frames

    def _decode(self, chunk: bytes) -> Frame | None:
        # Each rejected run counts its closing sync byte among the bytes discarded.
        if len(chunk) > MAX_STUFFED:
            self._reject(Rejection.OVERLONG, len(chunk) + 1)
            return None
        body = _unstuff(chunk)
        if body is None:
            self._reject(Rejection.BROKEN_ESCAPE, len(chunk) + 1)
            return None
        if len(body) < MIN_FRAME:
            self._reject(Rejection.TOO_SHORT, len(chunk) + 1)
            return None
        if body[0] != len(body):
            self._reject(Rejection.LENGTH_MISMATCH, len(chunk) + 1)
            return None
        if crc16_ccitt(memoryview(body)[:-CRC_SIZE]) != (body[-2] << 8 | body[-1]):
            self._crc_errors += 1
            self._reject(Rejection.BAD_CRC, len(chunk) + 1)
            return None
        self._frames += 1
        return Frame(seq=body[1], type=body[2], payload=body[HEADER_SIZE:-CRC_SIZE])

    def _reject(self, why: Rejection, discarded: int) -> None:
        self.last_rejection = why
        self._resyncs += 1
        self._discarded += discarded


def _unstuff(chunk: bytes) -> bytes | None:
    if ESCAPE not in chunk:
        return chunk
    out = bytearray()
    parts = chunk.split(bytes((ESCAPE,)))
    out += parts[0]
    for part in parts[1:]:
        if not part:
            return None  # an escape followed by another escape, or by the sync byte
        out.append(part[0] ^ ESCAPE_XOR)
        out += part[1:]
    return bytes(out)
