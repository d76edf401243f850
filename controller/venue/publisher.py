"""The table's publisher: its event log and public state, out to the venue's MQTT broker.

It runs on a thread of its own beside the game's owner and reads the log with its own read-only
connection (`LogReader`), from the row it last had acknowledged by the broker (`cursor`): a
broker away for an hour loses nothing, and a row sent twice is dropped by the venue by its id.
Each row goes out as a spectator sees it (`contract.event_payload`); the table's state (retained)
comes from the owner's snapshot, the one the phone page's spectators read. A last will marks the
table offline if it goes without saying goodbye.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho

from controller.game.owner import Viewers
from controller.game.snapshot import GameSnapshot
from controller.game.store import Event, GameRecord, LogReader
from controller.venue import cursor, mqtt
from controller.venue.contract import (
    Leaf,
    event_payload,
    online_payload,
    table_state,
    table_topic,
)
from controller.venue.settings import VenueSettings

log = logging.getLogger("railtable.venue")
JsonDict = dict[str, Any]
Look = Callable[[], tuple[GameSnapshot, JsonDict]]  # the owner's snapshot and the table's status


@dataclass(frozen=True)
class PublisherHealth:
    """How publishing goes: connected or not, and how far."""

    state: str  # "connecting", "connected", "refused", "stopped"
    detail: str
    published_to: int

    def to_json(self) -> JsonDict:
        return {"state": self.state, "detail": self.detail, "published_to": self.published_to}


class _BrokerLink:
    """How the link to the broker goes, as the table's status tells it: connecting, connected,
    refused or stopped, and why. A broker that closes each login at once is refusing: its ACL
    does not let the table write its last will."""

    def __init__(self, url: str, user: str, online_topic: str) -> None:
        self.url, self.user, self.online_topic = url, user, online_topic
        self.state = "connecting"
        self.detail = f"connecting to {url}"
        self._connected_at = 0.0
        self._quick_drops = 0  # connections the broker closed right after the login
        self._last_refusal_logged = 0.0

    def login_refused(self, refused: str) -> None:
        """The broker refused the table's login (said in the log each time)."""
        self.state, self.detail = "refused", f"the broker refused the login: {refused}"
        log.error("venue broker %s: %s", self.url, self.detail)

    def connected(self) -> None:
        """The broker took the login (connected, unless it keeps closing at once)."""
        self._connected_at = time.monotonic()
        if self._quick_drops < 2:
            self.state, self.detail = "connected", f"connected to {self.url}"

    def dropped(self, was_connected: bool, reason: Any) -> None:
        """The connection closed: lost, or refused when it closes right after each login."""
        if was_connected and time.monotonic() - self._connected_at < 2:
            self._quick_drops += 1
        if self._quick_drops >= 2:
            # Mosquitto closes at once a client whose last will its ACL does not allow
            self.refused(
                f"the broker closes the connection right after the login ({reason}): does its "
                f"ACL let user {self.user!r} write under this table's topic "
                f"{self.online_topic}?"
            )
        elif self.state != "refused":
            self.state, self.detail = "connecting", f"broker lost ({reason}): reconnecting"

    def refused(self, detail: str) -> None:
        """The broker refuses what the table sends: said at most once a minute in the log."""
        self.state, self.detail = "refused", detail
        if time.monotonic() - self._last_refusal_logged > 60:
            self._last_refusal_logged = time.monotonic()
            log.error("venue: %s", self.detail)

    def stopped(self) -> None:
        """The table said goodbye and let go of the broker."""
        self.state = "stopped"

    def delivered(self) -> None:
        """A row reached the broker: the connection holds."""
        self._quick_drops = 0


class VenuePublisher:
    """Publishes one table's public state and events to the venue's broker."""

    def __init__(
        self,
        settings: VenueSettings,
        reader: LogReader,
        folder: Path,
        look: Look,
        *,
        keepalive: int = 15,
        batch: int = 200,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.reader = reader
        self.folder = folder
        self.look = look
        self.keepalive = keepalive
        self.batch = batch
        self.clock = clock
        self.where = f"{settings.broker.url} {settings.venue} {settings.table}"
        self.viewers = Viewers()
        self._records: dict[int, GameRecord | None] = {}
        self._topic = {leaf: table_topic(settings.venue, settings.table, leaf) for leaf in Leaf}
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._fresh_connection = False
        self._acks: dict[int, str | None] = {}  # message id -> the broker's refusal (None: ok)
        self._acked = threading.Condition()
        self._rewind: int | None = None  # the venue asked for rows after this again
        self._link = _BrokerLink(settings.broker.url, settings.user, self._topic[Leaf.ONLINE])
        self._last_state: str | None = None
        self._thread: threading.Thread | None = None
        self.origin, self.row = self._start_row()
        self.prev = self.row
        self.client = mqtt.client(
            settings, f"railtable-{settings.venue}-{settings.table}", settings.user
        )
        self.client.will_set(
            self._topic[Leaf.ONLINE],
            json.dumps(online_payload(False, 0.0)),
            qos=1,
            retain=True,
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message

    # ---- where publishing starts
    def _start_row(self) -> tuple[int, int]:
        """(origin, row): the row publishing to this venue began after, and the row reached.
        A table new to the venue starts at its open game: earlier evenings stay at home."""
        kept = cursor.load(self.folder, self.where)
        if kept is not None:
            return kept
        record = self.reader.open_game()
        first = self.reader.events(record.id, limit=1) if record is not None else []
        origin = first[0].id - 1 if first else self.reader.last_id()
        cursor.save(self.folder, cursor.Cursor(self.where, origin, origin))
        return origin, origin

    # ---- life cycle
    def start(self) -> VenuePublisher:
        broker = self.settings.broker
        self.client.connect_async(broker.host, broker.port, keepalive=self.keepalive)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="railtable-venue", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        """Say goodbye (offline, retained) and let go of the broker."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._connected.is_set():
            info = self.client.publish(
                self._topic[Leaf.ONLINE],
                json.dumps(online_payload(False, self.clock())),
                qos=1,
                retain=True,
            )
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self._link.stopped()

    def wake(self) -> None:
        """Something was written to the log: publish soon (any thread)."""
        self._wake.set()

    def health(self) -> PublisherHealth:
        return PublisherHealth(self._link.state, self._link.detail, self.row)

    # ---- paho's thread
    def _on_connect(self, client: paho.Client, _: Any, __: Any, reason: Any, ___: Any) -> None:
        refused = mqtt.refusal(reason)
        if refused is not None:
            self._link.login_refused(refused)
            return
        self._link.connected()
        client.subscribe(self._topic[Leaf.RESEND], qos=1)
        client.publish(
            self._topic[Leaf.ONLINE],
            json.dumps(online_payload(True, self.clock())),
            qos=1,
            retain=True,
        )
        self._fresh_connection = True
        self._connected.set()
        self._wake.set()

    def _on_disconnect(self, _: Any, __: Any, ___: Any, reason: Any, ____: Any) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        self._link.dropped(was, reason)
        with self._acked:
            self._acked.notify_all()

    def _on_publish(self, _: Any, __: Any, mid: int, reason: Any, ___: Any) -> None:
        with self._acked:
            self._acks[mid] = mqtt.refusal(reason)
            self._acked.notify_all()

    def _on_message(self, _: Any, __: Any, message: paho.MQTTMessage) -> None:
        try:
            after = json.loads(message.payload)["after"]
        except (ValueError, KeyError, TypeError):
            log.warning('venue: a resend request that is not {"after": row}: %r', message.payload)
            return
        if isinstance(after, int) and after >= 0:
            self._rewind = after if self._rewind is None else min(self._rewind, after)
            self._wake.set()

    # ---- the publisher's thread
    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            if self._stopping.is_set() or not self._connected.is_set():
                continue
            try:
                more = self._round()
            except Exception:  # one bad round must not end publishing for the evening
                log.exception("venue: publishing failed")
                more = False
                time.sleep(1)
            if more:
                self._wake.set()

    def _round(self) -> bool:
        """Publish the rows after the cursor (up to a batch), then the state if it changed;
        True if more rows wait."""
        rewind, self._rewind = self._rewind, None
        if rewind is not None and rewind < self.row:
            self.row = self.prev = max(rewind, self.origin)
        fresh, self._fresh_connection = self._fresh_connection, False
        rows = self.reader.events(after=self.row, limit=self.batch)
        if rows and not self._publish_rows(rows):
            return False
        self._publish_state(force=fresh or bool(rows))
        return len(rows) == self.batch

    def _publish_rows(self, rows: list[Event]) -> bool:
        sent: list[tuple[Event, int]] = []
        prev = self.prev
        now = self.clock()
        for event in rows:
            record = self._record(event.game_id)
            payload = event_payload(
                event,
                prev=prev,
                table=self.settings.table,
                game=None if record is None else record.game,
                viewer=self.viewers.of(record),
                players=0 if record is None else int(record.options.get("players", 0)),
                sent=now,
            )
            info = self.client.publish(self._topic[Leaf.EVENTS], json.dumps(payload), qos=1)
            sent.append((event, info.mid))
            prev = event.id
        acks = self._wait_for(mid for _, mid in sent)
        reached = self.row
        for event, mid in sent:
            if mid not in acks:
                break
            refused = acks[mid]
            if refused is not None:
                self._refused(event, refused)
                break
            reached = event.id
            self._link.delivered()
        if reached != self.row:
            self.row = self.prev = reached
            cursor.save(self.folder, cursor.Cursor(self.where, self.origin, reached))
        return reached == rows[-1].id

    def _wait_for(self, mids: Any, timeout: float = 30.0) -> dict[int, str | None]:
        """The broker's answers to `mids`, as many as came before a disconnect or `timeout`."""
        wanted = list(mids)
        deadline = time.monotonic() + timeout
        with self._acked:
            while not all(m in self._acks for m in wanted):
                left = deadline - time.monotonic()
                if left <= 0 or not self._connected.is_set() or self._stopping.is_set():
                    break
                self._acked.wait(left)
            return {m: self._acks.pop(m) for m in wanted if m in self._acks}

    def _refused(self, event: Event, refused: str) -> None:
        self._link.refused(
            f"the broker refused row {event.id} on {self._topic[Leaf.EVENTS]} ({refused}): "
            f"does its ACL let user {self.settings.user!r} write under this table's topic?"
        )
        self._stopping.wait(2)

    def _publish_state(self, force: bool) -> None:
        snapshot, status = self.look()
        state = table_state(
            snapshot, status, venue=self.settings.venue, table=self.settings.table, at=0.0
        )
        state["from"] = self.origin
        state["published_to"] = self.row
        key = json.dumps(state, sort_keys=True)
        if key == self._last_state and not force:
            return
        state["at"] = self.clock()
        self.client.publish(self._topic[Leaf.STATE], json.dumps(state), qos=1, retain=True)
        self._last_state = key

    def _record(self, game_id: int) -> GameRecord | None:
        if game_id not in self._records:
            if len(self._records) > 64:
                self._records.clear()
            self._records[game_id] = self.reader.game(game_id)
        return self._records[game_id]
