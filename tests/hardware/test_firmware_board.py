from hardware.firmware import board as board_module
from hardware.firmware import protocol
from hardware.firmware.board import SensorBoard
from hardware.firmware.hal import SimulatedHardware
from hardware.firmware.protocol import AckStatus, MessageType, SnapshotReason
from hardware.firmware.scanner import Debouncer

BOARD_ID = bytes(range(8))


def make_board(rows=4, cols=4):
    hardware = SimulatedHardware(rows, cols)
    board = SensorBoard(hardware, rows, cols, BOARD_ID, boot_id=0x0102)
    return hardware, board


def frames_of(board):
    reader = protocol.FrameReader()
    return reader.feed(b"".join(board.take_output()))


def snapshots(frames):
    return [f for f in frames if f[1] == MessageType.SNAPSHOT]


def occupied_in(payload, cols):
    bitmap = payload[7:]
    return {
        (i // cols, i % cols) for i in range(len(bitmap) * 8) if bitmap[i >> 3] & (0x80 >> (i & 7))
    }


def test_debouncer_accepts_only_a_reading_that_holds():
    debouncer = Debouncer(2, debounce_ms=4)
    assert not debouncer.update(bytearray([1, 0]), 0)
    assert not debouncer.update(bytearray([0, 0]), 2)  # a flicker is forgotten
    assert not debouncer.update(bytearray([1, 0]), 4)
    assert not debouncer.update(bytearray([1, 0]), 7)
    assert debouncer.update(bytearray([1, 0]), 8)
    assert debouncer.stable == bytearray([1, 0])


def test_debounce_of_zero_accepts_at_once():
    debouncer = Debouncer(1, debounce_ms=0)
    assert debouncer.update(bytearray([1]), 0)


def test_boot_announces_identity_then_empty_snapshot():
    _, board = make_board()
    board.boot(0)
    frames = frames_of(board)
    assert [f[1] for f in frames] == [MessageType.IDENTITY, MessageType.SNAPSHOT]
    identity = frames[0][2]
    assert identity[0] == protocol.PROTOCOL_VERSION
    assert identity[4:6] == bytes((4, 4))
    assert identity[6:14] == BOARD_ID
    assert frames[1][2][4] == SnapshotReason.BOOT


def test_a_placed_magnet_is_reported_once_after_debounce_then_by_heartbeat():
    hardware, board = make_board()
    board.boot(0)
    board.take_output()
    hardware.magnets.add((2, 1))
    reported_at = None
    for now in range(0, 20):
        board.poll(now)
        found = snapshots(frames_of(board))
        if found:
            assert reported_at is None, "the change was reported twice"
            reported_at = now
            assert found[0][2][4] == SnapshotReason.CHANGE
            assert occupied_in(found[0][2], 4) == {(2, 1)}
    assert reported_at is not None and reported_at >= 4
    board.poll(reported_at + 500)
    found = snapshots(frames_of(board))
    assert [f[2][4] for f in found] == [SnapshotReason.HEARTBEAT]


def command(board, seq, msg_type, payload, now=0):
    board.receive(protocol.encode_frame(seq, msg_type, payload), now)
    return frames_of(board)


def test_set_leds_is_applied_and_acknowledged():
    hardware, board = make_board()
    frames = command(board, 9, MessageType.SET_LEDS, bytes((2, 0, 1, 2, 3, 15, 9, 8, 7)))
    assert frames[-1][1:] == (MessageType.ACK, bytes((9, AckStatus.OK)))
    assert hardware.leds[0:3] == bytes((1, 2, 3))
    assert hardware.leds[45:48] == bytes((9, 8, 7))


def test_bad_commands_are_refused_and_change_nothing():
    hardware, board = make_board()
    cases = [
        (MessageType.SET_LEDS, bytes((1, 16, 1, 1, 1)), AckStatus.BAD_PAYLOAD),  # square 16 of 16
        (MessageType.SET_LEDS, bytes((2, 0, 1, 1, 1)), AckStatus.BAD_PAYLOAD),  # count too big
        (MessageType.SET_SCAN, bytes((0, 0, 0, 4, 1, 0xF4)), AckStatus.BAD_PAYLOAD),  # 0 ms scan
        (0x42, b"", AckStatus.UNKNOWN_TYPE),
        (MessageType.HELLO, bytes((9,)), AckStatus.VERSION_MISMATCH),
    ]
    for seq, (msg_type, payload, status) in enumerate(cases):
        frames = command(board, seq, msg_type, payload)
        assert frames[-1][1:] == (MessageType.ACK, bytes((seq, status))), msg_type
    assert hardware.leds == bytearray(48)
    assert board.scan_interval_ms == 2


def test_hello_is_answered_with_identity_before_the_ack():
    _, board = make_board()
    frames = command(board, 3, MessageType.HELLO, bytes((protocol.PROTOCOL_VERSION,)))
    assert [f[1] for f in frames] == [MessageType.IDENTITY, MessageType.ACK]


def test_set_scan_changes_heartbeat():
    _, board = make_board()
    board.boot(0)
    command(board, 1, MessageType.SET_SCAN, bytes((0, 5, 0, 0, 0, 100)))
    board.poll(99)
    assert snapshots(frames_of(board)) == []
    board.poll(100)
    assert len(snapshots(frames_of(board))) == 1


def test_damaged_command_is_ignored_and_counted():
    hardware, board = make_board()
    wire = bytearray(protocol.encode_frame(1, MessageType.SET_LEDS, bytes((1, 0, 5, 5, 5))))
    wire[3] ^= 0xFF
    board.receive(bytes(wire), 0)
    assert frames_of(board) == []
    assert board.frames_rejected == 1
    assert hardware.leds == bytearray(48)


def test_a_shorter_scan_interval_applies_at_once():
    hardware, board = make_board()
    board.boot(0)
    command(board, 1, MessageType.SET_SCAN, bytes((0x03, 0xE8, 0, 0, 0xEA, 0x60)), now=0)
    board.poll(0)  # scanned now: the next scan is due at 1000 ms
    command(board, 2, MessageType.SET_SCAN, bytes((0, 2, 0, 0, 0xEA, 0x60)), now=10)
    hardware.magnets.add((1, 1))
    reported = None
    for now in range(10, 1100):
        board.poll(now)
        if snapshots(frames_of(board)):
            reported = now
            break
    # Not at 1000 ms, when the scan planned under the old interval was due.
    assert reported is not None and reported <= 12


def test_a_longer_debounce_applies_to_a_reading_already_pending():
    hardware, board = make_board()
    board.boot(0)
    hardware.magnets.add((0, 0))
    board.poll(0)  # differs since 0 ms; the default 4 ms debounce would accept it at 4 ms
    command(board, 1, MessageType.SET_SCAN, bytes((0, 1, 0, 20, 1, 0xF4)), now=1)
    for now in range(1, 20):
        board.poll(now)
    assert snapshots(frames_of(board)) == []
    board.poll(20)
    assert len(snapshots(frames_of(board))) == 1


def test_the_heartbeat_counts_from_when_the_last_snapshot_was_queued():
    _, board = make_board()
    board.boot(0)  # the BOOT snapshot is queued at 0 ms ...
    board.poll(300)
    assert len(snapshots(frames_of(board))) == 1  # ... and sent at 300 ms
    board.poll(499)
    assert snapshots(frames_of(board)) == []
    board.poll(500)
    assert [f[2][4] for f in snapshots(frames_of(board))] == [SnapshotReason.HEARTBEAT]


def test_sequence_numbers_start_at_zero_at_every_boot_and_count_frames_sent():
    _, board = make_board()
    board.boot(0)
    assert [f[0] for f in frames_of(board)] == [0, 1]  # IDENTITY, then the BOOT snapshot
    request = protocol.encode_frame(7, MessageType.REQUEST_SNAPSHOT, b"")
    board.receive(request * 3, 1)  # three snapshots asked for, only the newest one waits
    assert [(f[0], f[1]) for f in frames_of(board)] == [
        (2, MessageType.SNAPSHOT),
        (3, MessageType.ACK),
        (4, MessageType.ACK),
        (5, MessageType.ACK),
    ]
    _, again = make_board()
    again.boot(0)
    assert frames_of(again)[0][:2] == (0, MessageType.IDENTITY)


def test_a_burst_of_requests_leaves_a_short_queue_and_a_change_right_behind_it():
    hardware, board = make_board()
    board.boot(0)
    board.take_output()
    request = protocol.encode_frame(7, MessageType.REQUEST_SNAPSHOT, b"")
    hello = protocol.encode_frame(8, MessageType.HELLO, bytes((protocol.PROTOCOL_VERSION,)))
    board.receive((request + hello) * 2000, 1)
    assert board.frames_waiting == board_module.MAX_WAITING
    assert board.acks_dropped == 4000 - (board_module.MAX_WAITING - 2)
    hardware.magnets.add((3, 3))
    for now in range(1, 8):
        board.poll(now)
    waiting = frames_of(board)
    assert len(waiting) == board_module.MAX_WAITING
    types = [f[1] for f in waiting]
    assert types.count(MessageType.SNAPSHOT) == 1 and types.count(MessageType.IDENTITY) == 1
    # The one snapshot waiting is the newest: it shows the magnet placed after the burst.
    assert occupied_in(snapshots(waiting)[0][2], 4) == {(3, 3)}
    # The newest ACKs are the ones kept, each after the report it answers.
    assert waiting[-1][1:] == (MessageType.ACK, bytes((8, AckStatus.OK)))
