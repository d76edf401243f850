"""The computer's searches in a process of their own, so the service's interpreter never waits.

A search is pure Python and holds the interpreter lock while it runs: on a thread of the service,
the owner, the referee and the web server would share one core with it for the seconds it thinks
(`railtable bench referee` beside a search thread: merged verdicts' p99 doubled). Here one child
process (`python -m controller.game.search_process`) searches and the service's worker thread
only waits on a pipe, which lets the interpreter go; on a Pi the search runs on another core.

The pipe carries length-prefixed pickles between this process and the child it started (nothing
else writes to it): the state to decide for, its level, seed and budget one way, the `Decision`
or the error's one line back. The child starts at the first search (or `start`) and serves every
search after it; it ends when the service closes its input (or dies: its input ends then too).
A child that dies, answers nonsense or takes far longer than its budget is killed and
`SearchFailed` raised; the next search starts a new child. The service starts the child as soon as
a seat is the computer's (`start`), so its imports do not delay the first decision.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from typing import IO, Any

from rules.ai.player import SECONDS, Decision, Level, decide
from rules.ai.search import Budget
from rules.core import State

HEADER = struct.Struct(">I")  # a frame: its length, then a pickle
MAX_FRAME = 64 * 1024 * 1024  # a frame longer than this is nonsense: the child is killed
GRACE_S = 30.0  # a search may take this much longer than its budget before its child is killed
ITERATIONS_LIMIT_S = 300.0  # the limit for a search with an iteration budget
CLOSE_S = 5.0  # how long a closed child may take to end (a search in hand) before it is killed
NICENESS = 10  # the child yields the CPU to the service: a verdict never waits on a search


class SearchFailed(Exception):
    """The search process could not give a decision (one line, naming why)."""


def write_frame(stream: IO[bytes], value: object) -> None:
    """One value down a pipe: its pickle's length, then the pickle."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """One value from a pipe; EOFError at its end or in the middle of a frame."""
    head = _read_exactly(stream, HEADER.size)
    (size,) = HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ValueError(f"a frame of {size} bytes")
    return pickle.loads(_read_exactly(stream, size))


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError("the pipe ended")
        data += chunk
    return data


def time_limit(level: Level, budget: Budget | None) -> float:
    """How long a search may take before its child is taken for hung."""
    if budget is not None and budget.seconds is None:
        return ITERATIONS_LIMIT_S
    seconds = budget.seconds if budget is not None and budget.seconds else SECONDS[level]
    return seconds + GRACE_S


class SearchProcess:
    """One child process that searches, started at the first search; safe to call from several
    threads (one search at a time)."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", "controller.game.search_process"]
        self.started = 0  # children started so far (a restart after a failure counts)
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def decide(self, state: State, level: Level, seed: int, budget: Budget | None) -> Decision:
        """`rules.ai.decide(state, level, seed, budget)`, worked out in the child."""
        with self._lock:
            child = self._running()
            assert child.stdin is not None and child.stdout is not None
            watchdog = threading.Timer(time_limit(level, budget), child.kill)
            watchdog.daemon = True
            watchdog.start()
            try:
                write_frame(child.stdin, (state, level, seed, budget))
                kind, answer = read_frame(child.stdout)
            except Exception as error:  # a broken pipe, a dead child, a garbled frame
                self._end(child)
                raise SearchFailed(f"the search process stopped: {error}") from error
            finally:
                watchdog.cancel()
            if kind == "error":
                raise SearchFailed(str(answer))
            if not isinstance(answer, Decision):
                self._end(child)
                raise SearchFailed(f"the search process answered a {type(answer).__name__}")
            return answer

    def start(self) -> None:
        """Start the child now, if none runs, so that its first search does not wait for it
        (never waits itself: with a search under way there is a child already)."""
        if self._lock.acquire(blocking=False):
            try:
                self._running()
            finally:
                self._lock.release()

    def close(self) -> None:
        """End the child (after the search in hand, or killed after `CLOSE_S`)."""
        with self._lock:
            self._close()

    def _running(self) -> subprocess.Popen[bytes]:
        if self._child is not None and self._child.poll() is not None:
            self._end(self._child)  # died between searches: its pipes closed, it is reaped
        if self._child is None:
            self._child = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
            )
            self.started += 1
        return self._child

    def _close(self) -> None:
        if self._child is not None:
            self._end(self._child, gently=True)

    def _end(self, child: subprocess.Popen[bytes], gently: bool = False) -> None:
        if self._child is child:
            self._child = None
        if gently and child.stdin is not None:
            try:
                child.stdin.close()
                child.wait(CLOSE_S)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def serve(source: IO[bytes], sink: IO[bytes]) -> None:
    """The child's loop: decide each state read from `source`, answer on `sink`, until `source`
    ends. A search that raises is answered with its one line (the child goes on)."""
    while True:
        try:
            state, level, seed, budget = read_frame(source)
        except EOFError:
            return
        try:
            answer: tuple[str, object] = ("decision", decide(state, level, seed, budget))
        except Exception as error:  # the parent is told in one line; the child serves on
            answer = ("error", f"the search failed: {type(error).__name__}: {error}")
        write_frame(sink, answer)


def main() -> None:
    """Serve the parent on stdin and stdout; anything printed goes to stderr, never the pipe.
    Ctrl-C at a terminal reaches the child too: the parent alone decides when it ends. Where
    the cores are all busy, the service goes first (`NICENESS`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICENESS)
    pipe_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with contextlib.suppress(BrokenPipeError):
        serve(sys.stdin.buffer, pipe_out)


if __name__ == "__main__":
    main()
