import json
from pathlib import Path

import pytest

import hardware
from hardware.firmware import protocol
from hardware.firmware.board import SensorBoard
from hardware.firmware.hal import SimulatedHardware

VECTORS = json.loads((Path(hardware.__file__).parent / "protocol_vectors.json").read_text())
FRAMES = {f["name"]: f for f in VECTORS["frames"]}
ANSWERS = VECTORS["board_answers"]


@pytest.mark.parametrize("case", VECTORS["crc16_ccitt"], ids=lambda c: c["data_hex"] or "empty")
def test_crc_matches_golden_values(case):
    assert protocol.crc16_ccitt(bytes.fromhex(case["data_hex"])) == case["crc"]


@pytest.mark.parametrize("frame", VECTORS["frames"], ids=lambda f: f["name"])
def test_encoder_produces_golden_bytes(frame):
    payload = bytes.fromhex(frame["payload_hex"])
    wire = protocol.encode_frame(frame["seq"], frame["type_code"], payload)
    assert wire.hex() == frame["wire_hex"]
    assert getattr(protocol.MessageType, frame["type"]) == frame["type_code"]


@pytest.mark.parametrize("frame", VECTORS["frames"], ids=lambda f: f["name"])
def test_reader_decodes_golden_bytes_fed_one_at_a_time(frame):
    reader = protocol.FrameReader()
    got = []
    for byte in bytes.fromhex(frame["wire_hex"]):
        got += reader.feed(bytes((byte,)))
    assert got == [(frame["seq"], frame["type_code"], bytes.fromhex(frame["payload_hex"]))]


@pytest.mark.parametrize("split", ["whole", "byte_by_byte"])
@pytest.mark.parametrize("stream", VECTORS["streams"], ids=lambda s: s["name"])
def test_reader_resyncs_on_golden_streams(stream, split):
    reader = protocol.FrameReader()
    wire = bytes.fromhex(stream["wire_hex"])
    if split == "whole":
        got = reader.feed(wire)
    else:
        got = [frame for byte in wire for frame in reader.feed(bytes((byte,)))]
    expected = [FRAMES[name] for name in stream["frames"]]
    assert [(f[0], f[1], f[2].hex()) for f in got] == [
        (e["seq"], e["type_code"], e["payload_hex"]) for e in expected
    ]
    assert reader.rejected == stream["rejected"]


@pytest.mark.parametrize("case", ANSWERS["cases"], ids=lambda c: c["name"])
def test_board_answers_each_host_frame_as_the_golden_vectors_say(case):
    rows, cols = ANSWERS["rows"], ANSWERS["cols"]
    hardware_ = SimulatedHardware(rows, cols)
    board = SensorBoard(hardware_, rows, cols, bytes(8), 0x0102)
    board.boot(0)
    board.take_output()
    wire = bytes.fromhex(case["wire_hex"])
    assert wire == protocol.encode_frame(
        case["seq"], case["type_code"], bytes.fromhex(case["payload_hex"])
    )
    board.receive(wire, 1)
    got = protocol.FrameReader().feed(b"".join(board.take_output()))
    types = {getattr(protocol.MessageType, name): name for name in ("IDENTITY", "SNAPSHOT", "ACK")}
    assert [types[t] for _, t, _ in got] == case["replies"]
    status = getattr(protocol.AckStatus, case["ack_status"])
    assert got[-1][2] == bytes((case["seq"], status))
    lit = [
        [i, *hardware_.leds[3 * i : 3 * i + 3]]
        for i in range(rows * cols)
        if any(hardware_.leds[3 * i : 3 * i + 3])
    ]
    assert lit == case["leds_lit_after"]


def test_identity_and_snapshot_payloads_match_golden_messages():
    ident = FRAMES["identity"]["message"]
    payload = protocol.encode_identity(
        tuple(ident["firmware_version"]),
        ident["rows"],
        ident["cols"],
        bytes.fromhex(ident["board_id_hex"]),
        ident["boot_id"],
    )
    assert payload.hex() == FRAMES["identity"]["payload_hex"]
    for name in ("snapshot_change_8x8", "snapshot_heartbeat_16x16", "snapshot_boot_5x7_empty"):
        snap = FRAMES[name]["message"]
        occupied = bytearray(snap["rows"] * snap["cols"])
        for row, col in snap["occupied"]:
            occupied[row * snap["cols"] + col] = 1
        payload = protocol.encode_snapshot(
            snap["boot_id"],
            snap["snapshot_id"],
            snap["reason"],
            snap["rows"],
            snap["cols"],
            occupied,
        )
        assert payload.hex() == FRAMES[name]["payload_hex"], name


def test_payload_too_long_is_refused_with_its_size():
    with pytest.raises(ValueError, match="251 bytes"):
        protocol.encode_frame(0, protocol.MessageType.SET_LEDS, bytes(251))


def test_reader_drops_runaway_bytes_without_sync():
    reader = protocol.FrameReader()
    assert reader.feed(bytes(protocol.MAX_STUFFED)) == []
    assert reader.rejected == 0  # could still be one fully escaped frame
    assert reader.feed(bytes(1)) == []
    assert reader.rejected == 1  # the 511th byte: rejected at once, not at the next sync
    assert reader.feed(bytes(5 * protocol.MAX_STUFFED)) == []
    assert reader.rejected == 1  # one run, one rejection, however long it goes on
    wire = bytes.fromhex(FRAMES["hello"]["wire_hex"])
    assert len(reader.feed(wire)) == 1
    assert reader.rejected == 1
