"""`railtable board watch URL`: the board's handshake and every change as it happens, for bringing
up a newly soldered sensor board (like pyserial's miniterm, but speaking the board's protocol)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from firmware_bridge.link import BoardLink
from firmware_bridge.session import BoardEvent, LinkStateChanged, OccupancyChanged


def describe(event: BoardEvent, link: BoardLink) -> list[str]:
    """Lines for one event: link states with their reason, handshakes, each square's change."""
    stamp = time.strftime("%H:%M:%S")
    if isinstance(event, LinkStateChanged):
        lines = [
            f"{stamp} link {event.state.value}" + (f": {event.detail}" if event.detail else "")
        ]
        identity = link.identity
        if event.state.value == "connected" and identity is not None:
            major, minor, patch = identity.firmware_version
            lines.append(
                f"{stamp} board {identity.board_id_hex}: protocol {identity.protocol_version}, "
                f"firmware {major}.{minor}.{patch}, {identity.rows}x{identity.cols} squares, "
                f"boot {identity.boot_id}"
            )
        return lines
    if isinstance(event, OccupancyChanged):
        if event.previous is None:
            occupied = sorted(f"r{s.row}c{s.col}" for s in event.occupancy.occupied)
            return [f"{stamp} magnets now: {', '.join(occupied) or 'none'}"]
        return [
            f"{stamp} {'+' if c.occupied else '-'} r{c.square.row}c{c.square.col}"
            for c in event.changes
        ]
    return []


def watch(url: str, duration: float | None, out: Callable[[str], None] = print) -> int:
    """Print until Ctrl-C or `duration` seconds; 0 if the board was met."""
    met = threading.Event()
    link: BoardLink | None = None

    def on_event(event: BoardEvent) -> None:
        assert link is not None
        if isinstance(event, LinkStateChanged) and event.state.value == "connected":
            met.set()
        for line in describe(event, link):
            out(line)

    link = BoardLink(url, on_event=on_event)
    out(f"watching the sensor board at {url} (Ctrl-C stops)")
    link.start()
    try:
        deadline = None if duration is None else time.monotonic() + duration
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.05)
    except KeyboardInterrupt:
        pass
    finally:
        link.stop()
    if not met.is_set():
        out(f"no board answered at {url}: {link.health().last_error or 'no handshake'}")
        return 1
    return 0
