"""Runs the table service and its HTTP API in one process until stopped: the game's owner on its
thread, the HTTP API on the asyncio event loop. It starts in two phases: the socket answers at once
(`controller.api.starting`: a "starting" status and page), while the heavy half (OpenCV, the
engines, FastAPI, the game restored) loads on a thread; then the full app takes over."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import io
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn

from controller.api.server import server_config
from controller.api.starting import Handover

if TYPE_CHECKING:
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
    import segno

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


START_GATE = "RAILTABLE_START_GATE"
"""Tests only: a file's path; the heavy half of start-up waits until it exists (the starting app
answers meanwhile), so a test sees the starting phase without timing it."""


def gate_from_env(stopping: threading.Event) -> None:
    """Wait while `$RAILTABLE_START_GATE` names a file that is not there yet (tests only), or
    until the service is stopped."""
    gate = os.environ.get(START_GATE)
    while gate and not Path(gate).exists() and not stopping.wait(0.02):
        pass


class Start:
    """The heavy half of start-up on a thread of its own: OpenCV, the engines and FastAPI
    imported, the table built and started (the game restored), its app made. `done` is set when
    it ended, well or not (`error`); the service is kept from the moment it exists, so a stop
    during start-up stops it."""

    def __init__(
        self,
        settings: ServiceSettings,
        address: str | Callable[[], str],
        hold: Callable[[threading.Event], None],
    ) -> None:
        self.settings = settings
        self.address = address
        self.hold = hold
        self.service: TableService | None = None
        self.app: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.stopping = threading.Event()
        self._told: Callable[[], object] = lambda: None
        self._thread = threading.Thread(target=self._run, name="railtable-start", daemon=True)

    def begin(self, told: Callable[[], object]) -> None:
        """Start the thread; `told` is called (on that thread) when it ended."""
        self._told = told
        self._thread.start()

    def _run(self) -> None:
        try:
            self.hold(self.stopping)
            if self.stopping.is_set():
                return
            from controller.api.app import create_app
            from controller.table.service import TableService

            self.service = TableService(self.settings)
            self.service.start()
            self.app = create_app(self.service, self.address)
        except BaseException as error:  # raised again on the event loop
            self.error = error
        finally:
            self.done.set()
            self._told()


async def run_service(
    settings: ServiceSettings,
    sock: socket.socket,
    address: str | PhoneAddress,
    trusted_proxies: Sequence[str] = (),
    hold: Callable[[threading.Event], None] = gate_from_env,
) -> None:
    """Serve on `sock` at once (the starting app), start the table meanwhile, then serve the full
    API and run the table's loop; both end on SIGINT or SIGTERM (during start-up too). `address`
    is the one phones open (in the seats' links): a fixed one, or one worked out again as the
    network changes. X-Forwarded-For is believed only from `trusted_proxies` (`[web]
    trusted_proxies`). `hold` runs before the heavy half (a test's gate; told when stopping). A
    start-up error is raised here once the server stopped."""
    following = None
    if isinstance(address, PhoneAddress):
        following = asyncio.create_task(follow_address(address))
    shown = address.value if isinstance(address, PhoneAddress) else address
    handover = Handover()
    # Phones keep their event streams open: a stop must not wait for them to hang up.
    host, port = sock.getsockname()[:2]
    config = server_config(handover, host, port, trusted_proxies, timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    loop = asyncio.get_running_loop()
    built = asyncio.Event()
    start = Start(settings, address, hold)
    start.begin(lambda: loop.call_soon_threadsafe(built.set))
    try:
        ended = asyncio.create_task(built.wait())
        await asyncio.wait({serving, ended}, return_when=asyncio.FIRST_COMPLETED)
        if start.error is not None or not start.done.is_set():
            server.should_exit = True  # a start-up error, or stopped while starting
            await serving
            if start.error is not None:
                raise start.error
            return
        service, app = start.service, start.app
        assert service is not None
        await _warm(app)  # the first phone waits for nothing FastAPI builds at a first request
        gc.collect()
        gc.freeze()  # what start-up made stays: full collections then take ms, not tens of ms
        service.on_stop = lambda: setattr(server, "should_exit", True)
        handover.ready(app)
        print(
            f"railtable: phones open {shown} (scan the code below); host PIN {service.pin}; "
            f"API: {shown}docs; data in {settings.data_dir}; Ctrl-C stops it",
            flush=True,
        )
        print(terminal_qr(shown), flush=True)
        await serving
    finally:
        if following is not None:
            following.cancel()
        await asyncio.to_thread(_stop, start)


async def _warm(app: Any) -> None:
    from controller.api.http import warm

    await warm(app)


def _stop(start: Start) -> None:
    """The table stopped, once its start ended (a stop during start-up waits for it)."""
    start.stopping.set()
    start.done.wait()
    if start.service is not None:
        start.service.stop()
