"""The real firmware logic on a pseudo-terminal against the real link, through pyserial."""

import asyncio
import itertools
import json
import random
import threading
import time

import pytest

from firmware_bridge.link import Backoff, BoardLink
from firmware_bridge.messages import Color, ProtocolVersionError, Square
from firmware_bridge.session import BoardEvent, LinkState, OccupancyChanged
from hardware.firmware import protocol
from hardware.virtual_board import Faults, VirtualBoard
from tests.support.waiting import wait_until

FAST_BACKOFF = Backoff(initial_s=0.02, max_s=0.2)


class Table:
    """Moves magnets on the virtual board and remembers each square's true history."""

    def __init__(self, board, seed):
        self.board = board
        self.rng = random.Random(seed)
        self.history = {}

    def toggle_random(self):
        row, col = self.rng.randrange(self.board.rows), self.rng.randrange(self.board.cols)
        if (row, col) in self.board.magnets:
            self.board.lift(row, col)
        else:
            self.board.place(row, col)
        self.history.setdefault(Square(row, col), []).append((row, col) in self.board.magnets)

    def play(self, moves, gap_s=(0.005, 0.04)):
        for _ in range(moves):
            self.toggle_random()
            time.sleep(self.rng.uniform(*gap_s))

    def truth(self):
        return frozenset(Square(r, c) for r, c in self.board.magnets)


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def changes(self):
        return [c for e in self.events if isinstance(e, OccupancyChanged) for c in e.changes]


def assert_settled_and_honest(link, table, recorder, timeout=6.0):
    wait_until(
        lambda: link.occupancy is not None and link.occupancy.occupied == table.truth(),
        timeout,
        "host occupancy equal to the table",
    )
    # No invented change: per square, reports alternate, start from empty, and never outnumber
    # the real moves.
    changes = recorder.changes()
    for square in {c.square for c in changes}:
        reported = [c.occupied for c in changes if c.square == square]
        assert reported[0] is True, square
        assert all(a != b for a, b in itertools.pairwise(reported)), square
        assert len(reported) <= len(table.history.get(square, [])), square


@pytest.fixture
def board():
    with VirtualBoard(8, 8, seed=11) as virtual:
        yield virtual


def connect(board, recorder, timeout=5):
    link = BoardLink(str(board.path), on_event=recorder, backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(timeout)
    except BaseException:
        link.stop()  # the caller's try/finally has not begun: do not leave the thread running
        raise
    return link


def test_connect_stops_the_link_when_the_handshake_fails(board):
    board.unplug(60)
    wait_until(lambda: not board.plugged_in, what="unplug")
    with pytest.raises(TimeoutError):
        connect(board, Recorder(), timeout=0.2)
    assert not [t for t in threading.enumerate() if t.name.startswith("board-link")]


def test_handshake_snapshots_and_acknowledged_leds(board):
    recorder = Recorder()
    link = connect(board, recorder)
    try:
        assert link.identity.board_id == board.board_id
        assert link.occupancy is not None and link.occupancy.occupied == frozenset()
        assert (link.identity.rows, link.identity.cols) == (8, 8)
        board.place(3, 4)
        wait_until(lambda: Square(3, 4) in (link.occupancy.occupied if link.occupancy else ()))
        link.set_leds({Square(0, 0): Color(255, 0, 0), Square(7, 7): Color(0, 0x7E, 0x7D)}).result(
            2
        )
        assert board.led(0, 0) == (255, 0, 0) and board.led(7, 7) == (0, 0x7E, 0x7D)
        health = link.health()
        assert health.state is LinkState.CONNECTED and health.crc_errors == 0
        assert health.frames_received > 0 and health.last_seen is not None
    finally:
        link.stop()
    assert link.state is LinkState.STOPPED


@pytest.mark.parametrize(
    "faults",
    [
        Faults(corruption_rate=0.05),
        Faults(drop_rate=0.2),
        Faults(delay_ms=40),
        Faults(corruption_rate=0.02, drop_rate=0.1, delay_ms=10),
    ],
    ids=["corrupt-5pct", "drop-20pct", "delay-40ms", "all-at-once"],
)
def test_faults_on_the_wire_are_survived(board, faults):
    recorder = Recorder()
    link = connect(board, recorder)
    try:
        board.set_faults(faults)
        table = Table(board, seed=5)
        table.play(30)
        link.set_leds({Square(2, 2): Color(1, 2, 3)}).result(10)
        assert_settled_and_honest(link, table, recorder)
        assert board.led(2, 2) == (1, 2, 3)
        assert link.state is LinkState.CONNECTED
    finally:
        link.stop()


def test_board_reset_resyncs_leds_and_occupancy(board):
    recorder = Recorder()
    link = connect(board, recorder)
    try:
        link.set_leds({Square(1, 1): Color(9, 9, 9)}).result(2)
        table = Table(board, seed=6)
        table.play(5)
        board.reset()
        table.play(5)
        wait_until(lambda: link.health().board_resets >= 1, what="reset noticed")
        wait_until(lambda: board.led(1, 1) == (9, 9, 9), what="LEDs sent again")
        assert_settled_and_honest(link, table, recorder)
    finally:
        link.stop()


def test_unplug_reconnects_and_resyncs(board):
    recorder = Recorder()
    link = connect(board, recorder)
    try:
        link.set_leds({Square(4, 4): Color(0, 50, 0)}).result(2)
        table = Table(board, seed=7)
        table.play(3)
        board.unplug(0.6)
        wait_until(lambda: link.state is not LinkState.CONNECTED, 2, "link noticing the unplug")
        table.play(6)  # moves made while the board is unplugged
        wait_until(lambda: board.plugged_in, 3, "replug")
        wait_until(lambda: link.state is LinkState.CONNECTED, 5, "reconnect")
        wait_until(lambda: board.led(4, 4) == (0, 50, 0), what="LEDs after replug")
        assert_settled_and_honest(link, table, recorder)
        assert link.health().reconnects >= 1
    finally:
        link.stop()


def test_protocol_version_mismatch_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(protocol, "PROTOCOL_VERSION", 2)
    board = VirtualBoard(8, 8, seed=12).start()
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    try:
        with pytest.raises(ProtocolVersionError, match="board speaks protocol version 2"):
            link.wait_connected(5)
        assert link.state is LinkState.INCOMPATIBLE
        assert "flash firmware" in (link.health().last_error or "")
    finally:
        link.stop()
        board.stop()


def test_missing_port_is_retried_and_named():
    link = BoardLink("/nonexistent/railtable-board", backoff=FAST_BACKOFF).start()
    try:
        with pytest.raises(TimeoutError, match="/nonexistent/railtable-board"):
            link.wait_connected(0.3)
        assert link.state is LinkState.DISCONNECTED
    finally:
        link.stop()


def test_events_arrive_through_an_async_iterator_and_health_serialises(board):
    async def watch():
        link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
        try:
            events = link.events()
            waiting = asyncio.ensure_future(anext(events))
            await asyncio.sleep(0)  # the iterator is now subscribed
            board.place(6, 1)
            seen: list[BoardEvent] = []
            while not any(isinstance(e, OccupancyChanged) and e.changes for e in seen):
                seen.append(await asyncio.wait_for(waiting, 5))
                waiting = asyncio.ensure_future(anext(events))
            waiting.cancel()
            await events.aclose()
            return seen, link.health()
        finally:
            link.stop()

    seen, health = asyncio.run(watch())
    changed = [e for e in seen if isinstance(e, OccupancyChanged) and e.changes]
    assert [(c.square, c.occupied) for c in changed[0].changes] == [(Square(6, 1), True)]
    data = json.loads(json.dumps(health.to_json()))
    assert data["state"] == "connected" and data["board_id"] == board.board_id.hex()


def test_a_burst_of_requests_does_not_hold_back_a_real_change(board):
    import serial

    port = serial.serial_for_url(str(board.path), baudrate=115200, timeout=0.01)
    try:
        request = protocol.encode_frame(1, protocol.MessageType.REQUEST_SNAPSHOT, b"")
        port.write(request * 4000)  # about 2.4 s of snapshots and ACKs, were they all sent
        placed_at = board.place(5, 5)
        index = 5 * 8 + 5
        reader = protocol.FrameReader()
        delivered_at = None
        while delivered_at is None and time.monotonic() < placed_at + 15:
            for _, msg_type, payload in reader.feed(port.read(4096)):
                if msg_type == protocol.MessageType.SNAPSHOT and payload[7 + index // 8] & (
                    0x80 >> (index % 8)
                ):
                    delivered_at = time.monotonic()
        assert delivered_at is not None
        # Debounce, the scan and a few queued frames at 115200 baud: tens of milliseconds here,
        # a quarter of a second on arm64 under qemu; served in turn, the 4000 would take 2.4 s.
        assert delivered_at - placed_at < 1.0
    finally:
        port.close()
