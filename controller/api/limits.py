"""What one client may hold or send: connections per address and in all, live streams per address,
and writes a second per seat, spectator or host (each named, documented in docs/phone-page.md)."""

from __future__ import annotations

import asyncio
import enum
import ipaddress
import logging
import math
import resource
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from controller.api.deps import Who
from controller.game.access import Asker, Role

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


class StreamSlot:
    """One live stream counted against its address, from its acceptance; released once."""

    def __init__(self, counts: dict[str, int], address: str) -> None:
        self.counts = counts
        self.address = address
        self.held = True
        counts[address] = counts.get(address, 0) + 1

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        self.counts[self.address] -= 1
        if not self.counts[self.address]:
            del self.counts[self.address]


def take_stream(counts: dict[str, int], address: str, cap: int) -> StreamSlot | None:
    """A slot for a new live stream from `address`, counted at once (nothing awaited between the
    check and the count, so a burst cannot pass the cap); None: `cap` are open already."""
    if counts.get(address, 0) >= cap:
        return None
    return StreamSlot(counts, address)


@dataclass(frozen=True)
class Rate:
    """A token bucket's rate: `per_s` writes a second kept up, `burst` at once after a pause."""

    per_s: float
    burst: float


SEAT_WRITES = Rate(per_s=4.0, burst=8.0)  # a seat's actions, answers, hints and names together
# (a person taps a few times a second at most; the page sends one request a tap)
SPECTATOR_WRITES = SEAT_WRITES  # per address: a spectator's writes are all refused, but each
# still costs the game's owner a look
HOST_WRITES = Rate(per_s=20.0, burst=40.0)  # the host corrects, undoes and acts for seats in runs
NAME_WRITES = Rate(per_s=1.0, burst=4.0)  # a seat's (or an address's) new names, on top of its
# writes: a name rarely changes, and each one goes to every phone (a rename flood at a seat's 4 a
# second cost `railtable bench load` status p99 0.7 s -> 1.4 s on a loaded machine)
MAX_WRITERS = 1024  # buckets remembered; a full one forgotten changes nothing
REFUSED_AFTER_S = 0.25  # a write over its rate is answered (429) after this, or sooner when its
# next turn comes sooner: a seat renaming itself as fast as answers came sent 600 a second under
# `railtable bench load`, every one a trip through the event loop; now one connection sends 4


class WriteLimits:
    """Token buckets, one per seat, per spectator address and one for the host; memory bounded
    (buckets that have filled again are forgotten first, then the longest unused)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, refused_after_s: float = REFUSED_AFTER_S
    ) -> None:
        self.clock = clock
        self.refused_after_s = refused_after_s
        self.buckets: dict[Hashable, tuple[float, float, Rate]] = {}  # key -> tokens, when, rate

    def take(self, key: Hashable, rate: Rate) -> float:
        """Take one write for `key`: 0.0 if it may go, else the seconds until it may."""
        now = self.clock()
        tokens, when, _ = self.buckets.get(key, (rate.burst, now, rate))
        tokens = min(rate.burst, tokens + max(0.0, now - when) * rate.per_s)
        if tokens >= 1.0:
            self._keep(key, tokens - 1.0, now, rate)
            return 0.0
        self._keep(key, tokens, now, rate)
        return (1.0 - tokens) / rate.per_s

    def _keep(self, key: Hashable, tokens: float, now: float, rate: Rate) -> None:
        """Keep `key`'s bucket, last in line; forget others when too many are kept."""
        self.buckets.pop(key, None)  # re-inserted last: the dict's order is least recently used
        if len(self.buckets) >= MAX_WRITERS:
            filled = [
                k for k, (t, w, r) in self.buckets.items() if t + (now - w) * r.per_s >= r.burst
            ]
            for k in filled:
                del self.buckets[k]
            while len(self.buckets) >= MAX_WRITERS:
                del self.buckets[next(iter(self.buckets))]
        self.buckets[key] = (tokens, now, rate)


def writer_key(who: Asker, address: str) -> tuple[Hashable, Rate]:
    """Whose bucket a write takes from, and its rate."""
    if who.is_host:
        return ("host",), HOST_WRITES
    if who.role is Role.SEAT:
        return ("seat", who.seat), SEAT_WRITES
    return ("address", address), SPECTATOR_WRITES


async def writer(request: Request, who: Who) -> Asker:
    """Who is asking, for a route that writes: beyond its rate a 429 with Retry-After (after
    REFUSED_AFTER_S at most), before the game's owner sees anything (so nothing is logged)."""
    address = request.client.host if request.client else "?"
    await _within(request, *writer_key(who, address))
    return who


async def namer(request: Request, who: Who) -> Asker:
    """Who is asking, to name a player: a writer, and beyond NAME_WRITES (the host aside) a 429
    as for any write."""
    address = request.client.host if request.client else "?"
    key, rate = writer_key(who, address)
    await _within(request, key, rate)
    if not who.is_host:
        await _within(request, ("name", key), NAME_WRITES)
    return who


async def _within(request: Request, key: Hashable, rate: Rate) -> None:
    """Take one write from `key`'s bucket, or refuse it (429 with Retry-After)."""
    limits: WriteLimits = request.app.state.write_limits
    wait = limits.take(key, rate)
    if wait > 0:
        await asyncio.sleep(min(wait, limits.refused_after_s))  # costs the event loop nothing
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            429,
            f"too many changes at once: try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )


Writer = Annotated[Asker, Depends(writer)]
Namer = Annotated[Asker, Depends(namer)]
