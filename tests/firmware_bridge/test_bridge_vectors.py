import json
import random
from pathlib import Path

import pytest

import hardware
from firmware_bridge.framing import Frame, FrameDecoder, Rejection, crc16_ccitt, encode_frame
from firmware_bridge.messages import (
    Ack,
    AckStatus,
    Color,
    Command,
    Hello,
    Identity,
    MessageError,
    MessageType,
    Occupancy,
    ProtocolVersionError,
    RequestSnapshot,
    ScanSettings,
    SetLeds,
    Snapshot,
    SnapshotReason,
    Square,
    decode_report,
    encode_command,
)
from hardware.firmware import protocol as firmware_protocol

VECTORS = json.loads((Path(hardware.__file__).parent / "protocol_vectors.json").read_text())
FRAMES = {f["name"]: f for f in VECTORS["frames"]}


def golden(name):
    frame = FRAMES[name]
    return Frame(frame["seq"], frame["type_code"], bytes.fromhex(frame["payload_hex"]))


@pytest.mark.parametrize("case", VECTORS["crc16_ccitt"], ids=lambda c: c["data_hex"] or "empty")
def test_crc_matches_golden_values(case):
    assert crc16_ccitt(bytes.fromhex(case["data_hex"])) == case["crc"]


@pytest.mark.parametrize("frame", VECTORS["frames"], ids=lambda f: f["name"])
def test_frames_encode_and_decode_to_golden_bytes(frame):
    payload = bytes.fromhex(frame["payload_hex"])
    assert MessageType[frame["type"]] == frame["type_code"]
    wire = encode_frame(frame["seq"], frame["type_code"], payload)
    assert wire.hex() == frame["wire_hex"]
    decoder = FrameDecoder()
    got = []
    for byte in wire:  # split at every byte boundary
        got += decoder.feed(bytes((byte,)))
    assert got == [Frame(frame["seq"], frame["type_code"], payload)]


@pytest.mark.parametrize("split", ["whole", "byte_by_byte", "random"])
@pytest.mark.parametrize("stream", VECTORS["streams"], ids=lambda s: s["name"])
def test_decoder_resyncs_on_golden_streams(stream, split):
    decoder = FrameDecoder()
    wire = bytes.fromhex(stream["wire_hex"])
    if split == "whole":
        got = decoder.feed(wire)
    elif split == "byte_by_byte":
        got = [frame for byte in wire for frame in decoder.feed(bytes((byte,)))]
    else:
        rng = random.Random(stream["name"])
        got, start = [], 0
        while start < len(wire):
            end = start + rng.randrange(1, 700)
            got += decoder.feed(wire[start:end])
            start = end
    assert got == [golden(name) for name in stream["frames"]]
    assert decoder.stats.resyncs == stream["rejected"]
    assert decoder.stats.bytes_discarded == stream["bytes_discarded"]
    assert decoder.stats.bytes_received == len(wire)


def bitwise_crc(data):
    """The bitwise CRC of PROTOCOL.md section 2, as written there."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def test_host_crc_and_firmware_crc_equal_the_documented_bitwise_crc():
    rng = random.Random(16)
    for size in (0, 1, 2, 5, 64, 255, 1000):
        data = bytes(rng.getrandbits(8) for _ in range(size))
        assert crc16_ccitt(data) == firmware_protocol.crc16_ccitt(data) == bitwise_crc(data)
        assert crc16_ccitt(memoryview(data)) == crc16_ccitt(bytearray(data))


@pytest.mark.parametrize("case", VECTORS["malformed_reports"]["cases"], ids=lambda c: c["name"])
def test_reports_that_do_not_fit_their_type_are_malformed_or_incompatible(case):
    wire = bytes.fromhex(case["wire_hex"])
    (frame,) = FrameDecoder().feed(wire)  # CRC and length are fine: only the payload is wrong
    assert frame == Frame(case["seq"], case["type_code"], bytes.fromhex(case["payload_hex"]))
    if case["host_treats_as"] == "incompatible":
        with pytest.raises(ProtocolVersionError, match="protocol version 2, this host speaks 1"):
            decode_report(frame)
    else:
        assert case["host_treats_as"] == "malformed"
        with pytest.raises(MessageError) as caught:
            decode_report(frame)
        assert not isinstance(caught.value, ProtocolVersionError)


def test_host_commands_encode_to_golden_bytes():
    leds = FRAMES["set_leds_with_escapes"]["message"]
    set_leds = SetLeds(
        leds["cols"], tuple((Square(r, c), Color(R, G, B)) for r, c, R, G, B in leds["leds"])
    )
    scan = FRAMES["set_scan"]["message"]
    cases: list[tuple[str, Command]] = [
        ("hello", Hello()),
        ("request_snapshot", RequestSnapshot()),
        ("set_leds_with_escapes", set_leds),
        ("set_scan", ScanSettings(**scan)),
    ]
    for name, command in cases:
        assert encode_command(FRAMES[name]["seq"], command).hex() == FRAMES[name]["wire_hex"]


def test_board_reports_decode_to_golden_messages():
    ident = FRAMES["identity"]["message"]
    assert decode_report(golden("identity")) == Identity(
        protocol_version=ident["protocol_version"],
        firmware_version=tuple(ident["firmware_version"]),
        rows=ident["rows"],
        cols=ident["cols"],
        board_id=bytes.fromhex(ident["board_id_hex"]),
        boot_id=ident["boot_id"],
    )
    for name in ("snapshot_change_8x8", "snapshot_heartbeat_16x16", "snapshot_boot_5x7_empty"):
        snap = FRAMES[name]["message"]
        occupied = frozenset(Square(r, c) for r, c in snap["occupied"])
        assert decode_report(golden(name)) == Snapshot(
            boot_id=snap["boot_id"],
            snapshot_id=snap["snapshot_id"],
            reason=SnapshotReason(snap["reason"]),
            occupancy=Occupancy(snap["rows"], snap["cols"], occupied),
        )
    assert decode_report(golden("ack_ok")) == Ack(126, AckStatus.OK)
    assert decode_report(golden("ack_version_mismatch")) == Ack(0, AckStatus.VERSION_MISMATCH)


def test_identity_of_another_protocol_version_is_a_clear_error():
    frame = golden("identity")
    other = Frame(frame.seq, frame.type, bytes((2,)) + frame.payload[1:])
    with pytest.raises(ProtocolVersionError, match="protocol version 2, this host speaks 1"):
        decode_report(other)


def test_payloads_that_do_not_fit_their_type_are_named():
    snapshot = golden("snapshot_change_8x8")
    cases = [
        (Frame(0, MessageType.ACK, b"\x01"), "ACK payload of 1 bytes"),
        (Frame(0, MessageType.SNAPSHOT, snapshot.payload[:-1]), "bitmap of 7 bytes"),
        (Frame(0, MessageType.HELLO, b""), "unknown board message type 0x01"),
        (Frame(0, MessageType.IDENTITY, b"\x01\x00"), "IDENTITY payload of 2 bytes"),
    ]
    for frame, message in cases:
        with pytest.raises(MessageError, match=message):
            decode_report(frame)


def test_decoder_names_why_it_rejected():
    wire = bytearray(bytes.fromhex(FRAMES["ack_ok"]["wire_hex"]))
    wire[-2] ^= 0x40  # the CRC low byte
    decoder = FrameDecoder()
    assert decoder.feed(bytes(wire)) == []
    assert decoder.last_rejection is Rejection.BAD_CRC
    assert decoder.stats.crc_errors == 1
    assert decoder.feed(b"\x01\x02\x7e") == []
    assert decoder.last_rejection is Rejection.TOO_SHORT


def test_colour_and_matrix_bounds_are_checked():
    with pytest.raises(ValueError, match=r"0\.\.255"):
        Color(256, 0, 0)
    with pytest.raises(ValueError, match="outside the 2x2 matrix"):
        Occupancy(2, 2, frozenset({Square(2, 0)}))
    with pytest.raises(ValueError, match="at most 62 fit"):
        SetLeds(16, tuple((Square(i // 16, i % 16), Color(1, 1, 1)) for i in range(63))).payload()
