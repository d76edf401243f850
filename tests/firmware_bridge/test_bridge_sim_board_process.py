"""End to end: the real `railtable sim-board` process, the real link, and SIGTERM."""

import os
import signal
import subprocess
import sys
import time

from firmware_bridge.link import Backoff, BoardLink
from firmware_bridge.messages import Square
from firmware_bridge.session import BoardEvent, OccupancyChanged

RAILTABLE = [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())"]


def test_sim_board_process_serves_the_link_and_cleans_up_on_sigterm(tmp_path):
    path = tmp_path / "board"
    process = subprocess.Popen(
        [*RAILTABLE, "sim-board", "--path", str(path), "--seed", "4"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdin is not None
        printed = process.stdout.readline().strip()
        assert printed == str(path) and os.path.islink(path)
        seen: list[BoardEvent] = []
        link = BoardLink(printed, on_event=seen.append, backoff=Backoff(0.02, 0.2)).start()
        try:
            link.wait_connected(10)
            process.stdin.write("place 2 3\n")
            process.stdin.flush()
            deadline = time.monotonic() + 10
            placed = (Square(2, 3), True)
            while not any(
                placed in [(c.square, c.occupied) for c in e.changes]
                for e in list(seen)
                if isinstance(e, OccupancyChanged)
            ):
                assert time.monotonic() < deadline, "no change event for the placed magnet"
                time.sleep(0.01)
        finally:
            link.stop()
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
        assert not os.path.lexists(path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
