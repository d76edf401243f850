"""What one client may hold or send: live streams per address, and writes a second per seat,
spectator or host (each named, documented in docs/phone-page.md); the connections per address and
in all are capped by the server (`controller.api.server`)."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from controller.api.deps import Who
from controller.game.access import Asker, Role

log = logging.getLogger("railtable")


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
