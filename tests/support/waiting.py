"""Waiting, with a deadline, for something another thread or process does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(
    check: Callable[[], object],
    seconds: float = 15.0,
    what: object = "the condition",
    every: float = 0.01,
) -> None:
    """Return as soon as `check()` is true; fail the test when `seconds` pass first, saying
    `what` as it is then (a list the test fills shows what it holds by then)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(every)
