"""`railtable bench link`: latency, throughput and delivery of the link over the virtual board.

It lives in the controller because it joins two parts that never import each other: the host's
link (`firmware_bridge`) and the virtual board (`hardware`).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import threading
import time
from dataclasses import dataclass, field

from firmware_bridge.link import Backoff, BoardLink
from firmware_bridge.messages import Color, Square
from firmware_bridge.session import BoardEvent, OccupancyChanged
from hardware.virtual_board import Faults, VirtualBoard

WAIT_PER_CHANGE_S = 2.0


@dataclass
class _Deliveries:
    """When each (square, occupied) change was delivered on the host, in order."""

    seen: list[tuple[float, Square, bool]] = field(default_factory=list)
    events: int = 0  # change events delivered; one event may carry several square changes
    signal: threading.Condition = field(default_factory=threading.Condition)

    def __call__(self, event: BoardEvent) -> None:
        if not isinstance(event, OccupancyChanged) or not event.changes:
            return
        now = time.monotonic()
        with self.signal:
            self.events += 1
            self.seen.extend((now, c.square, c.occupied) for c in event.changes)
            self.signal.notify_all()

    def wait_for(self, square: Square, occupied: bool, after: int, timeout: float) -> float | None:
        """Delivery time of that change among the events after index `after`, or None."""
        deadline = time.monotonic() + timeout
        with self.signal:
            while True:
                for at, sq, occ in self.seen[after:]:
                    if sq == square and occ == occupied:
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.signal.wait(left)


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _ms(values: list[float], fraction: float) -> float | None:
    """A percentile rounded for the report; None when nothing was measured (all missed)."""
    return round(percentile(values, fraction), 2) if values else None


def _timed_changes(
    board: VirtualBoard, deliveries: _Deliveries, count: int, rng: random.Random
) -> tuple[list[float], int]:
    """Toggle random squares one at a time; latencies in ms and how many were never delivered."""
    latencies: list[float] = []
    missed = 0
    for _ in range(count):
        row, col = rng.randrange(board.rows), rng.randrange(board.cols)
        occupied = (row, col) not in board.magnets
        after = len(deliveries.seen)
        placed_at = board.place(row, col) if occupied else board.lift(row, col)
        delivered_at = deliveries.wait_for(Square(row, col), occupied, after, WAIT_PER_CHANGE_S)
        if delivered_at is None:
            missed += 1
        else:
            latencies.append((delivered_at - placed_at) * 1000)
        # A random pause, so that changes fall at every phase of the board's scan.
        time.sleep(rng.uniform(0.0, 0.01))
    return latencies, missed


def _throughput(
    board: VirtualBoard, deliveries: _Deliveries, seconds: float, rng: random.Random
) -> tuple[float, float]:
    """Change events and square changes delivered per second while a random square is toggled
    every millisecond or so."""
    events_before, changes_before = deliveries.events, len(deliveries.seen)
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        row, col = rng.randrange(board.rows), rng.randrange(board.cols)
        if (row, col) in board.magnets:
            board.lift(row, col)
        else:
            board.place(row, col)
        time.sleep(0.001)
    time.sleep(0.1)  # let the last debounce and frame through
    elapsed = time.monotonic() - start
    return (
        (deliveries.events - events_before) / elapsed,
        (len(deliveries.seen) - changes_before) / elapsed,
    )


def _wait_quiet(deliveries: _Deliveries, quiet_s: float = 0.2, limit_s: float = 5.0) -> None:
    """Return once no event has arrived for `quiet_s` (or after `limit_s`)."""
    deadline = time.monotonic() + limit_s
    seen = deliveries.events
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        if deliveries.events != seen:
            seen, quiet_since = deliveries.events, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return


def _led_round_trips(
    link: BoardLink, board: VirtualBoard, count: int, rng: random.Random
) -> list[float]:
    """Milliseconds from set_leds until the board acknowledged it, one colour at a time."""
    times: list[float] = []
    for index in range(count):
        square = Square(rng.randrange(board.rows), rng.randrange(board.cols))
        color = Color(index % 256, rng.randrange(256), 0x7E)  # 0x7E: an escaped byte each time
        start = time.monotonic()
        link.set_leds({square: color}).result(WAIT_PER_CHANGE_S * 5)
        times.append((time.monotonic() - start) * 1000)
    return times


def measure(
    samples: int,
    rows: int,
    cols: int,
    baudrate: int,
    seed: int,
    throughput_s: float = 2.0,
    led_samples: int | None = None,
) -> dict[str, object]:
    """Run the virtual board and the link in this process and measure them."""
    rng = random.Random(seed)
    led_samples = max(1, samples // 4) if led_samples is None else led_samples
    deliveries = _Deliveries()
    with (
        VirtualBoard(rows, cols, baudrate=baudrate, seed=seed) as board,
        BoardLink(
            str(board.path), baudrate=baudrate, on_event=deliveries, backoff=Backoff()
        ) as link,
    ):
        link.wait_connected(5)
        time.sleep(0.05)
        clean, clean_missed = _timed_changes(board, deliveries, samples, rng)
        events_per_s, changes_per_s = _throughput(board, deliveries, throughput_s, rng)
        # The board's queue is bounded, so the burst leaves at most a few frames behind; wait
        # for the last change to settle so that LED timings start on a quiet table.
        _wait_quiet(deliveries)
        led_clean = _led_round_trips(link, board, led_samples, rng)
        board.set_faults(Faults(corruption_rate=0.05))
        corrupted, corrupted_missed = _timed_changes(board, deliveries, samples, rng)
        led_corrupted = _led_round_trips(link, board, led_samples, rng)
        health = link.health()
    return {
        "events_per_s": round(events_per_s, 1),
        "changes_per_s": round(changes_per_s, 1),
        "change_latency_p50_ms": _ms(clean, 0.50),
        "change_latency_p99_ms": _ms(clean, 0.99),
        "change_latency_max_ms": _ms(clean, 1.0),
        "changes_missed": clean_missed,
        "delivered_fraction_at_5pct_corruption": round((samples - corrupted_missed) / samples, 4),
        "change_latency_p50_ms_at_5pct_corruption": _ms(corrupted, 0.50),
        "change_latency_p99_ms_at_5pct_corruption": _ms(corrupted, 0.99),
        "led_ack_p50_ms": _ms(led_clean, 0.50),
        "led_ack_p99_ms": _ms(led_clean, 0.99),
        "led_ack_p50_ms_at_5pct_corruption": _ms(led_corrupted, 0.50),
        "led_ack_p99_ms_at_5pct_corruption": _ms(led_corrupted, 0.99),
        "samples": samples,
        "led_samples": led_samples,
        "matrix": f"{rows}x{cols}",
        "baud": baudrate,
        "crc_errors": health.crc_errors,
        "retransmits": health.retransmits,
        "reconnects": health.reconnects,
    }


def run(args: argparse.Namespace) -> int:
    """Handler of `railtable bench link`, for arguments already checked."""
    figures = measure(
        args.samples, args.rows, args.cols, args.baud, args.seed, args.throughput_seconds
    )
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:45} {value}")
    return 0
