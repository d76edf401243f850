"""A minute of phones hammering the service while the bots play and the referee searches: one
thread touches the live game, every state read is a committed one, the log replays to the live
game, and no handler works on the HTTP event loop for more than 20 ms."""

from __future__ import annotations

import threading
from pathlib import Path

from controller.bench.stress import LoopWatch, ThreadWatch, run
from rules.registry import new_game


def test_a_minute_of_phones_and_bots_keeps_one_owner(tmp_path: Path) -> None:
    report = run(60.0, tmp_path, phones=8)
    figures = report.to_json()
    assert report.server_errors == 0 and report.service_errors == 0, figures
    assert report.threads_touching_state == 1, figures
    assert report.reads_checked >= 50 and report.reads_not_committed == 0, figures
    assert report.log_replays_to_live, figures
    assert report.loop_callbacks_over_20ms == 0, report.loop_slow_callbacks
    assert report.bot_moves >= 3 and report.requests > 1000, figures


def test_the_thread_watch_sees_a_second_thread_touch_the_state() -> None:
    state = new_game("offtherails", {"players": 2}, 1)
    with ThreadWatch(lambda: state) as watch:
        state.legal_actions()
        other = threading.Thread(target=state.scores, name="intruder")
        other.start()
        other.join()
    assert watch.threads == {threading.current_thread().name, "intruder"}


def test_the_loop_watch_sees_a_callback_that_blocks() -> None:
    import asyncio
    import time

    async def blocking() -> None:
        started = time.thread_time()
        while time.thread_time() - started < 0.03:
            pass

    with LoopWatch() as watch:
        watch.thread = threading.get_ident()
        watch.counting = True
        asyncio.run(blocking())
    assert watch.slow and watch.slow[0] >= 20.0


def test_the_loop_watch_takes_a_garbage_collection_out_of_the_callback() -> None:
    import asyncio
    import gc

    async def collecting() -> None:
        gc.collect()

    junk = [[i] for i in range(1_000_000)]  # enough objects for a full collection to take a while
    with LoopWatch() as watch:
        watch.thread = threading.get_ident()
        watch.counting = True
        asyncio.run(collecting())
    del junk
    assert watch.gc_longest_ms > 20.0
    assert not watch.slow, watch.slow_what
