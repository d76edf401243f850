"""The HTTP server's protocol: uvicorn's HTTP/1.1 with a deadline for each request's headers.

uvicorn bounds the idle time between requests but not the time a client takes to send one
request's headers: a hundred clients sending a header line every few seconds would hold their
connections for as long as they like (slowloris). Here the headers of each request must be
complete within `HEADERS_WITHIN_S` of its first byte (or of the connection's opening)."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADERS_WITHIN_S = 10.0


class HeadersDeadline(H11Protocol):
    """H11Protocol that closes a connection whose request headers come too slowly."""

    headers_within_s = HEADERS_WITHIN_S
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle and self.cycle is not None:
            self._disarm()  # a request's headers are complete: its cycle began

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

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
