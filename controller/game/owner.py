"""The one owner of the live game: a thread that runs every change as a queued command.

Klipper's rule: the thread that owns the game is the only one that touches it. Phones, seat
buttons, the host, the sensor board's thread and the bots hand it commands (`submit`, or `call`
from the HTTP event loop); between commands it runs the table's tick (inputs, the referee, the
bots). After each round it publishes an immutable `GameSnapshot`, and the new log rows rendered
for every audience, to whoever subscribed: readers never touch the live `State`, so they see only
committed states, and the HTTP event loop never waits on the referee, vision or SQLite.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from controller.game import snapshot
from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.phrasing import Phrasebook, book_for
from controller.game.privacy import audiences, event_for
from controller.game.snapshot import GameSnapshot
from controller.game.store import MAX_ROWS, Event, GameRecord
from controller.words.book import Book
from controller.words.language import Language
from rules.core import State
from rules.registry import GAMES, new_game

log = logging.getLogger("railtable")

T = TypeVar("T")
KEPT_ROWS = 2000  # the open game's latest rows kept rendered: a phone's catch-up reads no log
Command = Callable[[LiveGame], Any]
JsonDict = dict[str, Any]


@dataclass(frozen=True)
class RenderedEvent:
    """A log row as each audience may see it (rendered once, on the owner's thread)."""

    id: int
    game_id: int
    kind: str
    players: int  # of the row's game: who is a seat in `by_audience`
    by_audience: Mapping[Asker, JsonDict]
    encoded: dict[Any, bytes] = field(default_factory=dict, compare=False, repr=False)
    # each audience's stream line (per language), made once for all its phones (api/stream.py)
    book: Phrasebook | None = field(default=None, compare=False, repr=False)  # its game's words

    def for_audience(self, seen: Asker, language: Language = Language.EN) -> JsonDict:
        """The row as audience `seen` may see it, its lines in `language`."""
        row = self.by_audience[seen]
        if language is Language.EN or self.book is None:
            return row
        return self.book.speaking(language).event(dict(row))


@dataclass(frozen=True)
class Published:
    """What one round of the owner changed: the new rows at once, then (a second item) the
    snapshot after them, so a phone hears of a move before the views are built."""

    events: tuple[RenderedEvent, ...]
    snapshot: GameSnapshot | None


class Subscriber:
    """A reader on an asyncio loop (a phone's stream): rounds arrive on its queue, in order.

    A reader that falls `limit` rounds behind is cut off (`overflowed`): its stream ends and the
    phone reconnects after the last row it had, so a slow phone never holds memory for ever."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int = 256) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Published | None] = asyncio.Queue()
        self.limit = limit
        self.overflowed = False

    def _put(self, item: Published | None) -> None:
        if self.overflowed:
            return
        if item is not None and self.queue.qsize() >= self.limit:
            self.overflowed = True
            item = None
        self.queue.put_nowait(item)

    def deliver(self, item: Published | None) -> None:
        """Hand a round to the reader's loop (from the owner's thread)."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._put, item)


def deliver_all(subscribers: list[Subscriber], item: Published) -> None:
    """Hand a round to every reader, one wake-up per event loop (not one per phone: each wakes
    the loop through a pipe, and 200 phones made 400 such writes a round)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Subscriber]] = {}
    for sub in subscribers:
        by_loop.setdefault(sub.loop, []).append(sub)
    for loop, subs in by_loop.items():
        if not loop.is_closed():
            loop.call_soon_threadsafe(_put_all, subs, item)


def _put_all(subscribers: list[Subscriber], item: Published) -> None:
    for sub in subscribers:
        sub._put(item)


class Viewers:
    """A state of each game seen lately, for `action_view` (what a seat sees of an action, the
    same whatever the position): never the live state, never changed."""

    def __init__(self) -> None:
        self._states: dict[int, State | None] = {}
        self._lock = threading.Lock()

    def of(self, record: GameRecord | None) -> State | None:
        if record is None or record.game not in GAMES:
            return None
        with self._lock:
            if record.id not in self._states:
                if len(self._states) > 16:
                    self._states.clear()
                self._states[record.id] = new_game(record.game, record.options, record.engine_seed)
            return self._states[record.id]


class GameOwner:
    """Owns the live game on one thread: commands in, snapshots and rendered rows out."""

    def __init__(
        self,
        game: LiveGame,
        tick: Callable[[], None] | None = None,
        tick_s: float = 0.05,
        status: Callable[[], JsonDict] | None = None,
    ) -> None:
        self.game = game
        self.tick = tick
        self.tick_s = tick_s
        self.status_source = status
        self.viewers = Viewers()
        self._commands: queue.SimpleQueue[tuple[Command, Future[Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._ident: int | None = None
        self._stopping = threading.Event()
        self._pending: list[Event] = []
        self._subscribers: set[Subscriber] = set()
        self._lock = threading.Lock()  # guards the set of subscribers only
        self._seen_changes = -1
        self._version = 0
        self._row = 0
        self._snapshot = GameSnapshot(0, 0)
        self._status: JsonDict = {}
        self._next_tick = 0.0
        self._books: dict[int, Phrasebook] = {}  # each game's words, by game id (the latest few)
        # The open game's rows as published, rendered: every one of game `_kept_game` after row
        # `_kept_after` (rows written before the owner started are not among them).
        self._kept: deque[RenderedEvent] = deque(maxlen=KEPT_ROWS)
        self._kept_game: int | None = None
        self._kept_after = 0
        game.listeners.append(self._pending.append)

    # ---- the owner's thread
    def start(self) -> GameOwner:
        """Run the owner on its own thread until `stop`."""
        self._thread = threading.Thread(target=self.run, name="railtable-game", daemon=True)
        self._thread.start()
        return self

    def run(self) -> None:
        """The owner's loop: commands as they come, the tick when it is due, then publish."""
        self._ident = threading.get_ident()
        while not self._stopping.is_set():
            wait = max(0.0, self._next_tick - time.monotonic()) if self.tick else 1.0
            try:
                item = self._commands.get(timeout=wait)
            except queue.Empty:
                item = None
            if item is not None:
                self._run(*item)
            self.pump()

    def pump(self) -> None:
        """One round on the calling thread: every queued command, the tick if due, publish.
        (`run` calls it; a test without the thread may call it as the owner.)"""
        if self._ident is None:
            self._ident = threading.get_ident()
        if self._version == 0:
            self._row = self._kept_after = self.game.log.last_id()
            opened = self.game.open
            self._kept_game = opened.record.id if opened is not None else None
        while True:
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._run(*item)
        if self.tick is not None and time.monotonic() >= self._next_tick:
            self._next_tick = time.monotonic() + self.tick_s
            try:
                self.tick()
            except Exception:  # one bad tick must not end the table's evening
                log.exception("tick failed")
        self.publish()

    def _run(self, command: Command, future: Future[Any]) -> None:
        """Run one command; what it changed is published before its caller hears back, so a
        phone that reads after its POST was answered sees what the POST did."""
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = command(self.game)
        except BaseException as error:  # handed to the caller, who says what went wrong
            self.publish()
            future.set_exception(error)
            return
        self.publish()
        future.set_result(result)

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the command at hand, then stop; queued commands are refused."""
        self._stopping.set()
        self._commands.put(None)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        while True:
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[1].set_exception(RuntimeError("the table service is stopping"))
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.deliver(None)

    @property
    def on_owner_thread(self) -> bool:
        return self._ident == threading.get_ident()

    @property
    def thread_ident(self) -> int | None:
        """The owner's thread (None before it ran): the only one that touches the live game."""
        return self._ident

    # ---- commands
    def submit(self, command: Callable[[LiveGame], T]) -> Future[T]:
        """Queue a command for the owner; its result (or exception) arrives in the future. On
        the owner's own thread it runs at once."""
        future: Future[T] = Future()
        if self.on_owner_thread:
            self._run(command, future)
            return future
        if self._stopping.is_set():
            future.set_exception(RuntimeError("the table service is stopping"))
            return future
        self._commands.put((command, future))
        return future

    async def call(self, command: Callable[[LiveGame], T]) -> T:
        """Run a command on the owner and await its result, without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(command))

    def call_sync(self, command: Callable[[LiveGame], T], timeout: float = 60.0) -> T:
        """Run a command on the owner and wait for it (from a thread that is not an event loop)."""
        return self.submit(command).result(timeout)

    def wake(self) -> None:
        """Look at the table again now (a board event, an action from a phone)."""
        self._next_tick = 0.0
        if not self.on_owner_thread:
            self._commands.put(None)

    # ---- what readers see
    @property
    def snapshot(self) -> GameSnapshot:
        """The game as of the last commit (one reference, replaced whole: safe from any thread)."""
        return self._snapshot

    @property
    def status(self) -> JsonDict:
        """The table's health as of the last round (inputs, bots, GPIO)."""
        return self._status

    def subscribe(self, subscriber: Subscriber) -> tuple[GameSnapshot, int]:
        """Deliver every round from now on to `subscriber`; returns the snapshot it starts from
        and the last row written before (rows after it will be delivered)."""
        with self._lock:
            self._subscribers.add(subscriber)
            return self._snapshot, self._row

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(subscriber)

    def publish(self) -> None:
        """After a round: a new snapshot if anything changed, rows rendered, readers told."""
        if self.status_source is not None:
            self._status = self.status_source()
        if self.game.changes == self._seen_changes and not self._pending:
            return
        self._seen_changes = self.game.changes
        events, self._pending[:] = list(self._pending), []
        rendered = tuple(self._render(e) for e in events)
        with self._lock:
            if events:
                self._row = max(self._row, max(e.id for e in events))
            for row in rendered:
                self._keep(row)
            subscribers = list(self._subscribers)
        if rendered:
            deliver_all(subscribers, Published(rendered, None))
        self._version += 1
        snap = snapshot.take(self.game, self._version, self._row)
        with self._lock:
            self._snapshot = snap
            subscribers = list(self._subscribers)
        deliver_all(subscribers, Published((), snap))

    def _keep(self, row: RenderedEvent) -> None:
        """Keep a published row (under the lock): a new game's first row starts afresh."""
        if row.game_id != self._kept_game:
            if self._kept_game is not None and row.game_id < self._kept_game:
                return  # a row of an earlier game (a correction of a finished one): not kept
            self._kept.clear()
            self._kept_game, self._kept_after = row.game_id, row.id - 1
        elif len(self._kept) == self._kept.maxlen:
            self._kept_after = self._kept[0].id  # the oldest is dropped
        self._kept.append(row)

    def rows_after(self, game_id: int, after: int, limit: int) -> list[RenderedEvent] | None:
        """Up to `limit` of game `game_id`'s rows after row `after`, as published, if all of
        them are kept (a phone's catch-up, read from memory); None: read them from the log."""
        with self._lock:
            if game_id != self._kept_game or after < self._kept_after:
                return None
            first = len(self._kept)
            while first > 0 and self._kept[first - 1].id > after:
                first -= 1
            return [self._kept[i] for i in range(first, min(len(self._kept), first + limit))]

    def _render(self, event: Event) -> RenderedEvent:
        opened = self.game.open
        record = opened.record if opened is not None else None
        if record is None or record.id != event.game_id:
            record = self.game.log.game(event.game_id)
        players = int(record.options.get("players", 0)) if record is not None else 0
        viewer = self.viewers.of(record)
        name = record.game if record is not None else None
        book = self._book(record)
        forms = {who: book.event(event_for(event, name, viewer, who)) for who in audiences(players)}
        if opened is not None and record is not None and record.id == opened.record.id:
            for seat in self.game.computers:  # the computer's seat sees what everyone does
                forms[Asker.at(seat)] = forms[Asker.spectator()]
        return RenderedEvent(
            event.id, event.game_id, event.kind.value, players, MappingProxyType(forms), book=book
        )

    def _book(self, record: GameRecord | None) -> Phrasebook:
        """The words of a row's game: the open game's as they stand, else as it ended."""
        if record is None:
            return Phrasebook(Book(), ())
        opened = self.game.open
        if opened is not None and record.id == opened.record.id:
            if len(self._books) > 8:
                self._books.clear()
            self._books[record.id] = self.game.book
        elif record.id not in self._books:
            self._books[record.id] = book_for(record, self.game.log.events(record.id, 0, MAX_ROWS))
        return self._books[record.id]

    def last_row(self) -> int:
        return self._row
