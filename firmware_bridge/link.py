"""The link to the sensor board over a pyserial URL: a thread that reconnects by itself."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from concurrent.futures import Future, InvalidStateError
from dataclasses import asdict, dataclass
from queue import Empty, SimpleQueue
from typing import Any, Protocol

from firmware_bridge.framing import DecoderStats
from firmware_bridge.messages import (
    AckStatus,
    Color,
    Identity,
    Occupancy,
    ProtocolVersionError,
    ScanSettings,
    Square,
)
from firmware_bridge.reliable import RetransmitPolicy
from firmware_bridge.session import (
    BoardEvent,
    HostIntent,
    LinkLost,
    LinkState,
    LinkStateChanged,
    Refusal,
    Session,
    SessionCounters,
    Timing,
)

log = logging.getLogger(__name__)

DEFAULT_BAUDRATE = 115200
# How long one read waits for a byte: bounds how late a retransmission or an ask can be. A new
# request does not wait for it: it cuts the read short (SerialPort.cancel_read).
READ_TIMEOUT_S = 0.005


class SerialPort(Protocol):
    """The part of pyserial's Serial the link uses.

    If the port also has pyserial's cancel_read() (a POSIX port does), a request wakes the link
    at once instead of after the read timeout.
    """

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


PortOpener = Callable[[str, int, float], SerialPort]


def open_serial_url(url: str, baudrate: int, timeout: float) -> SerialPort:
    """Open a pyserial URL: a device path, a pty, or any scheme pyserial knows."""
    import serial

    port = serial.serial_for_url(url, baudrate=baudrate, timeout=timeout)
    try:
        # Whatever arrived before the handshake is stale. A device that vanished right after
        # opening makes this raise termios.error, which is no OSError: close the port anyway.
        port.reset_input_buffer()
    except BaseException:
        with contextlib.suppress(Exception):
            port.close()
        raise
    opened: SerialPort = port
    return opened


class LinkStopped(RuntimeError):
    """The link was stopped before the request was carried out."""


class BoardRefused(RuntimeError):
    """The board acknowledged the request with an error status and changed nothing."""

    def __init__(self, what: str, status: AckStatus) -> None:
        super().__init__(f"the board refused {what}: status {status.name}")
        self.status = status


@dataclass
class _Waiting:
    """A request applied to the intent, waiting for the board to be in sync."""

    future: Future[None]
    colors: dict[Square, Color]  # the LEDs it asked for
    scan: bool  # it asked for scan settings


def _outside(square: Square, identity: Identity) -> ValueError:
    return ValueError(
        f"square ({square.row}, {square.col}) is outside the board's "
        f"{identity.rows}x{identity.cols} matrix"
    )


class _End:
    """Put in an events() queue by stop(): the iteration ends."""


_END = _End()
_Subscriber = tuple[asyncio.AbstractEventLoop, "asyncio.Queue[BoardEvent | _End]"]


def _fail(future: Future[None], error: BaseException) -> None:
    with contextlib.suppress(InvalidStateError):  # cancelled meanwhile
        if not future.done():
            future.set_exception(error)


@dataclass(frozen=True)
class Backoff:
    """Delay between attempts to open the port: initial_s, doubling, at most max_s."""

    initial_s: float = 0.05
    max_s: float = 2.0

    def delay(self, failures: int) -> float:
        return float(min(self.max_s, self.initial_s * 2 ** min(failures, 30)))


@dataclass(frozen=True)
class LinkHealth:
    """How the link is doing, for the web page; counts are totals since the link started."""

    state: LinkState
    url: str
    board_id: str | None
    firmware_version: str | None
    frames_received: int
    frames_sent: int
    bytes_received: int
    crc_errors: int
    resyncs: int
    bytes_discarded: int
    frames_lost: int
    frames_malformed: int
    retransmits: int
    commands_failed: int
    reconnects: int
    board_resets: int
    last_seen: float | None
    last_error: str | None
    rto_ms: float
    internal_errors: int
    last_internal_error: str | None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = self.state.value
        return data


@dataclass
class _Totals:
    frames_received: int = 0
    frames_sent: int = 0
    bytes_received: int = 0
    crc_errors: int = 0
    resyncs: int = 0
    bytes_discarded: int = 0
    frames_lost: int = 0
    frames_malformed: int = 0
    retransmits: int = 0
    commands_failed: int = 0
    board_resets: int = 0

    def plus(self, stats: DecoderStats, counters: SessionCounters, retransmits: int) -> _Totals:
        return _Totals(
            frames_received=self.frames_received + stats.frames,
            frames_sent=self.frames_sent + counters.frames_sent,
            bytes_received=self.bytes_received + stats.bytes_received,
            crc_errors=self.crc_errors + stats.crc_errors,
            resyncs=self.resyncs + stats.resyncs,
            bytes_discarded=self.bytes_discarded + stats.bytes_discarded,
            frames_lost=self.frames_lost + counters.frames_lost,
            frames_malformed=self.frames_malformed + counters.malformed,
            retransmits=self.retransmits + retransmits,
            commands_failed=self.commands_failed + counters.commands_failed,
            board_resets=self.board_resets + counters.board_resets,
        )


class BoardLink:
    """Keeps a conversation with the board going on its own thread; start() it, stop() it.

    Events (occupancy changes, link state) go to on_event, on the link's thread, and to every
    async iterator from events(). LEDs and scan settings are intents: the link sends what the
    board lacks, again after every reconnect or board reset, until the board acknowledges.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = DEFAULT_BAUDRATE,
        on_event: Callable[[BoardEvent], None] | None = None,
        timing: Timing | None = None,
        policy: RetransmitPolicy | None = None,
        backoff: Backoff | None = None,
        open_port: PortOpener = open_serial_url,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self._on_event = on_event
        self._timing = timing or Timing()
        self._policy = policy or RetransmitPolicy()
        self._backoff = backoff or Backoff()
        self._open_port = open_port
        self._clock = clock
        self._wall_clock = wall_clock
        self._intent = HostIntent()
        self._requests: SimpleQueue[tuple[Callable[[], None], _Waiting]] = SimpleQueue()
        self._waiting: list[_Waiting] = []
        self._subscribers: list[_Subscriber] = []
        self._lock = threading.Lock()
        # Taken to check _stopping and queue a request as one step, and to set _stopping.
        self._request_lock = threading.Lock()
        self._ended = False  # stop() has run: events() iterators end at once
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._thread: threading.Thread | None = None
        self._session: Session | None = None
        # The open port, for waking the link's read; taken only to set it and to wake it, so
        # the port is never woken after it was closed (its pipe's descriptor may be reused).
        self._port: SerialPort | None = None
        self._port_lock = threading.Lock()
        self._wake_sent = threading.Event()  # a wake-up is under way: one is enough
        self._totals = _Totals()
        self._state = LinkState.DISCONNECTED
        self._identity: Identity | None = None
        self._occupancy: Occupancy | None = None
        self._last_error: str | None = None
        self._connections = 0
        self._last_seen: float | None = None
        self._board_version = 0
        self._internal_errors = 0
        self._last_internal_error: str | None = None

    # --- life cycle ----------------------------------------------------------------------------

    def start(self) -> BoardLink:
        """Start the link's thread; it opens the port and keeps it open."""
        if self._thread is not None:
            raise RuntimeError("link already started")
        name = f"board-link {self.url}"
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the port and end the thread; pending requests fail with LinkStopped.

        A STOPPED state change goes to on_event and every events() iterator, which then ends.
        """
        with self._request_lock:
            self._stopping.set()  # no request is queued after this
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        failed: list[_Waiting] = []
        while True:
            try:
                _, waiting = self._requests.get_nowait()
            except Empty:
                break
            failed.append(waiting)
        with self._lock:
            failed += self._waiting
            self._waiting = []
        for waiting in failed:
            _fail(waiting.future, LinkStopped(f"link to {self.url} stopped"))
        if self._ended:
            return
        self._connected.clear()
        self._set_state(LinkState.STOPPED, f"link to {self.url} stopped")
        with self._lock:
            self._ended = True
            subscribers, self._subscribers = self._subscribers, []
        for loop, queue in subscribers:
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody is waiting
                loop.call_soon_threadsafe(queue.put_nowait, _END)

    def __enter__(self) -> BoardLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what callers use ----------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self._state

    @property
    def identity(self) -> Identity | None:
        """The board met at the last handshake."""
        return self._identity

    @property
    def occupancy(self) -> Occupancy | None:
        """The latest occupancy reported by the board, None before the first snapshot."""
        return self._occupancy

    def wait_connected(self, timeout: float) -> Identity:
        """Block until the handshake and a first snapshot; TimeoutError or ProtocolVersionError."""
        deadline = self._clock() + timeout
        while not self._connected.wait(0.01):
            if self._stopping.is_set():
                raise LinkStopped(f"link to {self.url} stopped")
            if self._state is LinkState.INCOMPATIBLE:
                raise ProtocolVersionError(self._board_version)
            if self._clock() > deadline:
                raise TimeoutError(
                    f"no handshake with the board at {self.url} within {timeout} s "
                    f"(last error: {self._last_error})"
                )
        assert self._identity is not None
        return self._identity

    def set_leds(self, colors: Mapping[Square, Color]) -> Future[None]:
        """Ask for these LED colours; the future completes once the board has acknowledged.

        ValueError names a square outside the matrix of the board met at the last handshake;
        before any handshake, the future fails with it instead. The future fails with
        BoardRefused when the board refuses the colours.
        """
        wanted = dict(colors)
        identity = self._identity
        if identity is not None:
            for square in sorted(wanted):
                if not (square.row < identity.rows and square.col < identity.cols):
                    raise _outside(square, identity)
        return self._request(lambda: self._intent.leds.update(wanted), colors=wanted)

    def set_scan(self, settings: ScanSettings) -> Future[None]:
        """Ask for these scan settings; the future completes once the board has acknowledged.

        The future fails with BoardRefused when the board refuses them.
        """
        return self._request(lambda: setattr(self._intent, "scan", settings), scan=True)

    def health(self) -> LinkHealth:
        """A snapshot of the link's health and counters."""
        with self._lock:
            totals = self._totals
            session = self._session
            if session is not None:
                totals = totals.plus(
                    session.decoder.stats, session.counters, session.sender.retransmits
                )
            rto = session.sender.rto.rto_s if session is not None else self._policy.initial_rto_s
        identity = self._identity
        return LinkHealth(
            state=self._state,
            url=self.url,
            board_id=identity.board_id_hex if identity else None,
            firmware_version=".".join(map(str, identity.firmware_version)) if identity else None,
            frames_received=totals.frames_received,
            frames_sent=totals.frames_sent,
            bytes_received=totals.bytes_received,
            crc_errors=totals.crc_errors,
            resyncs=totals.resyncs,
            bytes_discarded=totals.bytes_discarded,
            frames_lost=totals.frames_lost,
            frames_malformed=totals.frames_malformed,
            retransmits=totals.retransmits,
            commands_failed=totals.commands_failed,
            reconnects=max(0, self._connections - 1),
            board_resets=totals.board_resets,
            last_seen=self._last_seen,
            last_error=self._last_error,
            rto_ms=rto * 1000,
            internal_errors=self._internal_errors,
            last_internal_error=self._last_internal_error,
        )

    async def events(self) -> AsyncGenerator[BoardEvent, None]:
        """Events from the first iteration on, delivered on the iterating event loop.

        The iteration ends after the STOPPED state change once stop() has run.
        """
        queue: asyncio.Queue[BoardEvent | _End] = asyncio.Queue()
        subscriber = (asyncio.get_running_loop(), queue)
        with self._lock:
            if self._ended:
                return
            self._subscribers.append(subscriber)
        try:
            while True:
                event = await queue.get()
                if isinstance(event, _End):
                    return
                yield event
        finally:
            with self._lock:
                if subscriber in self._subscribers:  # gone already if its loop was closed
                    self._subscribers.remove(subscriber)

    # --- the link's thread ---------------------------------------------------------------------

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                failures = self._connect_once(failures)
            except Exception as error:
                # Nothing but stop() may end this thread: a bug anywhere in one attempt must not
                # leave the table without a board for the rest of the night.
                self._internal_error(error)
            if self._stopping.is_set():
                break
            self._stopping.wait(self._backoff.delay(failures))
            failures += 1

    def _connect_once(self, failures: int) -> int:
        """Open the port and converse until the link is lost; the failure count for backoff."""
        try:
            port = self._open_port(self.url, self.baudrate, READ_TIMEOUT_S)
        except Exception as error:  # SerialException is an OSError; termios.error is not
            self._last_error = f"cannot open {self.url}: {error}"
            return failures
        try:
            now = self._clock()
            session = Session(self._intent, self._occupancy, now, self._timing, self._policy)
        except BaseException:
            self._close(port)
            raise
        with self._lock:
            self._session = session
        with self._port_lock:
            self._port = port
        try:
            if self._state is not LinkState.INCOMPATIBLE:  # stays so until a handshake succeeds
                self._set_state(LinkState.CONNECTING, f"port {self.url} open, sending HELLO")
            self._converse(port, session)
        except LinkLost as error:
            self._last_error = str(error)
        except ProtocolVersionError as error:
            self._last_error = str(error)
            self._board_version = error.board_version
            self._set_state(LinkState.INCOMPATIBLE, str(error))
            failures = 30  # someone must flash matching firmware: retry only slowly
        except OSError as error:
            self._last_error = f"port {self.url} lost: {error}"
        except Exception as error:
            self._internal_error(error)
        finally:
            with self._port_lock:
                self._port = None
            self._close(port)
            with self._lock:
                self._totals = self._totals.plus(
                    session.decoder.stats, session.counters, session.sender.retransmits
                )
                self._session = None
            self._connected.clear()
        if session.identity is not None:
            failures = 0
        if not self._stopping.is_set() and self._state is not LinkState.INCOMPATIBLE:
            self._set_state(LinkState.DISCONNECTED, self._last_error or "disconnected")
        return failures

    def _internal_error(self, error: Exception) -> None:
        """A bug, not a fault of the board or the cable: count it, say it, reopen the port."""
        log.error("board link to %s failed; reopening", self.url, exc_info=error)
        self._internal_errors += 1
        self._last_internal_error = f"{error!r}"
        self._last_error = f"internal error: {error!r}"

    def _converse(self, port: SerialPort, session: Session) -> None:
        while not self._stopping.is_set():
            self._wake_sent.clear()  # requests put from here on wake the read below
            self._apply_requests()
            session.poll(self._clock())
            out = session.take_output()
            if out:
                port.write(out)
            data = port.read(max(1, port.in_waiting))
            if data:
                heard_before = session.last_frame_at
                session.receive(data, self._clock())
                if session.last_frame_at != heard_before:
                    self._last_seen = self._wall_clock()
            self._deliver(session)
            self._fail_refused(session)
            if self._waiting and session.state is LinkState.CONNECTED:
                self._resolve_waiting(session)

    def _deliver(self, session: Session) -> None:
        for event in session.take_events():
            if isinstance(event, LinkStateChanged):
                self._state = event.state
                if event.state is LinkState.CONNECTED:
                    self._identity = session.identity
            self._occupancy = session.occupancy
            self._emit(event)
        if session.has_snapshot and not self._connected.is_set():
            self._on_connected(session)

    def _on_connected(self, session: Session) -> None:
        # Handshake done and a first snapshot in: callers may rely on occupancy from here on.
        self._connections += 1
        self._identity = session.identity
        self._last_error = None
        self._connected.set()

    def _emit(self, event: BoardEvent) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                log.exception("board event callback failed on %s", event)
        with self._lock:
            subscribers = list(self._subscribers)
        dead = []
        for subscriber in subscribers:
            loop, queue = subscriber
            try:
                loop.call_soon_threadsafe(queue.put_nowait, event)
            except RuntimeError:  # its loop was closed without ending the iterator
                dead.append(subscriber)
        if dead:
            with self._lock:
                self._subscribers = [s for s in self._subscribers if s not in dead]

    def _set_state(self, state: LinkState, detail: str) -> None:
        if state is not self._state:
            self._state = state
            self._emit(LinkStateChanged(state, detail))

    def _fail_refused(self, session: Session) -> None:
        """Fail the requests the board refused, or that name squares it does not have."""
        refusals = session.take_refusals()
        identity = session.identity
        if not self._waiting or (identity is None and not refusals):
            return
        failed: list[tuple[Future[None], Exception]] = []
        with self._lock:
            keep = []
            for waiting in self._waiting:
                error = self._refusal_of(waiting, refusals, identity)
                if error is None:
                    keep.append(waiting)
                else:
                    failed.append((waiting.future, error))
            self._waiting = keep
        for future, error in failed:
            _fail(future, error)

    def _refusal_of(
        self, waiting: _Waiting, refusals: list[Refusal], identity: Identity | None
    ) -> Exception | None:
        if identity is not None:
            outside = [
                square
                for square in sorted(waiting.colors)
                if not (square.row < identity.rows and square.col < identity.cols)
            ]
            if outside:
                for square in outside:  # the board cannot show them: stop asking
                    self._intent.leds.pop(square, None)
                return _outside(outside[0], identity)
        for refusal in refusals:
            # Only the colours this request asked for: a refused frame may carry other ones.
            refused = {
                square
                for square, color in waiting.colors.items()
                if refusal.colors.get(square) == color
            }
            if refused:
                first = min(refused)
                what = f"the LED colour of square ({first.row}, {first.col})"
                if len(refused) > 1:
                    what = (
                        f"the LED colours of {len(refused)} squares from ({first.row}, {first.col})"
                    )
                return BoardRefused(what, refusal.status)
            if waiting.scan and isinstance(refusal.command, ScanSettings):
                return BoardRefused(f"scan settings {refusal.command}", refusal.status)
        return None

    def _request(
        self,
        change: Callable[[], None],
        *,
        colors: Mapping[Square, Color] | None = None,
        scan: bool = False,
    ) -> Future[None]:
        future: Future[None] = Future()
        with self._request_lock:
            # stop() sets _stopping under this lock and drains the queue after the thread
            # ended: a request is either refused here or queued before stop() drains.
            if self._stopping.is_set():
                future.set_exception(LinkStopped(f"link to {self.url} stopped"))
                return future
            self._requests.put((change, _Waiting(future, dict(colors or {}), scan)))
        self._wake()
        return future

    def _wake(self) -> None:
        """Cut the link's read short, so that a request goes out now, not after the timeout."""
        if self._wake_sent.is_set():
            return
        self._wake_sent.set()
        with self._port_lock:
            cancel = getattr(self._port, "cancel_read", None)
            if cancel is not None:
                with contextlib.suppress(Exception):  # a port that cannot: the timeout will do
                    cancel()

    def _apply_requests(self) -> None:
        while True:
            try:
                change, waiting = self._requests.get_nowait()
            except Empty:
                return
            with self._lock:
                change()
                self._waiting.append(waiting)

    def _resolve_waiting(self, session: Session) -> None:
        """Complete each request whose squares (and scan settings) the board has acknowledged."""
        leds, scan = session.unacknowledged()
        with self._lock:
            done: list[_Waiting] = []
            keep: list[_Waiting] = []
            for waiting in self._waiting:
                pending = (waiting.scan and scan) or not leds.isdisjoint(waiting.colors)
                (keep if pending else done).append(waiting)
            if not done:
                return
            self._waiting = keep
        for entry in done:
            with contextlib.suppress(InvalidStateError):  # cancelled meanwhile
                if not entry.future.done():
                    entry.future.set_result(None)

    @staticmethod
    def _close(port: SerialPort) -> None:
        with contextlib.suppress(Exception):  # termios.error is no OSError
            port.close()
