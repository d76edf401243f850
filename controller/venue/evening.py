"""The evening at the venue: every table's state and events as published, finished games, the
standings and the tournament, kept in a SQLite file so a venue restart forgets nothing.

Events are taken once by (table, id): a row the broker or a table's resend brings again is
counted and dropped. Each event names the row published before it (`prev`); a table whose
chain has a hole, or whose retained state says it published further than the venue holds, is
`behind`, and the venue asks it to publish again after the last row it holds.

Writes (the MQTT client's thread with `take_*`, the organiser's routes on a worker thread) go
through one lock; the web page reads `view()`, a JSON value rebuilt only when something changed.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.venue import tournament as tmt
from controller.venue.contract import VERSION, event_words, help_reasons
from controller.venue.standings import Finished, games_csv, standings, standings_csv
from controller.words.book import game_title
from controller.words.language import Language, Tongue, tongue
from rules.registry import GAMES

JsonDict = dict[str, Any]
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (tbl TEXT NOT NULL, id INTEGER NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (tbl, id));
CREATE TABLE IF NOT EXISTS tables (tbl TEXT PRIMARY KEY, state TEXT, online TEXT);
CREATE TABLE IF NOT EXISTS tournament (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL);
"""
RECENT = 6  # events shown per table


def retitled(item: JsonDict, language: Language, key: str = "game") -> JsonDict:
    """`item` with its game's title in `language` (the game named by `item[key]`): a title we
    gave a game is said in the reader's language, a published one stays as printed."""
    info = GAMES.get(str(item.get(key)))
    if info is None or language is Language.EN:
        return item
    return {**item, "title": game_title(info, language)}


def _title(game: str | None) -> str:
    info = GAMES.get(game or "")
    return info.title if info is not None else str(game)


@dataclass
class TableLine:
    """What the venue knows of one table."""

    name: str
    state: JsonDict | None = None
    online: bool | None = None
    upto: int = 0  # every row of the table's chain up to here is held
    target: int = 0  # the furthest row the table said it published
    seen: set[int] = field(default_factory=set)
    next_of: dict[int, int] = field(default_factory=dict)  # prev -> id, beyond `upto`
    recent: deque[JsonDict] = field(default_factory=lambda: deque(maxlen=RECENT))
    starts: dict[int, float] = field(default_factory=dict)  # game id -> when it began
    behind_since: float | None = None
    asked_at: float = 0.0

    def take(self, payload: JsonDict) -> bool:
        """An event; False if it was held already."""
        row = int(payload["id"])
        if row in self.seen:
            return False
        self.seen.add(row)
        self.next_of[int(payload.get("prev", 0))] = row
        self.target = max(self.target, row)
        self._advance()
        return True

    def origin(self, origin: int) -> None:
        if self.upto < origin:
            self.upto = origin
            self._advance()

    def _advance(self) -> None:
        while self.upto in self.next_of:
            self.upto = self.next_of.pop(self.upto)

    @property
    def behind(self) -> bool:
        return self.target > self.upto

    def to_json(self, now: float, say: Tongue) -> JsonDict:
        """The table as the venue page draws it, its words in `say`'s language."""
        state = self.state or {}
        game = state.get("game") or {}
        health = state.get("health")
        help_list = (  # said again from the table's health and alert: in the page's language
            help_reasons(health, state.get("alert"), say, game.get("name"))
            if isinstance(health, dict)
            else list(state.get("help", []))
        )
        if self.online is False:
            help_list.insert(0, say.tr("the table is offline"))
        return {
            "table": self.name,
            "online": self.online,
            "game": retitled(game, say.language, "name") if game else state.get("game"),
            "health": state.get("health"),
            "alert": state.get("alert"),
            "help": help_list,
            "needs_help": bool(help_list),
            "updated_at": state.get("at"),
            "recent": [
                {
                    "id": r["id"],
                    "at": r["at"],
                    "kind": r["kind"],
                    "text": event_words(r["event"], say),
                }
                for r in self.recent
            ],
            "behind": self.behind,
        }


class Evening:
    """Every table at the venue, the games finished tonight, standings and the tournament."""

    def __init__(self, path: Path | str = ":memory:", clock: Callable[[], float] = time.time):
        self.path = str(path)
        self.clock = clock
        self._lock = threading.Lock()
        self.tables: dict[str, TableLine] = {}
        self.finished: list[Finished] = []
        self.tournament: tmt.Tournament | None = None
        self.duplicates = 0  # rows that came again and were dropped
        self.received = 0  # rows taken
        self.latencies_ms: deque[float] = deque(maxlen=200_000)  # sent -> taken, per row
        self.version = 0
        self._views: dict[Language, tuple[int, JsonDict]] = {}
        self.on_change: list[Callable[[], None]] = []
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self._load()

    # ---- kept across restarts
    def _load(self) -> None:
        for name, state, online in self.db.execute("SELECT tbl, state, online FROM tables"):
            line = self._table(name)
            line.state = json.loads(state) if state else None
            line.online = None if online is None else json.loads(online).get("online")
            if line.state is not None:
                line.origin(int(line.state.get("from", 0)))
                line.target = max(line.target, int(line.state.get("published_to", 0)))
        row = self.db.execute("SELECT data FROM tournament WHERE id = 1").fetchone()
        if row is not None:
            self.tournament = tmt.from_json(json.loads(row[0]))
        for (payload,) in self.db.execute("SELECT payload FROM events ORDER BY tbl, id"):
            self._take_event(json.loads(payload), keep=False, loading=True)

    # ---- what the broker brings (the MQTT client's thread)
    def take_state(self, table: str, state: JsonDict) -> None:
        with self._lock:
            line = self._table(table)
            line.state = state
            line.origin(int(state.get("from", 0)))
            line.target = max(line.target, int(state.get("published_to", 0)))
            self.db.execute(
                "INSERT INTO tables (tbl, state) VALUES (?, ?) "
                "ON CONFLICT(tbl) DO UPDATE SET state = excluded.state",
                (table, json.dumps(state)),
            )
            self._changed()

    def take_online(self, table: str, online: JsonDict) -> None:
        with self._lock:
            line = self._table(table)
            line.online = bool(online.get("online"))
            self.db.execute(
                "INSERT INTO tables (tbl, online) VALUES (?, ?) "
                "ON CONFLICT(tbl) DO UPDATE SET online = excluded.online",
                (table, json.dumps(online)),
            )
            self._changed()

    def take_event(self, table: str, payload: JsonDict) -> bool:
        """A published row; False if it was held already (dropped)."""
        payload = {**payload, "table": table}
        with self._lock:
            taken = self._take_event(payload, keep=True, loading=False)
            if taken:
                self._changed()
            return taken

    def _take_event(self, payload: JsonDict, *, keep: bool, loading: bool) -> bool:
        table = str(payload["table"])
        line = self._table(table)
        if not line.take(payload):
            self.duplicates += not loading
            return False
        if keep:
            self.db.execute(
                "INSERT OR IGNORE INTO events (tbl, id, payload) VALUES (?, ?, ?)",
                (table, int(payload["id"]), json.dumps(payload)),
            )
        if not loading:
            self.received += 1
            sent = payload.get("sent")
            if isinstance(sent, int | float):
                self.latencies_ms.append(max(0.0, (self.clock() - sent) * 1000))
        line.recent.appendleft(  # said in each page's language when the view is made
            {"id": payload["id"], "at": payload.get("at"), "kind": payload.get("kind"),
             "event": payload}
        )  # fmt: skip
        kind = payload.get("kind")
        game_id = int(payload.get("game_id", 0))
        if kind == "start":
            line.starts[game_id] = float(payload.get("at", 0))
        elif kind == "end":
            self._finished(table, line, payload, game_id)
        return True

    def _finished(self, table: str, line: TableLine, payload: JsonDict, game_id: int) -> None:
        data = payload.get("data") or {}
        scores = tuple(float(s) for s in data.get("scores", []))
        if not scores:
            return
        names = [p.get("name") for p in payload.get("players", [])]
        players = tuple(
            str(names[s]) if s < len(names) and names[s] else f"{table} seat {s + 1}"
            for s in range(len(scores))
        )
        game = str(payload.get("game"))
        finished = Finished(
            table, game_id, game, _title(game), float(payload.get("at", 0)), players, scores
        )
        if self.tournament is not None:
            self.tournament, finished = self.tournament.record(finished, line.starts.get(game_id))
            self._keep_tournament()
        self.finished.append(finished)

    def _table(self, name: str) -> TableLine:
        line = self.tables.get(name)
        if line is None:
            line = self.tables[name] = TableLine(name)
        return line

    def _changed(self) -> None:
        self.version += 1
        for call in self.on_change:
            call()

    # ---- asking tables to publish again
    def resend_requests(self, wait_s: float = 2.0, again_s: float = 5.0) -> list[tuple[str, int]]:
        """(table, after) for tables behind for `wait_s` and not asked in `again_s`: the rows
        may be on their way (a state may overtake its events); a table offline cannot answer."""
        now = self.clock()
        asks = []
        with self._lock:
            for line in self.tables.values():
                if not line.behind or line.online is False:
                    line.behind_since = None
                    continue
                if line.behind_since is None:
                    line.behind_since = now
                if now - line.behind_since >= wait_s and now - line.asked_at >= again_s:
                    line.asked_at = now
                    asks.append((line.name, line.upto))
        return asks

    # ---- the tournament (the organiser, from the page)
    def start_tournament(self, name: str, players: list[str]) -> None:
        with self._lock:
            self.tournament = tmt.Tournament(name.strip() or "tournament",
                                             tmt.check_players(players))  # fmt: skip
            self._keep_tournament()
            self._changed()

    def next_round(self, game: str, tables: list[str] | None = None) -> tmt.Round:
        with self._lock:
            if self.tournament is None:
                raise tmt.TournamentError("no tournament: start one with its players first")
            info = GAMES.get(game)
            if info is None:
                known = ", ".join(sorted(GAMES))
                raise tmt.TournamentError(f"unknown game {game!r}; known: {known}")
            chosen = tables or sorted(
                n for n, line in self.tables.items() if line.online is not False
            )
            unknown = [t for t in chosen if t not in self.tables]
            if unknown:
                raise tmt.TournamentError(f"no such table at the venue: {', '.join(unknown)}")
            self.tournament = self.tournament.seat_round(
                game, info.title, info.min_players, info.max_players, chosen, self.clock()
            )
            self._keep_tournament()
            self._changed()
            current = self.tournament.current
            assert current is not None
            return current

    def end_tournament(self) -> None:
        with self._lock:
            self.tournament = None
            self.db.execute("DELETE FROM tournament")
            self._changed()

    def _keep_tournament(self) -> None:
        if self.tournament is None:
            return
        self.db.execute(
            "INSERT OR REPLACE INTO tournament (id, data) VALUES (1, ?)",
            (json.dumps(self.tournament.to_json()),),
        )

    # ---- what the page reads (any thread)
    def view(self, language: Language = Language.EN) -> JsonDict:
        """The whole evening as the page draws it, in `language` (rebuilt only after a change)."""
        with self._lock:
            cached = self._views.get(language)
            if cached is not None and cached[0] == self.version:
                return cached[1]
            now, say = self.clock(), tongue(language)
            lines = [self.tables[n].to_json(now, say) for n in sorted(self.tables, key=_natural)]
            ranked = standings(self.finished)
            tournament = None if self.tournament is None else self.tournament.to_json()
            if tournament is not None:
                tournament["rounds"] = [retitled(r, language) for r in tournament["rounds"]]
            view = {
                "v": VERSION,
                "version": self.version,
                "tables": lines,
                "needing_help": [t["table"] for t in lines if t["needs_help"]],
                "finished": [
                    retitled(g.to_json(), language) for g in reversed(self.finished[-50:])
                ],
                "standings": {
                    **ranked,
                    "games": [retitled(g, language) for g in ranked["games"]],
                },
                "tournament": tournament,
                "games": [
                    {
                        "name": i.name,
                        "title": game_title(i, language),
                        "min_players": i.min_players,
                        "max_players": i.max_players,
                    }
                    for i in GAMES.values()
                ],
            }
            self._views[language] = (self.version, view)
            return view

    def games_csv(self, language: Language = Language.EN) -> str:
        with self._lock:
            return games_csv(list(self.finished), tongue(language))

    def standings_csv(self, language: Language = Language.EN) -> str:
        with self._lock:
            return standings_csv(list(self.finished), tongue(language))

    def close(self) -> None:
        self.db.close()


def _natural(name: str) -> tuple[Any, ...]:
    """table-2 before table-10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
