"""The virtual sensor board: the firmware's logic on a pseudo-terminal, with knobs for faults."""

from __future__ import annotations

import contextlib
import errno
import math
import os
import random
import select
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hardware.firmware.board import MAX_SIDE, SensorBoard
from hardware.firmware.hal import SimulatedHardware
from hardware.firmware.protocol import SYNC

BITS_PER_BYTE = 10  # start bit, 8 data bits, stop bit


@dataclass(frozen=True)
class Faults:
    """What goes wrong on the virtual wire.

    corruption_rate: chance that each byte, either way, is replaced by another value.
    drop_rate: chance that each frame, either way, vanishes.
    delay_ms: extra time each board-to-host frame takes to reach the host after leaving the
        wire (latency: the wire still carries one frame after another at the baud rate).
    """

    corruption_rate: float = 0.0
    drop_rate: float = 0.0
    delay_ms: float = 0.0

    def __post_init__(self) -> None:
        for name in ("corruption_rate", "drop_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within 0..1, got {value}")
        if not (math.isfinite(self.delay_ms) and self.delay_ms >= 0):
            raise ValueError(f"delay_ms must be a finite number >= 0, got {self.delay_ms}")


@dataclass(frozen=True)
class WireCounts:
    """What the virtual wire did so far."""

    frames_sent: int
    frames_dropped: int
    bytes_corrupted: int
    frames_received: int
    boots: int


class VirtualBoard:
    """Runs SensorBoard on a pty at a stable path; drive it with place() and lift().

    The path (a symlink to the current /dev/pts/N) is the pyserial URL for the host. Unplugging
    closes the pty and removes the symlink, so the host sees an I/O error and then no device;
    plugging back in makes a new pty behind the same path. Bytes to the host are paced at the
    configured baud rate: a frame reaches the host when its last byte would have. Like a UART,
    the wire takes the board's next frame only once the last one is out; until then frames wait
    in the board's own bounded queue (PROTOCOL.md section 6).
    """

    def __init__(
        self,
        rows: int = 8,
        cols: int = 8,
        *,
        baudrate: int = 115200,
        path: str | Path | None = None,
        faults: Faults | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise ValueError(f"matrix {rows}x{cols} outside 1..{MAX_SIDE} x 1..{MAX_SIDE}")
        if baudrate <= 0:
            raise ValueError(f"baud rate must be positive, got {baudrate}")
        self.rows = rows
        self.cols = cols
        self.baudrate = baudrate
        self._own_dir = None if path is not None else tempfile.mkdtemp(prefix="railtable-board-")
        self.path = Path(path) if path is not None else Path(self._own_dir or ".") / "board"
        self.faults = faults or Faults()
        self._rng = random.Random(seed)
        self._clock = clock
        self.hardware = SimulatedHardware(rows, cols)
        self.board_id = bytes(self._rng.getrandbits(8) for _ in range(8))
        self._boot_id = -1
        self._byte_time = BITS_PER_BYTE / baudrate
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._commands: deque[Callable[[], None]] = deque()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self.device: str | None = None
        self._board: SensorBoard | None = None
        self._started_at = clock()
        # Frames off the wire on their way to the host (delay_ms), with the time they arrive.
        self._outgoing: deque[tuple[float, bytes]] = deque()
        self._line_free_at = 0.0
        # Since when the board has had a frame waiting for the wire; None while it has none.
        self._waiting_since: float | None = None
        self._partial_in = bytearray()
        self._unplugged_until: float | None = None
        self._frames_sent = 0
        self._frames_dropped = 0
        self._bytes_corrupted = 0
        self._frames_received = 0
        self._boots = 0

    # --- life cycle ----------------------------------------------------------------------------

    def start(self) -> VirtualBoard:
        """Plug the board in and run it on its own thread.

        OSError, naming the path, when the path cannot be made: its folder is missing or not
        writable, or something other than a symlink is already there.
        """
        try:
            if os.path.lexists(self.path) and not self.path.is_symlink():
                raise FileExistsError(errno.EEXIST, "something other than a symlink is there")
            self._plug_in()
        except OSError as error:
            self._release()
            why = error.strerror or str(error)
            raise OSError(f"cannot put the board's symlink at {self.path}: {why}") from error
        self._thread = threading.Thread(target=self._run, name="virtual-board", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the board and remove its pty and path."""
        self._stopping = True
        self._wake()
        if self._thread is not None:
            self._thread.join()
        self._unplug()
        self._release()

    def _release(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._wake_r)
        with contextlib.suppress(OSError):
            os.close(self._wake_w)
        if self._own_dir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._own_dir)

    def __enter__(self) -> VirtualBoard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- driving it ----------------------------------------------------------------------------

    def place(self, row: int, col: int) -> float:
        """Put a magnet on a square; returns the clock time it happened."""
        self._check_square(row, col)
        self.hardware.magnets.add((row, col))
        return self._clock()

    def lift(self, row: int, col: int) -> float:
        """Take the magnet off a square; returns the clock time it happened."""
        self._check_square(row, col)
        self.hardware.magnets.discard((row, col))
        return self._clock()

    @property
    def magnets(self) -> frozenset[tuple[int, int]]:
        """The squares with a magnet on them now."""
        return frozenset(self.hardware.magnets)

    def led(self, row: int, col: int) -> tuple[int, int, int]:
        """The colour the LED under a square shows now."""
        self._check_square(row, col)
        base = 3 * (row * self.cols + col)
        leds = self.hardware.leds
        return (leds[base], leds[base + 1], leds[base + 2])

    def set_faults(self, faults: Faults) -> None:
        """Change the fault knobs; they apply to bytes from now on."""
        self.faults = faults

    def reset(self) -> None:
        """Reset the board: it forgets LEDs and settings and announces itself again."""
        self._command(self._boot)

    def unplug(self, seconds: float) -> None:
        """Pull the USB cable for this long, then plug it back in."""
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"unplug needs a finite number of seconds >= 0, got {seconds}")

        def pull() -> None:
            self._unplug()
            self._unplugged_until = self._clock() + seconds

        self._command(pull)

    @property
    def plugged_in(self) -> bool:
        return self._master is not None

    @property
    def counts(self) -> WireCounts:
        return WireCounts(
            self._frames_sent,
            self._frames_dropped,
            self._bytes_corrupted,
            self._frames_received,
            self._boots,
        )

    # --- the board's thread --------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping:
            self._run_commands()
            now = self._clock()
            if self._master is None:
                if self._unplugged_until is not None and now >= self._unplugged_until:
                    try:
                        self._plug_in()
                        self._unplugged_until = None
                    except OSError:  # the path's folder went away: try again in a while
                        self._unplugged_until = now + 1.0
                    continue
                wait = 0.05 if self._unplugged_until is None else self._unplugged_until - now
                select.select([self._wake_r], [], [], max(0.0, min(wait, 0.05)))
                self._drain_wake()
                continue
            board = self._board
            assert board is not None
            now_ms = self._ms(now)
            board.poll(now_ms)
            self._note_waiting(board, now)
            self._transmit(board, now)
            self._flush_due(now)
            wait_until = board.next_due_ms() / 1000 + self._started_at
            if self._waiting_since is not None:
                wait_until = min(wait_until, self._line_free_at)
            if self._outgoing:
                wait_until = min(wait_until, self._outgoing[0][0])
            timeout = max(0.0, wait_until - self._clock())
            readable, _, _ = select.select([self._master, self._wake_r], [], [], timeout)
            if self._wake_r in readable:
                self._drain_wake()
            if self._master in readable:
                self._read_input(board)

    def _read_input(self, board: SensorBoard) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 4096)
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EIO):
                return  # EIO: no host has the pty open
            raise
        self._partial_in += data
        faults = self.faults
        while (end := self._partial_in.find(SYNC)) >= 0:
            frame = bytes(self._partial_in[: end + 1])
            del self._partial_in[: end + 1]
            self._frames_received += 1
            if faults.drop_rate and self._rng.random() < faults.drop_rate:
                self._frames_dropped += 1
                continue
            board.receive(self._corrupt(frame), self._ms(self._clock()))
        # Whatever follows the last sync byte is fed as it comes, so nothing waits on it.
        if self._partial_in and not faults.drop_rate:
            board.receive(self._corrupt(bytes(self._partial_in)), self._ms(self._clock()))
            self._partial_in.clear()
        self._note_waiting(board, self._clock())

    def _note_waiting(self, board: SensorBoard, now: float) -> None:
        if self._waiting_since is None and board.frames_waiting:
            self._waiting_since = now

    def _transmit(self, board: SensorBoard, now: float) -> None:
        """Put the board's next frames on the wire, one after another, while the wire is free."""
        faults = self.faults
        while self._waiting_since is not None and self._line_free_at <= now:
            frame = board.next_frame()
            if frame is None:
                self._waiting_since = None
                break
            # Back to back with the frame before, unless the wire sat idle before this one.
            start = max(self._line_free_at, self._waiting_since)
            done = start + len(frame) * self._byte_time
            self._line_free_at = done
            self._waiting_since = done if board.frames_waiting else None
            if faults.drop_rate and self._rng.random() < faults.drop_rate:
                self._frames_dropped += 1
                continue
            self._outgoing.append((done + faults.delay_ms / 1000, self._corrupt(frame)))

    def _flush_due(self, now: float) -> None:
        while self._outgoing and self._outgoing[0][0] <= now:
            _, frame = self._outgoing.popleft()
            assert self._master is not None
            try:
                os.write(self._master, frame)
                self._frames_sent += 1
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EIO):
                    raise
                self._frames_dropped += 1  # nobody reads: like USB CDC with no host

    def _corrupt(self, data: bytes) -> bytes:
        rate = self.faults.corruption_rate
        if not rate:
            return data
        out = bytearray(data)
        for index in range(len(out)):
            if self._rng.random() < rate:
                out[index] ^= self._rng.randrange(1, 256)
                self._bytes_corrupted += 1
        return bytes(out)

    # --- plugging ------------------------------------------------------------------------------

    def _plug_in(self) -> None:
        master, slave = os.openpty()
        try:
            tty.setraw(slave)
            os.set_blocking(master, False)
            device = os.ttyname(slave)
            temporary = self.path.with_name(self.path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(device)
            temporary.replace(self.path)
        except BaseException:
            os.close(master)
            os.close(slave)
            raise
        self._master, self._slave = master, slave
        self.device = device
        self._boot()

    def _unplug(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.device = None
        self._board = None
        self._outgoing.clear()
        self._waiting_since = None
        self._partial_in.clear()

    def _boot(self) -> None:
        if self._master is None:
            return  # no power while unplugged
        boot_id = self._boot_id
        while boot_id == self._boot_id:
            boot_id = self._rng.getrandbits(16)
        self._boot_id = boot_id
        self.hardware.leds[:] = bytes(len(self.hardware.leds))
        self._board = SensorBoard(self.hardware, self.rows, self.cols, self.board_id, boot_id)
        self._outgoing.clear()
        self._waiting_since = None
        self._partial_in.clear()
        self._boots += 1
        now = self._clock()
        self._board.boot(self._ms(now))
        self._note_waiting(self._board, now)
        self._transmit(self._board, now)

    # --- plumbing ------------------------------------------------------------------------------

    def _ms(self, now: float) -> int:
        return int((now - self._started_at) * 1000)

    def _command(self, command: Callable[[], None]) -> None:
        with self._lock:
            self._commands.append(command)
        self._wake()

    def _run_commands(self) -> None:
        while True:
            with self._lock:
                if not self._commands:
                    return
                command = self._commands.popleft()
            command()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _drain_wake(self) -> None:
        with contextlib.suppress(OSError):
            os.read(self._wake_r, 4096)

    def _check_square(self, row: int, col: int) -> None:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"square ({row}, {col}) outside the {self.rows}x{self.cols} board")
