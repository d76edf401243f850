"""The link's thread survives whatever goes wrong, and stop() leaves nobody waiting."""

import asyncio
import termios
import threading
import time

import pytest
import serial

import firmware_bridge.link as link_module
from firmware_bridge.link import Backoff, BoardLink, BoardRefused, LinkStopped, open_serial_url
from firmware_bridge.messages import AckStatus, Color, ScanSettings, Square
from firmware_bridge.session import BoardEvent, LinkState, LinkStateChanged, Session
from hardware.firmware.board import SensorBoard
from hardware.virtual_board import VirtualBoard
from tests.support.waiting import wait_until

FAST_BACKOFF = Backoff(initial_s=0.02, max_s=0.2)


def occupied(link, row, col):
    return link.occupancy is not None and Square(row, col) in link.occupancy.occupied


@pytest.fixture
def board():
    with VirtualBoard(8, 8, seed=21) as virtual:
        yield virtual


def test_an_event_loop_closed_mid_iteration_does_not_kill_the_link(board):
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    loop = asyncio.new_event_loop()
    try:
        link.wait_connected(5)
        events = link.events()

        async def first():
            waiting = asyncio.ensure_future(anext(events))
            await asyncio.sleep(0)  # subscribed
            board.place(1, 1)
            return await asyncio.wait_for(waiting, 5)

        loop.run_until_complete(first())
        loop.close()  # the iterator is left suspended on a closed loop
        board.place(2, 2)
        wait_until(lambda: occupied(link, 2, 2), what="change after the loop closed")
        board.place(3, 3)
        wait_until(lambda: occupied(link, 3, 3), what="next change")
        assert link.state is LinkState.CONNECTED
        assert link.health().internal_errors == 0
    finally:
        link.stop()


def test_an_open_failing_with_a_non_os_error_is_retried(board):
    calls = []

    def opener(url, baudrate, timeout):
        calls.append(url)
        if len(calls) == 1:
            raise termios.error(5, "Input/output error")  # tcflush on a vanished device
        return open_serial_url(url, baudrate, timeout)

    link = BoardLink(str(board.path), open_port=opener, backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        assert len(calls) >= 2
    finally:
        link.stop()


def test_open_serial_url_closes_the_port_when_flushing_fails(monkeypatch):
    class Vanishing:
        closed = False

        def reset_input_buffer(self):
            raise termios.error(5, "Input/output error")

        def close(self):
            self.closed = True

    port = Vanishing()
    monkeypatch.setattr(serial, "serial_for_url", lambda *args, **kwargs: port)
    with pytest.raises(termios.error):
        open_serial_url("/dev/whatever", 115200, 0.005)
    assert port.closed


def test_a_bug_outside_the_conversation_is_counted_and_the_link_goes_on(board, monkeypatch):
    real_session = Session
    calls = []

    def flaky_session(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("bug while setting up a session")
        return real_session(*args, **kwargs)

    monkeypatch.setattr(link_module, "Session", flaky_session)
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        health = link.health()
        assert health.internal_errors == 1
        assert "bug while setting up a session" in (health.last_internal_error or "")
        assert health.to_json()["internal_errors"] == 1
    finally:
        link.stop()
    assert not any(t.name.startswith("board-link") for t in threading.enumerate())


def test_stop_fails_requests_queued_while_unplugged():
    link = BoardLink("/nonexistent/railtable-board", backoff=FAST_BACKOFF).start()
    future = link.set_leds({Square(0, 0): Color(1, 2, 3)})
    scan = link.set_scan(ScanSettings(heartbeat_ms=1000))
    link.stop()
    with pytest.raises(LinkStopped):
        future.result(timeout=5)
    with pytest.raises(LinkStopped):
        scan.result(timeout=5)
    with pytest.raises(LinkStopped):
        link.set_leds({Square(0, 0): Color(0, 0, 0)}).result(timeout=5)


def test_a_request_racing_stop_is_failed_not_forgotten(monkeypatch):
    link = BoardLink("/nonexistent/railtable-board", backoff=FAST_BACKOFF).start()
    stoppers = []

    class StopWhilePutting:
        """stop() runs between the request's check of _stopping and its put."""

        def __init__(self, queue):
            self.queue = queue

        def put(self, item):
            stopper = threading.Thread(target=link.stop)
            stoppers.append(stopper)
            stopper.start()
            stopper.join(0.3)
            self.queue.put(item)

        def get_nowait(self):
            return self.queue.get_nowait()

    monkeypatch.setattr(link, "_requests", StopWhilePutting(link._requests))
    future = link.set_leds({Square(0, 0): Color(1, 2, 3)})
    for stopper in stoppers:
        stopper.join(5)
    with pytest.raises(LinkStopped):
        future.result(timeout=5)


def test_stop_ends_event_iterators_with_a_stopped_state(board):
    recorder: list[BoardEvent] = []

    async def watch():
        link = BoardLink(str(board.path), on_event=recorder.append, backoff=FAST_BACKOFF).start()
        seen = []

        async def consume():
            async for event in link.events():
                seen.append(event)

        task = asyncio.create_task(consume())
        await asyncio.sleep(0)  # subscribed
        await asyncio.to_thread(link.wait_connected, 5)
        await asyncio.to_thread(link.stop)
        await asyncio.wait_for(task, 5)
        after = [event async for event in link.events()]  # ends at once once stopped
        return seen, after

    seen, after = asyncio.run(watch())
    assert seen[-1] == LinkStateChanged(LinkState.STOPPED, f"link to {board.path} stopped")
    assert recorder[-1] == seen[-1]
    assert after == []


def test_leds_outside_the_matrix_are_refused_by_name(board):
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        with pytest.raises(ValueError, match=r"square \(10, 10\) is outside the board's 8x8"):
            link.set_leds({Square(1, 1): Color(1, 1, 1), Square(10, 10): Color(255, 0, 0)})
        link.set_leds({Square(1, 1): Color(1, 1, 1)}).result(5)
    finally:
        link.stop()


def test_leds_asked_for_before_the_handshake_fail_once_the_matrix_is_known(board):
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF)
    outside = link.set_leds({Square(8, 0): Color(255, 0, 0), Square(0, 0): Color(0, 0, 9)})
    inside = link.set_leds({Square(7, 7): Color(0, 9, 0)})
    link.start()
    try:
        with pytest.raises(ValueError, match=r"square \(8, 0\) is outside the board's 8x8"):
            outside.result(5)
        inside.result(5)
        assert board.led(7, 7) == (0, 9, 0)
    finally:
        link.stop()


def test_leds_the_board_refuses_fail_the_future(board, monkeypatch):
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        monkeypatch.setattr(SensorBoard, "_set_leds", lambda self, payload: False)
        refused = link.set_leds({Square(2, 3): Color(255, 0, 0)})
        with pytest.raises(BoardRefused, match=r"square \(2, 3\).*BAD_PAYLOAD") as caught:
            refused.result(5)
        assert caught.value.status is AckStatus.BAD_PAYLOAD
        assert link.health().commands_failed >= 1
        assert link.state is LinkState.CONNECTED
        monkeypatch.undo()
        link.set_leds({Square(1, 1): Color(1, 2, 3)}).result(5)
        assert board.led(1, 1) == (1, 2, 3) and board.led(2, 3) == (0, 0, 0)
    finally:
        link.stop()


def test_a_board_reset_resyncs_without_reopening_and_reconnects_count_handshakes(board):
    opened = []
    attempts = []

    def opener(url, baudrate, timeout):
        attempts.append(url)
        if len(attempts) <= 2:
            raise OSError("not there yet")  # failed opens are no reconnects
        port = open_serial_url(url, baudrate, timeout)
        opened.append(port)
        return port

    link = BoardLink(str(board.path), open_port=opener, backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        assert link.health().reconnects == 0
        board.reset()
        wait_until(lambda: link.health().board_resets == 1, what="reset noticed")
        assert len(opened) == 1 and link.health().reconnects == 0
        board.unplug(0.3)
        wait_until(lambda: link.health().reconnects == 1, what="re-handshake after replug")
        assert len(opened) >= 2
    finally:
        link.stop()


def test_reopening_backs_off_from_50_ms_doubling_to_2_s():
    backoff = Backoff()
    assert [backoff.delay(n) for n in range(8)] == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0]


def test_a_request_wakes_the_link_at_once_instead_of_after_its_read(board, monkeypatch):
    monkeypatch.setattr(link_module, "READ_TIMEOUT_S", 1.0)  # a quiet line: reads wait 1 s
    link = BoardLink(str(board.path), backoff=FAST_BACKOFF).start()
    try:
        link.wait_connected(5)
        link.set_scan(ScanSettings(heartbeat_ms=5000)).result(5)  # no heartbeat in between
        took = []
        for col in range(5):
            time.sleep(0.05)
            start = time.monotonic()
            link.set_leds({Square(0, col): Color(1, 2, 3)}).result(5)
            took.append(time.monotonic() - start)
        assert max(took) < 0.5, took  # a request waiting for the read would take about 1 s
        assert link.health().internal_errors == 0
    finally:
        link.stop()
