"""`railtable board watch` against the virtual sensor board: handshake and each magnet."""

from __future__ import annotations

import threading
import time

from controller.tools.board_watch import watch
from hardware.virtual_board import VirtualBoard


def test_watch_prints_the_handshake_and_each_change() -> None:
    lines: list[str] = []
    with VirtualBoard(4, 4) as board:

        def play() -> None:
            time.sleep(0.8)
            board.place(1, 2)
            time.sleep(0.4)
            board.lift(1, 2)

        threading.Thread(target=play, daemon=True).start()
        assert watch(str(board.path), 2.5, lines.append) == 0
    text = "\n".join(lines)
    assert "link connected" in text and "4x4 squares" in text
    assert "+ r1c2" in text and "- r1c2" in text


def test_no_board_is_one_clear_line() -> None:
    lines: list[str] = []
    assert watch("/dev/no-such-board", 0.3, lines.append) == 1
    assert lines[-1].startswith("no board answered at /dev/no-such-board")
