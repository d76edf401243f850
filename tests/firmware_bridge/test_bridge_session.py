import itertools
import random

import pytest

from firmware_bridge.messages import Color, ProtocolVersionError, ScanSettings, Square
from firmware_bridge.session import (
    HostIntent,
    LinkLost,
    LinkState,
    LinkStateChanged,
    OccupancyChanged,
    Session,
)
from hardware.firmware import protocol
from hardware.firmware.board import SensorBoard
from hardware.firmware.hal import SimulatedHardware


class Wire:
    """A Session and a SensorBoard joined by an in-memory wire, one millisecond per step."""

    def __init__(self, rows=4, cols=4, seed=1, corruption=0.0, drop=0.0, boot_id=0x1111):
        self.rng = random.Random(seed)
        self.rows, self.cols = rows, cols
        self.corruption, self.drop = corruption, drop
        self.hardware = SimulatedHardware(rows, cols)
        self.now_ms = 0
        self.board = self._boot(boot_id)
        self.intent = HostIntent()
        self.session = Session(self.intent, None, now=0.0)
        self.events = []
        self.sent = []  # (ms, seq, type, payload) of every frame the host sent

    def _boot(self, boot_id):
        self.hardware.leds[:] = bytes(len(self.hardware.leds))
        board = SensorBoard(self.hardware, self.rows, self.cols, bytes(8), boot_id)
        board.boot(self.now_ms)
        return board

    def reset_board(self, boot_id):
        self.board.take_output()
        self.board = self._boot(boot_id)

    def _damage(self, frames):
        out = bytearray()
        for frame in frames:
            if self.rng.random() < self.drop:
                continue
            for byte in frame:
                out.append(
                    byte ^ self.rng.randrange(1, 256)
                    if self.rng.random() < self.corruption
                    else byte
                )
        return bytes(out)

    def step(self, ms=1):
        for _ in range(ms):
            now = self.now_ms / 1000
            self.board.poll(self.now_ms)
            self.session.receive(self._damage(self.board.take_output()), now)
            self.session.poll(now)
            out = self.session.take_output()
            self.sent += [(self.now_ms, *f) for f in protocol.FrameReader().feed(out)]
            self.board.receive(self._damage([out]), self.now_ms)
            self.events += self.session.take_events()
            self.now_ms += 1

    def changes(self):
        return [c for e in self.events if isinstance(e, OccupancyChanged) for c in e.changes]

    def sent_types(self, since_ms=0):
        return [t for ms, _, t, _ in self.sent if ms >= since_ms]


def test_handshake_connects_and_reports_the_first_snapshot():
    wire = Wire()
    wire.step(20)
    assert wire.session.state is LinkState.CONNECTED
    identity = wire.session.identity
    assert identity is not None and identity.rows == 4 and identity.boot_id == 0x1111
    first = next(e for e in wire.events if isinstance(e, OccupancyChanged))
    assert first.previous is None and first.occupancy.occupied == frozenset()


def test_a_placed_magnet_gives_exactly_one_change():
    wire = Wire()
    wire.step(20)
    wire.hardware.magnets.add((1, 2))
    wire.step(2000)  # four heartbeats repeat the same snapshot
    assert [(c.square, c.occupied) for c in wire.changes()] == [(Square(1, 2), True)]


def test_led_and_scan_intents_are_acknowledged_and_applied():
    wire = Wire()
    wire.intent.leds.update({Square(0, 0): Color(9, 8, 7), Square(3, 3): Color(1, 2, 3)})
    wire.intent.scan = ScanSettings(scan_interval_ms=3, debounce_ms=6, heartbeat_ms=250)
    wire.step(50)
    assert wire.session.in_sync
    assert wire.hardware.leds[0:3] == bytes((9, 8, 7))
    assert wire.hardware.leds[45:48] == bytes((1, 2, 3))
    assert (wire.board.scan_interval_ms, wire.board.heartbeat_ms) == (3, 250)


def test_board_of_another_protocol_version_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(protocol, "PROTOCOL_VERSION", 2)
    wire = Wire()
    with pytest.raises(ProtocolVersionError, match="board speaks protocol version 2"):
        wire.step(20)
    assert wire.session.state is LinkState.INCOMPATIBLE


def test_board_reset_is_noticed_and_the_leds_are_sent_again():
    wire = Wire()
    wire.intent.leds[Square(2, 2)] = Color(50, 0, 0)
    wire.step(50)
    wire.reset_board(boot_id=0x2222)
    assert wire.hardware.leds[30:33] == bytes(3)
    wire.step(50)
    assert wire.session.counters.board_resets == 1
    assert wire.hardware.leds[30:33] == bytes((50, 0, 0))
    assert any(isinstance(e, LinkStateChanged) and "reset" in e.detail for e in wire.events)


def test_a_lost_change_snapshot_is_healed_by_the_next_heartbeat():
    wire = Wire()
    wire.step(20)
    wire.hardware.magnets.add((0, 3))
    wire.drop = 1.0
    wire.step(8)  # the change snapshot goes into the void
    wire.drop = 0.0
    assert wire.changes() == []
    wire.step(480)
    assert wire.changes() == []
    wire.step(40)  # the heartbeat, due 500 ms after the lost snapshot
    assert [(c.square, c.occupied) for c in wire.changes()] == [(Square(0, 3), True)]


def test_silent_board_is_declared_lost():
    wire = Wire()
    wire.step(20)
    wire.drop = 1.0
    with pytest.raises(LinkLost, match="silent"):
        wire.step(3000)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_five_percent_corruption_loses_no_change_and_invents_none(seed):
    wire = Wire(rows=8, cols=8, seed=seed)
    wire.step(50)  # connected on a clean line: every LED set off once
    assert wire.session.in_sync
    wire.corruption = 0.05
    wire.intent.leds.update({Square(i, i): Color(i, 0, 0) for i in range(8)})
    wire.step(300)
    truth_history: dict[Square, list[bool]] = {}
    for _ in range(60):
        square = (wire.rng.randrange(8), wire.rng.randrange(8))
        if square in wire.hardware.magnets:
            wire.hardware.magnets.discard(square)
        else:
            wire.hardware.magnets.add(square)
        truth_history.setdefault(Square(*square), []).append(square in wire.hardware.magnets)
        wire.step(wire.rng.randrange(5, 60))
    wire.step(3000)
    assert wire.session.state is LinkState.CONNECTED
    truth = frozenset(Square(r, c) for r, c in wire.hardware.magnets)
    assert wire.session.occupancy is not None and wire.session.occupancy.occupied == truth
    # Every reported change is one the table really made, in order, per square.
    for square in {c.square for c in wire.changes()}:
        reported = [c.occupied for c in wire.changes() if c.square == square]
        history = truth_history[square]
        assert len(reported) <= len(history)
        assert reported[0] is True  # every square started empty
        assert all(a != b for a, b in itertools.pairwise(reported))
    assert wire.session.in_sync
    assert wire.session.decoder.stats.crc_errors > 0


def test_leds_off_the_board_are_not_sent_and_do_not_block_sync():
    wire = Wire(rows=4, cols=4)
    wire.intent.leds.update({Square(1, 1): Color(5, 5, 5), Square(9, 9): Color(1, 1, 1)})
    wire.step(50)
    assert wire.session.in_sync
    assert wire.hardware.leds[15:18] == bytes((5, 5, 5))


def test_scan_settings_out_of_range_are_refused_by_name():
    with pytest.raises(ValueError, match=r"debounce_ms must be within 0\.\.1000, got 5000"):
        ScanSettings(debounce_ms=5000)
    with pytest.raises(ValueError, match=r"square \(16, 0\) outside"):
        Square(16, 0)


def asks_sent(frames):
    return sum(
        1
        for out in frames
        for _, msg_type, _ in protocol.FrameReader().feed(out)
        if msg_type == protocol.MessageType.REQUEST_SNAPSHOT
    )


def test_quiet_and_silence_limits_follow_the_acknowledged_heartbeat(monkeypatch):
    wire = Wire()
    wire.intent.scan = ScanSettings(heartbeat_ms=5000)
    wire.step(100)
    assert wire.board.heartbeat_ms == 5000 and wire.session.in_sync
    sent = []
    take_output = wire.session.take_output

    def recording():
        out = take_output()
        sent.append(out)
        return out

    monkeypatch.setattr(wire.session, "take_output", recording)
    wire.step(15000)  # an idle table: a heartbeat every 5 s answers every question
    assert asks_sent(sent) == 0
    assert wire.session.state is LinkState.CONNECTED
    # The board falls silent: lost after six heartbeats, not after the default's 3 s.
    last = wire.session.last_frame_at
    assert last is not None
    wire.session.poll(last + 10.0)
    with pytest.raises(LinkLost, match="silent"):
        wire.session.poll(last + 30.5)


def test_the_default_heartbeat_keeps_the_default_limits():
    wire = Wire()
    wire.step(50)
    assert wire.session.quiet_after_s == pytest.approx(0.6)
    assert wire.session.silence_timeout_s == pytest.approx(3.0)
    last = wire.session.last_frame_at
    assert last is not None
    with pytest.raises(LinkLost, match="silent"):
        wire.session.poll(last + 3.1)


MT = protocol.MessageType


def test_after_the_handshake_the_host_asks_then_sets_scan_then_every_led():
    wire = Wire()
    # The board has run under another host: its boot is long gone, it has a slow heartbeat
    # and a lit LED the new host knows nothing of.
    wire.board.take_output()
    wire.board.heartbeat_ms = 5000
    wire.hardware.leds[0:3] = bytes((200, 0, 0))
    wire.board.leds[0:3] = bytes((200, 0, 0))
    wire.intent.leds[Square(3, 3)] = Color(0, 0, 9)
    wire.step(50)
    after_hello = [t for t in wire.sent_types() if t != MT.HELLO]
    assert after_hello[:3] == [MT.REQUEST_SNAPSHOT, MT.SET_SCAN, MT.SET_LEDS]
    set_scan = next(p for _, _, t, p in wire.sent if t == MT.SET_SCAN)
    assert set_scan == ScanSettings().payload()  # the defaults, as nothing else was asked for
    assert wire.session.in_sync
    assert wire.board.heartbeat_ms == 500
    assert wire.hardware.leds == bytearray(45) + bytes((0, 0, 9))
    # The colour asked for goes out first, the squares only known to be wanted off after it.
    first_leds = next(p for _, _, t, p in wire.sent if t == MT.SET_LEDS)
    assert first_leds[1:5] == bytes((15, 0, 0, 9))


def test_after_a_board_reset_only_what_differs_from_its_defaults_is_sent():
    wire = Wire()
    wire.intent.leds[Square(2, 2)] = Color(50, 0, 0)
    wire.step(50)
    reset_at = wire.now_ms
    wire.reset_board(boot_id=0x2222)
    wire.step(50)
    sent = [(t, p) for ms, _, t, p in wire.sent if ms >= reset_at]
    assert [p for t, p in sent if t == MT.SET_LEDS] == [bytes((1, 10, 50, 0, 0))]
    assert MT.SET_SCAN not in [t for t, _ in sent]  # the defaults are what a boot starts with
    assert wire.session.in_sync


def test_asks_go_out_while_a_command_awaits_its_ack_and_do_not_disturb_it():
    wire = Wire()
    wire.step(50)
    assert wire.session.in_sync
    wire.intent.leds[Square(1, 1)] = Color(7, 7, 7)
    wire.session.poll(wire.now_ms / 1000)  # the SET_LEDS goes out ...
    ((leds_seq, _, _),) = [
        f for f in protocol.FrameReader().feed(wire.session.take_output()) if f[1] == MT.SET_LEDS
    ]
    wire.session._snapshot_wanted = True  # ... and a snapshot is wanted before its ACK
    wire.session.poll(wire.now_ms / 1000 + 0.011)
    asks = [f for f in protocol.FrameReader().feed(wire.session.take_output())]
    assert [t for _, t, _ in asks] == [MT.REQUEST_SNAPSHOT]
    assert asks[0][0] == (leds_seq + 1) & 0xFF  # the next number, like any new frame
    # The board gets the ask, then a retransmission of the command under its first number.
    wire.board.receive(protocol.encode_frame(asks[0][0], MT.REQUEST_SNAPSHOT, b""), wire.now_ms)
    wire.step(300)
    assert wire.session.in_sync and wire.hardware.leds[15:18] == bytes((7, 7, 7))
    assert wire.session.sender.retransmits >= 1
    assert leds_seq in [seq for _, seq, t, _ in wire.sent if t == MT.SET_LEDS]


def test_malformed_reports_are_ignored_and_counted_but_their_numbers_still_count():
    wire = Wire(rows=4, cols=4)
    wire.step(50)
    session = wire.session
    seq = session._expected_seq
    assert seq is not None
    good = session.occupancy
    # A snapshot of another matrix than the board's, then an ACK of an unknown status, with a
    # frame number skipped between them (the golden vectors hold the other malformed kinds).
    other = protocol.encode_snapshot(0x1111, 9, 1, 4, 5, bytearray(20))
    session.receive(protocol.encode_frame(seq, MT.SNAPSHOT, other), 0.06)
    session.receive(protocol.encode_frame(seq + 2, MT.ACK, bytes((0, 9))), 0.06)
    assert session.counters.malformed == 2
    assert session.counters.frames_lost == 1  # the gap is seen though the frame was malformed
    assert session.occupancy == good and session.state is LinkState.CONNECTED


def test_the_stalled_frame_timer_runs_from_the_first_byte_of_a_frame():
    wire = Wire()
    wire.step(50)
    session = wire.session
    assert not session._snapshot_wanted
    assert session._expected_seq is not None
    frame = protocol.encode_frame(session._expected_seq, MT.ACK, bytes((0, 0)))
    start = wire.now_ms / 1000
    session.receive(frame[:3], start)  # a frame starts ...
    session.receive(frame[3:5], start + 0.050)  # ... more of it: the timer does not restart
    session.poll(start + 0.059)
    assert not session._snapshot_wanted
    session.poll(start + 0.061)  # 60 ms after its first byte: its closing sync byte was lost
    assert session._snapshot_wanted
    session.receive(frame[5:], start + 0.062)
    assert session.decoder.pending == 0 and session._partial_since is None
