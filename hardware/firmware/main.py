"""Entry point on the Pico: USB serial in and out, the SensorBoard logic, forever."""

import os
import select
import sys
import time

import micropython  # type: ignore[import-not-found]

from hardware.firmware import config
from hardware.firmware.board import SensorBoard
from hardware.firmware.pico_hal import PicoHardware, board_id


def run() -> None:
    """Serve the host over USB CDC; the watchdog resets the Pico if this loop ever stalls."""
    hardware = PicoHardware(config.ROWS, config.COLS)
    nonce = os.urandom(2)
    boot_id = (nonce[0] << 8) | nonce[1]
    board = SensorBoard(hardware, config.ROWS, config.COLS, board_id(), boot_id)
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(stdin, select.POLLIN)
    # Frames are binary: 0x03 on the line must not raise KeyboardInterrupt.
    micropython.kbd_intr(-1)
    last = time.ticks_ms()  # type: ignore[attr-defined]
    now = 0
    board.boot(now)
    while True:
        # Sum tick differences so the board's clock never wraps like ticks_ms() does.
        tick = time.ticks_ms()  # type: ignore[attr-defined]
        now += time.ticks_diff(tick, last)  # type: ignore[attr-defined]
        last = tick
        # USB CDC takes a frame as fast as the board makes one. A board on a real UART would
        # call next_frame() only when its transmit FIFO has room, leaving the rest queued in
        # the board, where a newer snapshot can still replace an older one.
        frame = board.next_frame()
        while frame is not None:
            stdout.write(frame)
            frame = board.next_frame()
        wait = max(0, board.next_due_ms() - now)
        if poller.poll(wait):
            board.receive(stdin.read(1), now)
        board.poll(now)


if __name__ == "__main__":
    run()
