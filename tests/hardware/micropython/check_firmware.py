# Runs under MicroPython (see run.mjs): the firmware's own modules against the golden vectors,
# and a board booting, debouncing a magnet and obeying the host. Plain Python, no pytest.
import json
import sys

from hardware.firmware import protocol
from hardware.firmware.board import SensorBoard
from hardware.firmware.hal import SimulatedHardware

checks = 0


def check(ok, what):
    global checks
    if not ok:
        raise AssertionError("under MicroPython: " + what)
    checks += 1


def unhex(text):
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


with open("/protocol_vectors.json") as f:
    vectors = json.load(f)

check(vectors["protocol_version"] == protocol.PROTOCOL_VERSION, "protocol version")
for v in vectors["crc16_ccitt"]:
    check(protocol.crc16_ccitt(unhex(v["data_hex"])) == v["crc"], "crc of " + v["data_hex"])

by_name = {}
for v in vectors["frames"]:
    by_name[v["name"]] = v
    wire = protocol.encode_frame(v["seq"], v["type_code"], unhex(v["payload_hex"]))
    check(wire == unhex(v["wire_hex"]), "encoding of frame " + v["name"])
    reader = protocol.FrameReader()
    got = reader.feed(unhex(v["wire_hex"]))
    check(got == [(v["seq"], v["type_code"], unhex(v["payload_hex"]))], "decoding " + v["name"])
    if v["type"] == "SNAPSHOT":
        m = v["message"]
        occupied = bytearray(m["rows"] * m["cols"])
        for row, col in m["occupied"]:
            occupied[row * m["cols"] + col] = 1
        payload = protocol.encode_snapshot(
            m["boot_id"], m["snapshot_id"], m["reason"], m["rows"], m["cols"], occupied
        )
        check(payload == unhex(v["payload_hex"]), "snapshot payload " + v["name"])

for s in vectors["streams"]:
    reader = protocol.FrameReader()
    got = reader.feed(unhex(s["wire_hex"]))
    want = [
        (by_name[n]["seq"], by_name[n]["type_code"], unhex(by_name[n]["payload_hex"]))
        for n in s["frames"]
    ]
    check(got == want, "stream " + s["name"])
    check(reader.rejected == s["rejected"], "rejected count in stream " + s["name"])
    reader = protocol.FrameReader()
    got = []
    for byte in unhex(s["wire_hex"]):
        got += reader.feed(bytes((byte,)))
    check(got == want, "stream fed byte by byte " + s["name"])
    check(reader.rejected == s["rejected"], "rejected count byte by byte " + s["name"])

answers = vectors["board_answers"]
type_names = {protocol.MessageType.IDENTITY: "IDENTITY", protocol.MessageType.SNAPSHOT: "SNAPSHOT"}
type_names[protocol.MessageType.ACK] = "ACK"
for case in answers["cases"]:
    rows, cols = answers["rows"], answers["cols"]
    hw = SimulatedHardware(rows, cols)
    board = SensorBoard(hw, rows, cols, bytes(8), 0x0102)
    board.boot(0)
    board.take_output()
    board.receive(unhex(case["wire_hex"]), 1)
    got = protocol.FrameReader().feed(b"".join(board.take_output()))
    check([type_names[t] for _, t, _ in got] == case["replies"], "replies to " + case["name"])
    status = getattr(protocol.AckStatus, case["ack_status"])
    check(got[-1][2] == bytes((case["seq"], status)), "ACK status of " + case["name"])
    lit = []
    for i in range(rows * cols):
        if hw.leds[3 * i] or hw.leds[3 * i + 1] or hw.leds[3 * i + 2]:
            lit.append([i, hw.leds[3 * i], hw.leds[3 * i + 1], hw.leds[3 * i + 2]])
    check(lit == case["leds_lit_after"], "LEDs after " + case["name"])

# A board: boot, a magnet placed and debounced, a HELLO answered with IDENTITY and ACK.
hw = SimulatedHardware(4, 5)
board = SensorBoard(hw, 4, 5, b"\x01\x02\x03\x04\x05\x06\x07\x08", 0x1234)
board.boot(0)
out = protocol.FrameReader().feed(b"".join(board.take_output()))
check(
    [t for _, t, _ in out] == [protocol.MessageType.IDENTITY, protocol.MessageType.SNAPSHOT],
    "boot announces identity then a snapshot",
)
hw.magnets.add((2, 3))
for now in range(1, 40):
    board.poll(now)
frames = protocol.FrameReader().feed(b"".join(board.take_output()))
snapshots = [p for _, t, p in frames if t == protocol.MessageType.SNAPSHOT]
check(len(snapshots) == 1, "one snapshot after one debounced change, got " + str(len(snapshots)))
bitmap = snapshots[0][7:]
index = 2 * 5 + 3
check(bitmap[index >> 3] & (0x80 >> (index & 7)), "the snapshot shows the magnet on row 2, col 3")
board.receive(unhex(by_name["hello"]["wire_hex"]), 40)
replies = [t for _, t, _ in protocol.FrameReader().feed(b"".join(board.take_output()))]
check(protocol.MessageType.IDENTITY in replies, "HELLO answered with IDENTITY")

# A burst of requests: the queue stays bounded, one snapshot in it.
request = protocol.encode_frame(7, protocol.MessageType.REQUEST_SNAPSHOT, b"")
board.receive(request * 500, 41)
check(board.frames_waiting <= 8, "bounded queue, got " + str(board.frames_waiting))
waiting = protocol.FrameReader().feed(b"".join(board.take_output()))
kinds = [t for _, t, _ in waiting]
check(kinds.count(protocol.MessageType.SNAPSHOT) == 1, "one snapshot waits after a burst")

print("firmware under " + sys.implementation.name + ": " + str(checks) + " checks passed")
