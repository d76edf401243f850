"""Runs the table service and its HTTP API in one process until stopped: the game's owner on its
thread, the HTTP API on the asyncio event loop."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import io
import logging
import socket
import sys
import time
from collections.abc import Callable, Sequence

import segno
import uvicorn

from controller.api.app import create_app
from controller.api.http import server_config, warm
from controller.table.service import ServiceSettings, TableService

log = logging.getLogger("railtable")


def configure_logging() -> None:
    """One event a line on stderr, with its level: journald keeps it as it is."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything else starts: a busy port or an address this
    machine does not have is one line (OSError) before anything is printed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise OSError(f"cannot listen on {host!r}: {error.strerror}") from None
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(where)
        sock.listen(128)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise OSError(
                f"port {port} on {host} is already in use (another railtable serve?): "
                "stop it, or give --port another"
            ) from None
        raise OSError(f"cannot listen on {host} port {port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


def phone_address(host: str, port: int) -> str:
    """The address phones on the table's network open: this machine's address on the network
    its default route leads to (asked of the kernel; nothing is sent), or the one listened on."""
    shown = host
    if host in ("0.0.0.0", "::", ""):
        shown = "localhost"
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 9))  # a UDP "connect" only picks the route
            shown = s.getsockname()[0]
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


ADDRESS_EVERY_S = 15.0  # the phones' address is worked out again this often (one route lookup)


class PhoneAddress:
    """The address phones open, worked out again when it may have changed: a Pi whose Wi-Fi
    comes up after the service would otherwise hand out localhost for ever. Asked for (the
    seats' QR codes), it is looked up anew when the last look is `every_s` old; a change is
    logged once."""

    def __init__(
        self,
        find: Callable[[], str],
        every_s: float = ADDRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.find = find
        self.every_s = every_s
        self.clock = clock
        self.value = find()
        self._looked = clock()

    def __call__(self) -> str:
        """The address now (looked up again if the last look is old)."""
        if self.clock() - self._looked >= self.every_s:
            self.refresh()
        return self.value

    def refresh(self) -> bool:
        """Look the address up now; True if it changed (and said so in the log)."""
        self._looked = self.clock()
        found = self.find()
        if found == self.value:
            return False
        log.info("the phones' address changed: %s -> %s (QR codes and seat links follow)",
                 self.value, found)  # fmt: skip
        self.value = found
        return True


def terminal_qr(address: str) -> str:
    """A QR code of the address, drawn with text for a terminal."""
    picture = io.StringIO()
    segno.make(address, error="m").terminal(out=picture, compact=True, border=2)
    return picture.getvalue()


async def follow_address(address: PhoneAddress) -> None:
    """Look the phones' address up every `address.every_s`; print a new code when it changed
    (the terminal or the journal shows the one to scan)."""
    while True:
        await asyncio.sleep(address.every_s)
        if address.refresh():
            print(f"railtable: phones now open {address.value}", flush=True)
            print(terminal_qr(address.value), flush=True)


async def run_service(
    settings: ServiceSettings,
    sock: socket.socket,
    address: str | PhoneAddress,
    trusted_proxies: Sequence[str] = (),
) -> None:
    """Start the table, serve the API on `sock`, run the table's loop; both end on SIGINT or
    SIGTERM. `address` is the one phones open (in the seats' links): a fixed one, or one worked
    out again as the network changes. X-Forwarded-For is believed only from `trusted_proxies`
    (`[web] trusted_proxies`)."""
    following = None
    if isinstance(address, PhoneAddress):
        following = asyncio.create_task(follow_address(address))
    shown = address.value if isinstance(address, PhoneAddress) else address
    service = TableService(settings)
    await asyncio.to_thread(service.start)
    app = create_app(service, address)
    await warm(app)  # the first phone waits for nothing FastAPI builds at a first request
    gc.collect()
    gc.freeze()  # what start-up made stays: full collections then take ms, not tens of ms
    # Phones keep their event streams open: a stop must not wait for them to hang up.
    host, port = sock.getsockname()[:2]
    config = server_config(app, host, port, trusted_proxies, timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    service.on_stop = lambda: setattr(server, "should_exit", True)
    print(
        f"railtable: phones open {shown} (scan the code below); host PIN {service.pin}; "
        f"API: {shown}docs; data in {settings.data_dir}; Ctrl-C stops it",
        flush=True,
    )
    print(terminal_qr(shown), flush=True)
    try:
        await server.serve(sockets=[sock])
    finally:
        if following is not None:
            following.cancel()
        await asyncio.to_thread(service.stop)
