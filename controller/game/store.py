"""The event log: SQLite (WAL, synchronous=FULL), the source of truth; a game's state is its replay.

Every accepted action and chance outcome, verdict, alert, take-back and instruction is one row with
its time and seat. A row is written, and its transaction committed to disk, before anything acts
on it, so a pulled plug loses nothing that was accepted and never applies a move twice: on start the
open game is rebuilt by replaying its `action` and `undo` rows (`moves`: the one replay).

One writer: `EventLog` is used by the thread that owns the live game, and its connection refuses
any other thread. Readers on other threads (the API's workers) use a `LogReader`: a read-only
connection of their own per thread, which WAL lets read beside the writer.
"""

from __future__ import annotations

import errno
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from rules.core import Action, State
from rules.registry import new_game

SCHEMA_VERSION = 2  # 2: `games.seed` may be NULL (a game drawing from its secret), `secrets`
GAMES = """
CREATE TABLE IF NOT EXISTS {name} (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER,
    started_at REAL NOT NULL,
    ended_at REAL,
    scores TEXT
);
"""
# `games.seed`: the seed a test or a demo asked for (its draws predictable), NULL for a game that
# draws from its secret. `secrets`: each such game's secret, read only to draw, to resume and for
# the host's record of a finished game (`EventLog.secret`): no other query reads that table.
SCHEMA = (
    GAMES.format(name="games")
    + """
CREATE TABLE IF NOT EXISTS secrets (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    secret BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    seat INTEGER,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, id);
"""
)
LOG_MODE = 0o600  # the log holds the games' secrets: read and written by the service's user only


class EventKind(StrEnum):
    """What a row of the event log records."""

    START = "start"  # a game began (its options and seed are in `games`, a secret in `secrets`)
    ACTION = "action"  # an accepted action or chance outcome: replayed
    UNDO = "undo"  # actions taken back: replayed ({"count": n})
    VERDICT = "verdict"  # what the referee said of a settled table
    ALERT = "alert"  # a change that is no legal move
    INSTRUCTION = "instruction"  # what players must do on the table
    INPUT = "input"  # an input change: camera or sensor board lost, back, calibrated
    PLAYER = "player"  # a seat's player named: {"name", "colour"}, or the computer seated
    # {"computer": level, "" taken back}; with no seat, the table's {"hints": "on"/"off"}
    END = "end"  # the game ended (its scores)


REPLAYED = (EventKind.ACTION, EventKind.UNDO)


@dataclass(frozen=True)
class Event:
    """One row of the log."""

    id: int
    game_id: int
    at: float
    seat: int | None
    kind: EventKind
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game_id,
            "at": self.at,
            "seat": self.seat,
            "kind": self.kind.value,
            "data": self.data,
        }


@dataclass(frozen=True)
class GameRecord:
    """A game as the log knows it (never its secret: `EventLog.secret` reads that)."""

    id: int
    game: str
    options: dict[str, Any]
    seed: int | None  # a test's or a demo's seed (predictable draws); None: drawn from a secret
    started_at: float
    ended_at: float | None
    scores: list[float] | None

    @property
    def is_open(self) -> bool:
        return self.ended_at is None

    @property
    def reproducible_seed(self) -> bool:
        """Whether the game draws from a seed someone gave (a test, a demo): predictable."""
        return self.seed is not None

    @property
    def engine_seed(self) -> int:
        """The seed the rules engine is started with (no engine draws from it: every draw is a
        chance outcome in the log); 0 for a game drawing from its secret."""
        return 0 if self.seed is None else self.seed


class StoreError(RuntimeError):
    """The event log cannot be opened or read (a corrupt file, no space, no permission);
    `full`: because the disk (or the log's allowed size) is full."""

    def __init__(self, message: str, full: bool = False) -> None:
        super().__init__(message)
        self.full = full


def _is_full(error: BaseException) -> bool:
    """SQLite's SQLITE_FULL, or the system's ENOSPC (no space left on the device)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code == sqlite3.SQLITE_FULL or getattr(error, "errno", None) == errno.ENOSPC


class _Queries:
    """What both the writer and the readers can ask of the log."""

    def _db(self) -> sqlite3.Connection:
        raise NotImplementedError

    def open_game(self) -> GameRecord | None:
        row = (
            self._db()
            .execute("SELECT * FROM games WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1")
            .fetchone()
        )
        return _record(row) if row else None

    def game(self, game_id: int) -> GameRecord | None:
        row = self._db().execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return _record(row) if row else None

    def last_game(self) -> GameRecord | None:
        """The game started last, open or finished; None on a new table."""
        row = self._db().execute("SELECT * FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return _record(row) if row else None

    def games(self, finished: bool = True) -> list[GameRecord]:
        where = "ended_at IS NOT NULL" if finished else "1"
        rows = self._db().execute(f"SELECT * FROM games WHERE {where} ORDER BY id DESC").fetchall()
        return [_record(r) for r in rows]

    def events(self, game_id: int | None = None, after: int = 0, limit: int = 1000) -> list[Event]:
        if game_id is None:
            rows = (
                self._db()
                .execute("SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?", (after, limit))
                .fetchall()
            )
        else:
            rows = (
                self._db()
                .execute(
                    "SELECT * FROM events WHERE game_id = ? AND id > ? ORDER BY id LIMIT ?",
                    (game_id, after, limit),
                )
                .fetchall()
            )
        return [_event(r) for r in rows]

    def player_rows(self, game_id: int) -> list[Event]:
        """A game's `player` rows: its players' names and colours."""
        rows = (
            self._db()
            .execute(
                "SELECT * FROM events WHERE game_id = ? AND kind = ? ORDER BY id",
                (game_id, EventKind.PLAYER.value),
            )
            .fetchall()
        )
        return [_event(r) for r in rows]

    def last_id(self) -> int:
        row = self._db().execute("SELECT MAX(id) FROM events").fetchone()
        return int(row[0] or 0)

    def secret(self, game_id: int) -> bytes | None:
        """The game's secret (its digital deck draws from it), None for a seeded game. For the
        live game's deck and a finished game's record: never for anyone's view."""
        query = "SELECT secret FROM secrets WHERE game_id = ?"
        row = self._db().execute(query, (game_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def replay(self, record: GameRecord) -> State:
        """The game's state: its start, then every accepted action in the log, in order."""
        return replay(record, self.events(record.id, limit=MAX_ROWS))

    def record_json(self, game_id: int) -> dict[str, Any]:
        """The JSON game record (the host's export): the game, its options, its seed (None for a
        game drawing from its secret), every action; and a finished game's secret (hex), which
        lets `railtable rules replay FILE` check each digital draw too. An open game's record
        never holds its secret: its draws to come would be known."""
        record = self.game(game_id)
        if record is None:
            raise KeyError(f"no game {game_id}")
        out = {
            "game": record.game,
            "options": record.options,
            "seed": record.seed,
            "reproducible_seed": record.reproducible_seed,
            "started_at": record.started_at,
            "ended_at": record.ended_at,
            "scores": record.scores,
            "actions": [m.to_json() for m in moves(self.events(game_id, limit=MAX_ROWS))],
        }
        secret = None if record.is_open else self.secret(game_id)
        if secret is not None:
            out["secret"] = secret.hex()
        return out


MAX_ROWS = 1_000_000


class EventLog(_Queries):
    """The SQLite event log, written by one thread: the one that owns the live game."""

    def __init__(self, path: Path | str, clock: Any = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        self._conn: sqlite3.Connection | None = None
        db = self._open()
        if self.path == ":memory:":
            self._conn = db  # a memory log lives in its one connection
        else:
            db.close()  # the owner's thread opens its own on first use
            _owner_only(Path(self.path))

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            _migrate(db)
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"event log {self.path}: {error}") from None
        return db

    def _db(self) -> sqlite3.Connection:
        """The writer's connection, opened by the first thread that uses it and refused to any
        other (sqlite3 raises ProgrammingError): the log has one writer."""
        if self._conn is None:
            self._conn = sqlite3.connect(self.path, isolation_level=None)
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA foreign_keys=ON")
        return self._conn

    @property
    def db(self) -> sqlite3.Connection:
        return self._db()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreError(
                f"event log {self.path} cannot be written: {error}", _is_full(error)
            ) from None
        try:
            yield db
            db.execute("COMMIT")
        except BaseException as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error | OSError):
                raise StoreError(
                    f"event log {self.path} cannot be written: {error}", _is_full(error)
                ) from None
            raise

    # ---- games
    def start_game(
        self, game: str, options: dict[str, Any], seed: int | None, secret: bytes | None = None
    ) -> tuple[int, Event]:
        """A new open game (any game still open is ended first, without scores), drawing from
        `seed` (a test, a demo) or from `secret` (kept in the same transaction): one of them."""
        if (seed is None) == (secret is None):
            raise ValueError("a game draws from a seed or from a secret: give one of them")
        now = self.clock()
        with self._transaction() as db:
            db.execute("UPDATE games SET ended_at = ? WHERE ended_at IS NULL", (now,))
            cur = db.execute(
                "INSERT INTO games (game, options, seed, started_at) VALUES (?, ?, ?, ?)",
                (game, json.dumps(options, sort_keys=True), seed, now),
            )
            game_id = int(cur.lastrowid or 0)
            if secret is not None:
                db.execute("INSERT INTO secrets (game_id, secret) VALUES (?, ?)", (game_id, secret))
            event = self._insert(db, game_id, None, EventKind.START, {"game": game}, now)
        return game_id, event

    def end_game(
        self,
        game_id: int,
        scores: Sequence[float],
        reason: str,
        by: str = "rules",
        said: Mapping[str, str] | None = None,
    ) -> Event:
        """The game's END row: its scores, why it ended in English, who ended it (`by`, an
        `EndedBy`) and the reason in the other languages (`said`, by language code)."""
        now = self.clock()
        with self._transaction() as db:
            db.execute(
                "UPDATE games SET ended_at = ?, scores = ? WHERE id = ?",
                (now, json.dumps(list(scores)), game_id),
            )
            return self._insert(
                db,
                game_id,
                None,
                EventKind.END,
                {"scores": list(scores), "reason": reason, "by": by, "said": dict(said or {})},
                now,
            )

    # ---- events
    def append(
        self, game_id: int, entries: Sequence[tuple[int | None, EventKind, Any]]
    ) -> list[Event]:
        """Rows for (seat, kind, data) in one transaction: all are on disk, or none."""
        now = self.clock()
        with self._transaction() as db:
            return [
                self._insert(db, game_id, seat, kind, data, now) for seat, kind, data in entries
            ]

    def _insert(
        self,
        db: sqlite3.Connection,
        game_id: int,
        seat: int | None,
        kind: EventKind,
        data: Any,
        at: float,
    ) -> Event:
        cur = db.execute(
            "INSERT INTO events (game_id, at, seat, kind, data) VALUES (?, ?, ?, ?, ?)",
            (game_id, at, seat, kind.value, json.dumps(data, sort_keys=True)),
        )
        return Event(int(cur.lastrowid or 0), game_id, at, seat, kind, data)


def action_entry(seat: int | None, action: Action) -> tuple[int | None, EventKind, Any]:
    return (seat, EventKind.ACTION, {"action": action.to_json()})


def _migrate(db: sqlite3.Connection) -> None:
    """An older log brought to `SCHEMA_VERSION`: `games.seed` was NOT NULL (every game had a
    seed) and may now be NULL. Its games keep their seeds, so they draw and replay as before."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version >= SCHEMA_VERSION:
        return
    seed = [c for c in db.execute("PRAGMA table_info(games)").fetchall() if c[1] == "seed"]
    db.execute("BEGIN IMMEDIATE")
    try:
        if seed and seed[0][3]:  # NOT NULL: the table is made again (SQLite alters no column)
            db.execute(GAMES.format(name="games_v2"))
            db.execute(
                "INSERT INTO games_v2 (id, game, options, seed, started_at, ended_at, scores)"
                " SELECT id, game, options, seed, started_at, ended_at, scores FROM games"
            )
            db.execute("DROP TABLE games")
            db.execute("ALTER TABLE games_v2 RENAME TO games")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _owner_only(path: Path) -> None:
    """The log file (and its WAL beside it) readable by the service's user alone: it holds the
    secrets the open game draws from."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            if name.exists() and name.stat().st_mode & 0o777 != LOG_MODE:
                name.chmod(LOG_MODE)
        except OSError as error:  # not the log's owner: said, and the table plays on
            logging.getLogger("railtable").warning("event log %s: %s", name, error)


def _record(row: Sequence[Any]) -> GameRecord:
    return GameRecord(
        int(row[0]),
        str(row[1]),
        json.loads(row[2]),
        None if row[3] is None else int(row[3]),
        float(row[4]),
        None if row[5] is None else float(row[5]),
        None if row[6] is None else json.loads(row[6]),
    )


def _event(row: Sequence[Any]) -> Event:
    seat = None if row[3] is None else int(row[3])
    return Event(
        int(row[0]), int(row[1]), float(row[2]), seat, EventKind(row[4]), json.loads(row[5])
    )


class LogReader(_Queries):
    """Reads the log from any thread: a read-only connection per thread, beside the writer."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            uri = Path(self.path).resolve().as_uri() + "?mode=ro"
            db = self._local.db = sqlite3.connect(uri, uri=True, isolation_level=None)
        return db


@dataclass(frozen=True)
class Move:
    """An accepted action as the log holds it, and the seat that took it (CHANCE for a draw)."""

    seat: int | None
    action: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": self.action}


def moves(events: Iterable[Event]) -> list[Move]:
    """The accepted actions of a game's rows, take-backs applied: the one reading of the log."""
    out: list[Move] = []
    for event in events:
        if event.kind is EventKind.ACTION:
            out.append(Move(event.seat, event.data["action"]))
        elif event.kind is EventKind.UNDO:
            del out[len(out) - int(event.data["count"]) :]
    return out


def replay(record: GameRecord, events: Iterable[Event]) -> State:
    """A game's state from its record and its rows: the start, then every accepted action."""
    state = new_game(record.game, record.options, record.engine_seed)
    for move in moves(events):
        state.apply(move.action)
    return state
