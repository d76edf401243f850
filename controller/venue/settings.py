"""The `[venue]` section: which broker, as whom, under which venue and table names (validated)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
PLAIN_PORT = 1883
TLS_PORT = 8883


class VenueSettingError(ValueError):
    """A `[venue]` value that cannot be used; the message names the key and the value."""


@dataclass(frozen=True)
class Broker:
    """Where the broker listens: `mqtt://host[:port]` or `mqtts://host[:port]` (TLS)."""

    host: str
    port: int
    tls: bool = False

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class VenueSettings:
    """A table's (or the venue page's) link to the venue's broker."""

    broker: Broker
    venue: str = "venue"
    table: str = ""  # this table's name: also its user name on the broker, unless `username`
    username: str = ""
    password: str = field(default="", repr=False)
    ca_file: Path | None = None

    @property
    def user(self) -> str:
        """Who the table logs in as: `username`, else the table's name (the ACL's `%u`)."""
        return self.username or self.table


def parse_broker(key: str, value: Any) -> Broker:
    """`mqtt://host[:port]` or `mqtts://host[:port]`; anything else names what is wrong."""
    if not isinstance(value, str):
        raise VenueSettingError(f"{key} = {value!r}: must be text in quotes")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise VenueSettingError(f"{key} = {value!r}: the port must be 1 to 65535") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise VenueSettingError(
            f'{key} = {value!r}: must be "mqtt://host[:port]" or "mqtts://host[:port]"'
        )
    if not parts.hostname:
        raise VenueSettingError(f"{key} = {value!r}: names no host")
    if parts.username or parts.password:
        raise VenueSettingError(
            f"{key} = {value!r}: put the user and password in [venue] username and password"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise VenueSettingError(f"{key} = {value!r}: only a host and a port, nothing after them")
    tls = parts.scheme == "mqtts"
    return Broker(parts.hostname, port or (TLS_PORT if tls else PLAIN_PORT), tls)


def check_name(key: str, value: Any) -> str:
    """A venue or table name: one MQTT topic level of letters, digits, `-` and `_`."""
    if not isinstance(value, str) or not NAME.match(value):
        raise VenueSettingError(
            f"{key} = {value!r}: must be 1 to 64 letters, digits, '-' or '_' "
            f"(it is a level of the broker's topics)"
        )
    return value


def check_ca_file(key: str, value: Any) -> Path:
    """A CA certificate file that exists (the broker's TLS certificate is checked against it)."""
    if not isinstance(value, str) or not value:
        raise VenueSettingError(f"{key} = {value!r}: must be the path of a CA certificate file")
    path = Path(value).expanduser()
    if not path.is_file():
        raise VenueSettingError(f"{key} = {value!r}: no such file")
    return path


def venue_settings(values: dict[str, Any], *, need_table: bool) -> VenueSettings | None:
    """The settings from checked values (keys without the section); None: no broker set."""
    broker = values.get("broker")
    if broker is None:
        other = sorted(values)
        if other:
            raise VenueSettingError(f"[venue] {other[0]} is set but [venue] broker is not")
        return None
    table = values.get("table", "")
    if need_table and not table:
        raise VenueSettingError(
            "[venue] table: missing; every table at the venue needs its own name"
        )
    ca_file = values.get("ca_file")
    if ca_file is not None and not broker.tls:
        raise VenueSettingError(
            f"[venue] ca_file is set but broker = {broker.url!r} is not TLS (use mqtts://)"
        )
    return VenueSettings(
        broker=broker,
        venue=values.get("venue", "venue"),
        table=table,
        username=values.get("username", ""),
        password=values.get("password", ""),
        ca_file=ca_file,
    )
