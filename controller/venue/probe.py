"""Is the venue's broker there, and does it let this table in? (`railtable doctor`)"""

from __future__ import annotations

import threading
from typing import Any

from controller.venue import mqtt
from controller.venue.contract import Leaf, table_topic
from controller.venue.settings import VenueSettings


def probe(settings: VenueSettings, timeout: float = 5.0) -> tuple[bool, str]:
    """Log in as the table and write one message under its own topic (`doctor`, which venue
    pages ignore): (fine, what was found)."""
    done = threading.Event()
    found: dict[str, Any] = {}
    client = mqtt.client(settings, f"railtable-doctor-{settings.venue}-{settings.table}",
                         settings.user)  # fmt: skip
    topic = table_topic(settings.venue, settings.table, Leaf.DOCTOR)

    def connected(c: Any, _: Any, __: Any, reason: Any, ___: Any) -> None:
        found["connect"] = mqtt.refusal(reason)
        if found["connect"] is not None:
            done.set()
        else:
            c.publish(topic, b"", qos=1)

    def published(_: Any, __: Any, ___: Any, reason: Any, ____: Any) -> None:
        found["publish"] = mqtt.refusal(reason)
        done.set()

    client.on_connect = connected
    client.on_publish = published
    url = settings.broker.url
    try:
        client.connect(settings.broker.host, settings.broker.port, keepalive=10)
    except OSError as error:  # refused, unreachable, a TLS certificate not trusted
        return (
            False,
            f"cannot reach {url} ({error}): is the broker running, and this address right?",
        )
    client.loop_start()
    try:
        done.wait(timeout)
    finally:
        client.disconnect()
        client.loop_stop()
    if "connect" not in found:
        return False, f"{url} answered no login within {timeout:.0f} s"
    if found["connect"] is not None:
        return False, (
            f"{url} refused user {settings.user!r} ({found['connect']}): check [venue] username "
            f"and password against the broker's password file"
        )
    refused = found.get("publish", "no answer")
    if refused is not None:
        return False, (
            f"{url} let user {settings.user!r} in but its ACL refuses a write to {topic} "
            f"({refused}): docs/venue.md shows the ACL"
        )
    return True, f"{url}: user {settings.user!r} logged in; table {settings.table!r} at venue " \
        f"{settings.venue!r}"  # fmt: skip
