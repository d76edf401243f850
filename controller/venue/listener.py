"""The venue's MQTT client: every table's state, online flag and events into the `Evening`.

It keeps a session on the broker (a fixed client id, MQTT 5 session expiry), so rows published
while the venue page was down wait for it at the broker; whatever a broker lost anyway (killed,
restarted, out of queue) the venue asks the table for again (`Evening.resend_requests`).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.venue import mqtt
from controller.venue.contract import PUBLISHED, Leaf, parse_topic, table_topic, venue_filter
from controller.venue.evening import Evening
from controller.venue.settings import VenueSettings

log = logging.getLogger("railtable.venue")
SESSION_S = 7 * 24 * 3600  # the broker keeps the venue's rows this long while it is away


class VenueListener:
    """Subscribes to every table at the venue and feeds the evening; asks for resends."""

    def __init__(
        self, settings: VenueSettings, evening: Evening, *, client_id: str | None = None
    ) -> None:
        self.settings = settings
        self.evening = evening
        self.client = mqtt.client(
            settings, client_id or f"railtable-venue-{settings.venue}", settings.username
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.connected = threading.Event()
        self.state = "connecting"
        self.detail = f"connecting to {settings.broker.url}"
        self.malformed = 0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> VenueListener:
        broker = self.settings.broker
        session = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        session.SessionExpiryInterval = SESSION_S
        self.client.connect_async(
            broker.host, broker.port, keepalive=15, clean_start=False, properties=session
        )
        self.client.loop_start()
        self._thread = threading.Thread(target=self._ask, name="railtable-venue-ask", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(3)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: paho.Client, _: Any, __: Any, reason: Any, ___: Any) -> None:
        refused = mqtt.refusal(reason)
        if refused is not None:
            self.state, self.detail = "refused", f"the broker refused the login: {refused}"
            log.error("venue: %s", self.detail)
            return
        self.state, self.detail = "connected", f"connected to {self.settings.broker.url}"
        venue = self.settings.venue
        client.subscribe([(venue_filter(venue, leaf), 1) for leaf in PUBLISHED])
        self.connected.set()

    def _on_disconnect(self, _: Any, __: Any, ___: Any, reason: Any, ____: Any) -> None:
        self.connected.clear()
        if self.state != "refused":
            self.state, self.detail = "connecting", f"broker lost ({reason}): reconnecting"

    def _on_message(self, _: Any, __: Any, message: paho.MQTTMessage) -> None:
        name = parse_topic(message.topic)
        if name is None or name.venue != self.settings.venue:
            return
        try:
            payload = json.loads(message.payload)
            if not isinstance(payload, dict):
                raise ValueError("not an object")
            if name.leaf is Leaf.STATE:
                self.evening.take_state(name.table, payload)
            elif name.leaf is Leaf.ONLINE:
                self.evening.take_online(name.table, payload)
            elif name.leaf is Leaf.EVENTS:
                self.evening.take_event(name.table, payload)
        except (ValueError, KeyError, TypeError) as error:
            self.malformed += 1
            log.warning("venue: dropped a malformed message on %s: %s", message.topic, error)

    def _ask(self) -> None:
        """Once a second: ask tables that are behind to publish again after what we hold."""
        while not self._stopping.wait(1.0):
            if not self.connected.is_set():
                continue
            for table, after in self.evening.resend_requests():
                topic = table_topic(self.settings.venue, table, Leaf.RESEND)
                self.client.publish(topic, json.dumps({"after": after}), qos=1)
                log.info("venue: asked %s to publish again after row %d", table, after)
