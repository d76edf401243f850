"""The paho-mqtt client as railtable uses it: MQTT 5, the venue's broker, its TLS and login."""

from __future__ import annotations

import ssl

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.venue.settings import VenueSettings


def client(settings: VenueSettings, client_id: str, user: str) -> paho.Client:
    """A client for the venue's broker, logged in as `user` (not yet connected)."""
    made = paho.Client(
        CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5
    )
    if user:
        made.username_pw_set(user, settings.password or None)
    if settings.broker.tls:
        ca = None if settings.ca_file is None else str(settings.ca_file)
        made.tls_set(ca_certs=ca, cert_reqs=ssl.CERT_REQUIRED)
    made.reconnect_delay_set(min_delay=1, max_delay=10)
    made.max_inflight_messages_set(100)
    made.max_queued_messages_set(0)  # no limit: only what the table hands it is queued
    return made


def refusal(reason: object) -> str | None:
    """The broker's reason for refusing (a connect or a publish), or None if it did not."""
    if getattr(reason, "is_failure", False):
        return str(reason)
    return None
