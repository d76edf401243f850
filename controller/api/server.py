"""The HTTP server as the table runs it, nothing of FastAPI imported (the starting page is served
with it): uvicorn's HTTP/1.1 with deadlines, forwarded headers believed only from configured
proxies, connections capped per address and in all below the file limit.

uvicorn bounds the idle time between requests (`IDLE_S`) but not the time a client takes to send
one request's headers or its body: a hundred clients sending a byte every few seconds would hold
their connections for as long as they like (slowloris), and a thousand took every descriptor the
process had. Here the headers of each request must be complete within `HEADERS_WITHIN_S` of its
first byte (or of the connection's opening), and its body within `BODY_WITHIN_S` of its headers
(408, then closed); the connections open at once are capped per address and in all below the
file limit."""

from __future__ import annotations

import asyncio
import enum
import ipaddress
import json
import logging
import math
import resource
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("railtable")

FDS_KEPT = 256  # descriptors never given to connections: the event log (SQLite's database, WAL
# and shared memory, for the writer and each reader), the camera, the serial port, the threads'
# pipes, the venue's broker, the listening socket; a quarter of the limit when that is more
MIN_CONNECTIONS = 16  # open connections in all, however low the file limit
CONNECTIONS_PER_ADDRESS = 32  # a phone's browser opens up to 6 at once, and one live stream
NOFILE_ASSUMED = 65536  # the file limit taken when the process has none
LOG_REFUSALS_EVERY_S = 60.0  # connections refused at a cap are logged at most this often


@dataclass(frozen=True)
class ConnectionCaps:
    """Open connections the server holds at once: from one address, and from all together."""

    per_address: int
    total: int


def connection_caps(files: int) -> ConnectionCaps:
    """The caps for a process that may open `files` descriptors: what FDS_KEPT (or a quarter of
    `files`, if more) leaves, so an accept never meets EMFILE while the caps hold."""
    total = max(MIN_CONNECTIONS, files - max(FDS_KEPT, files // 4))
    return ConnectionCaps(per_address=min(CONNECTIONS_PER_ADDRESS, total), total=total)


def caps_now() -> ConnectionCaps:
    """The caps under this process's file limit (`RLIMIT_NOFILE`, soft; `LimitNOFILE=` in the
    systemd unit), read when the server starts."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return connection_caps(NOFILE_ASSUMED if soft == resource.RLIM_INFINITY else soft)


class Admission(enum.Enum):
    """What a new connection is told."""

    ADMITTED = "admitted"
    ADDRESS_FULL = "too many connections from your address: close some first"
    FULL = "the table has too many connections open: try again in a moment"


class ConnectionGuard:
    """Counts the server's open connections, per client address and in all, from the moment each
    is accepted until it closes; a connection over a cap is refused at once. A configured proxy's
    connections (`[web] trusted_proxies`) count in all only: every phone behind it shares its
    address."""

    def __init__(self, caps: ConnectionCaps, trusted_proxies: Iterable[str] = ()) -> None:
        self.caps = caps
        self.proxies = [_network(p) for p in trusted_proxies]
        self.open: dict[str, int] = {}
        self.total = 0
        self.refused = 0
        self._logged = -math.inf

    def admit(self, address: str) -> Admission:
        """Count a new connection from `address`, if the caps allow it."""
        counted = not self._proxy(address)
        if self.total >= self.caps.total:
            return self._refuse(Admission.FULL)
        if counted and self.open.get(address, 0) >= self.caps.per_address:
            return self._refuse(Admission.ADDRESS_FULL, address)
        self.total += 1
        if counted:
            self.open[address] = self.open.get(address, 0) + 1
        return Admission.ADMITTED

    def release(self, address: str) -> None:
        """A counted connection from `address` closed."""
        self.total -= 1
        if address in self.open:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    def _proxy(self, address: str) -> bool:
        if not self.proxies:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.proxies if network is not None)

    def _refuse(self, why: Admission, address: str = "") -> Admission:
        self.refused += 1
        now = time.monotonic()
        if now - self._logged >= LOG_REFUSALS_EVERY_S:
            self._logged = now
            log.warning(
                "connections refused: %s%s (%d open, caps %d an address, %d in all; "
                "%d refused since start)",
                why.value, f" ({address})" if address else "", self.total,
                self.caps.per_address, self.caps.total, self.refused,
            )  # fmt: skip
        return why


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None  # `[web] trusted_proxies` is checked when the configuration is read


HEADERS_WITHIN_S = 10.0
BODY_WITHIN_S = 20.0  # after the headers: a request is whole within 30 s of its first byte
IDLE_S = 5  # an idle keep-alive connection is closed after this many seconds


def server_config(
    app: Any, host: str, port: int, trusted_proxies: Sequence[str] = (), **more: Any
) -> uvicorn.Config:
    """uvicorn's settings for the table: X-Forwarded-For names the client only on a connection
    from one of `trusted_proxies` (none by default: then the header is never read, and a PIN
    guesser cannot invent a new address per guess); header, body and idle deadlines (`http` in
    `more` replaces the protocol that keeps them, for a test with shorter ones); connections
    capped under the process's file limit now (`caps` in `more`: other caps)."""
    protocol = more.pop("http", HeadersDeadline)
    caps: ConnectionCaps = more.pop("caps", None) or caps_now()
    return TableConfig(
        ConnectionGuard(caps, trusted_proxies),
        app,
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies),
        http=protocol,
        timeout_keep_alive=IDLE_S,
        **more,
    )


class TableConfig(uvicorn.Config):
    """uvicorn's settings, with the server's connection guard (one a server)."""

    def __init__(self, guard: ConnectionGuard, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard


class HeadersDeadline(H11Protocol):
    """H11Protocol that closes a connection whose request headers come too slowly, answers 408
    and closes one whose body comes too slowly, and refuses a connection over the caps (503, then
    closed at once: the descriptor is free again)."""

    headers_within_s = HEADERS_WITHIN_S
    body_within_s = BODY_WITHIN_S
    _deadline: asyncio.TimerHandle | None = None
    _body_deadline: asyncio.TimerHandle | None = None
    _counted: str | None = None  # the address this connection counts against

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard = self._guard()
        if guard is not None:
            address = self.client[0] if self.client else "?"
            admitted = guard.admit(address)
            if admitted is not Admission.ADMITTED:
                transport.write(_refusal(503, admitted.value, retry_after_s=1))
                transport.close()
                return
            self._counted = address
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self.cycle is not None:
            self._disarm()  # a request's headers are complete: its cycle began
        self._watch_body()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._watch_body(closed=True)
        guard = self._guard()
        if guard is not None and self._counted is not None:
            guard.release(self._counted)
            self._counted = None
        super().connection_lost(exc)

    def _guard(self) -> ConnectionGuard | None:
        return self.config.guard if isinstance(self.config, TableConfig) else None

    def _watch_body(self, closed: bool = False) -> None:
        """The body's deadline runs from the headers' end while the body is still coming."""
        coming = not closed and self.conn.their_state is h11.SEND_BODY
        if coming and self._body_deadline is None:
            self._body_deadline = self.loop.call_later(self.body_within_s, self._body_too_slow)
        elif not coming and self._body_deadline is not None:
            self._body_deadline.cancel()
            self._body_deadline = None

    def _body_too_slow(self) -> None:
        self._body_deadline = None
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            self.transport.write(_refusal(408, "the request's body came too slowly"))
        if cycle is not None:  # the route waiting for the body hears the client left
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.headers_within_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()


def _refusal(status: int, detail: str, retry_after_s: int = 0) -> bytes:
    """A whole answer written straight to the connection, which then closes."""
    body = json.dumps({"detail": detail}).encode()
    reason = {408: "Request Timeout", 503: "Service Unavailable"}[status]
    retry = f"retry-after: {retry_after_s}\r\n" if retry_after_s else ""
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n{retry}connection: close\r\n\r\n"
    ).encode() + body
