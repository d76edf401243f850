"""`railtable bench venue`: many simulated tables (the rules and the log, no cameras) play at once
through one real Mosquitto to a venue in a process of its own; the broker is killed and restarted
mid-evening and one table is unplugged (its connection cut, its reconnects refused) for a while.

It prints the latency from a row's publishing to the venue page's model taking it (p50, p99),
the messages the venue received per second, and, at the end, events lost (rows in a table's log
the venue never took) and events doubled (rows the venue took more than once): both must be 0.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from typing import Any

from controller.venue.broker import Mosquitto
from controller.venue.evening import Evening
from controller.venue.listener import VenueListener
from controller.venue.settings import Broker, VenueSettings
from controller.venue.table import PlayingTable

VENUE = "bench"
GAMES = (("offtherails", 3), ("trickoftherails", 3), ("derailed", 3))


class Plug:
    """A table's network cable: a loopback relay to the broker that can be pulled out (every
    connection cut at once, new ones closed as they come) and put back."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.plugged = True
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True, name="bench-plug").start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.server.accept()
            except OSError:
                return
            if not self.plugged:
                near.close()
                continue
            try:
                far = socket.create_connection(("127.0.0.1", self.target), timeout=2)
            except OSError:
                near.close()
                continue
            far.settimeout(None)
            with self._lock:
                self._open += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    def unplug(self) -> None:
        self.plugged = False
        with self._lock:
            for s in self._open:
                _close(s)
            self._open.clear()

    def plug(self) -> None:
        self.plugged = True

    def close(self) -> None:
        self.unplug()
        self.server.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    _close(source)
    _close(sink)


def _close(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
    s.close()


def _venue(settings: VenueSettings, out: Connection, stop: ProcessEvent) -> None:
    """The venue, in its own process as it would be on its own machine."""
    evening = Evening()
    listener = VenueListener(settings, evening).start()
    messages = [0]
    taken = listener._on_message

    def counted(*args: Any) -> None:
        messages[0] += 1
        taken(*args)

    listener.client.on_message = counted
    out.send("ready")
    stop.wait()
    listener.stop()
    out.send(
        {
            "seen": {name: sorted(line.seen) for name, line in evening.tables.items()},
            "received": evening.received,
            "duplicates": evening.duplicates,
            "latencies_ms": list(evening.latencies_ms),
            "messages": messages[0],
        }
    )


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(tables: int, seconds: float, unplug_s: float, moves_per_s: float) -> dict[str, Any]:
    """The evening; the figures as a JSON object."""
    with tempfile.TemporaryDirectory(prefix="railtable-venue-") as folder:
        return _run(Path(folder), tables, seconds, unplug_s, moves_per_s)


def _run(
    root: Path, count: int, seconds: float, unplug_s: float, moves_per_s: float
) -> dict[str, Any]:
    names = [f"table-{i:02d}" for i in range(1, count + 1)]
    passwords = {name: secrets.token_hex(8) for name in ["venue", *names]}
    broker = Mosquitto(root / "broker", VENUE, passwords).start()
    plug = Plug(broker.port)
    context = multiprocessing.get_context("spawn")
    theirs, ours = context.Pipe()
    stop = context.Event()
    venue_settings = VenueSettings(Broker("127.0.0.1", broker.port), VENUE, "", "venue",
                                   passwords["venue"])  # fmt: skip
    venue = context.Process(target=_venue, args=(venue_settings, theirs, stop), daemon=True)
    venue.start()
    ours.recv()
    made: list[PlayingTable] = []
    moving = True
    try:
        for index, name in enumerate(names):
            port = plug.port if index == 0 else broker.port
            settings = VenueSettings(Broker("127.0.0.1", port), VENUE, name,
                                     password=passwords[name])  # fmt: skip
            game, players = GAMES[index % len(GAMES)]
            table = PlayingTable(root / name, settings, game, players, seed=index * 1000,
                                 keepalive=5)  # fmt: skip
            made.append(table.start())
        started = time.monotonic()
        plan = [
            (0.2 * seconds, "kill"),
            (0.2 * seconds + 3, "restart"),
            (0.35 * seconds, "unplug"),
            (0.35 * seconds + unplug_s, "plug"),
        ]
        moves = [0]

        def play() -> None:
            gap = 1.0 / (moves_per_s * len(made))
            turn = 0
            next_at = time.monotonic()
            while moving:
                made[turn % len(made)].move()
                moves[0] += 1
                turn += 1
                next_at += gap
                time.sleep(max(0.0, next_at - time.monotonic()))

        player = threading.Thread(target=play, daemon=True, name="bench-players")
        player.start()
        end = max(seconds, 0.35 * seconds + unplug_s + 5)
        steps: dict[str, Callable[[], object]] = {
            "kill": broker.kill, "restart": broker.start, "unplug": plug.unplug, "plug": plug.plug
        }  # fmt: skip
        for at, what in sorted(plan):
            time.sleep(max(0.0, started + at - time.monotonic()))
            steps[what]()
        time.sleep(max(0.0, started + end - time.monotonic()))
        moving = False
        player.join(30)
        played_s = time.monotonic() - started
        rows = {t.name: t.rows() for t in made}
        # Let the last rows arrive (a table just plugged back reconnects within its backoff).
        time.sleep(15)
        stop.set()
        result = ours.recv()
        venue.join(10)
    finally:
        moving = False
        for table in made:
            table.stop()
        plug.close()
        broker.stop()
    seen: dict[str, list[int]] = result["seen"]
    lost = sum(len(set(r) - set(seen.get(n, []))) for n, r in rows.items())
    distinct = sum(len(set(ids)) for ids in seen.values())
    latencies: list[float] = result["latencies_ms"]
    return {
        "tables": count,
        "seconds": round(played_s, 1),
        "moves": moves[0],
        "rows_written": sum(len(r) for r in rows.values()),
        "publish_to_page_p50_ms": round(_percentile(latencies, 0.5), 1),
        "publish_to_page_p99_ms": round(_percentile(latencies, 0.99), 1),
        "messages_per_s": round(result["messages"] / played_s, 1),
        "events_lost": lost,
        "events_doubled": result["received"] - distinct,
        "duplicates_dropped": result["duplicates"],
        "broker_killed_at_s": round(0.2 * seconds, 1),
        "table_unplugged_s": unplug_s,
    }
