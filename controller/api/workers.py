"""The API's worker threads: a fixed few, started once, for the blocking work a route hands off
(log reads and rows rendered, pictures drawn, a card file read).

starlette's and asyncio's thread pools start a thread per concurrent call up to dozens and keep
them after a burst (anyio stops an idle one only when a later call comes), each thread with its
own SQLite connection and page cache and its own malloc arena: a burst of requests left the
service with more threads and memory a minute later. Here a burst waits its turn instead: the
same threads before, during and after it."""

from __future__ import annotations

import asyncio
import functools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
WORKERS = 3  # a Pi has 4 cores; the event loop and the game's owner have one each

_Job = tuple[Callable[[], Any], "Future[Any]"]


class Workers:
    """`count` daemon threads taking jobs in order; `run` awaits one from the event loop."""

    def __init__(self, count: int = WORKERS, name: str = "railtable-worker") -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.threads = tuple(
            threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True)
            for n in range(count)
        )
        for thread in self.threads:
            thread.start()

    def _work(self) -> None:
        while True:
            call, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue  # its caller left (a phone hung up): not worth doing
            try:
                future.set_result(call())
            except BaseException as error:  # handed to the caller, who says what went wrong
                future.set_exception(error)

    def submit(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        self._jobs.put((functools.partial(call, *args, **kwargs), future))
        return future

    async def run(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`call(*args, **kwargs)` on a worker, awaited without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(call, *args, **kwargs))


_SHARED: list[Workers] = []
_LOCK = threading.Lock()


def shared() -> Workers:
    """The process's workers (every app in it shares them), started on the first call."""
    with _LOCK:
        if not _SHARED:
            _SHARED.append(Workers())
        return _SHARED[0]


async def in_worker(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`call(*args, **kwargs)` on one of the process's workers, awaited."""
    return await shared().run(call, *args, **kwargs)
