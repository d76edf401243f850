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
            self.board.receive(self._damage([self.session.take_output()]), self.now_ms)
            self.events += self.session.take_events()
            self.now_ms += 1

    def changes(self):
        return [c for e in self.events if isinstance(e, OccupancyChanged) for c in e.changes]


def test_handshake_connects_and_reports_the_first_snapshot():
    wire = Wire()
    wire.step(20)
    assert wire.session.state is LinkState.CONNECTED
    assert wire.session.identity.rows == 4 and wire.session.identity.boot_id == 0x1111
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
    wire = Wire(rows=8, cols=8, seed=seed, corruption=0.05)
    wire.intent.leds.update({Square(i, i): Color(i, 0, 0) for i in range(8)})
    wire.step(300)
    truth_history = {}
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
    assert wire.session.occupancy.occupied == truth
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


def test_quiet_and_silence_limits_follow_the_acknowledged_heartbeat():
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

    wire.session.take_output = recording
    wire.step(15000)  # an idle table: a heartbeat every 5 s answers every question
    assert asks_sent(sent) == 0
    assert wire.session.state is LinkState.CONNECTED
    # The board falls silent: lost after six heartbeats, not after the default's 3 s.
    last = wire.session.last_frame_at
    wire.session.poll(last + 10.0)
    with pytest.raises(LinkLost, match="silent"):
        wire.session.poll(last + 30.5)


def test_the_default_heartbeat_keeps_the_default_limits():
    wire = Wire()
    wire.step(50)
    assert wire.session.quiet_after_s == pytest.approx(0.6)
    assert wire.session.silence_timeout_s == pytest.approx(3.0)
    last = wire.session.last_frame_at
    with pytest.raises(LinkLost, match="silent"):
        wire.session.poll(last + 3.1)
