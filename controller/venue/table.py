"""A table that plays by itself and publishes to the venue: the rules and the event log, no
camera, no sensor board (the venue's tests and `railtable bench venue` run many of these).

It is the table service's publishing path without its inputs: a `LiveGame` owned by a
`GameOwner` thread, bot players acting for their seats, and the `VenuePublisher` reading the
log beside it. A finished game is followed by a new one, as at a club night.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from controller.game.access import Asker
from controller.game.ending import EndedBy
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader
from controller.venue.publisher import VenuePublisher
from controller.venue.settings import VenueSettings
from rules.core import CHANCE
from rules.playout import Policy, choose

LOG = "railtable.sqlite3"


class PlayingTable:
    """One table: its log in `folder`, bots playing `game`, its publisher (not yet started)."""

    def __init__(
        self,
        folder: Path,
        settings: VenueSettings,
        game: str = "offtherails",
        players: int = 3,
        seed: int = 1,
        keepalive: int = 15,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.name = settings.table
        self.game_name, self.players, self.seed = game, players, seed
        self.rng = random.Random(seed)
        self.log = EventLog(folder / LOG)
        self.live = LiveGame(self.log)
        self.owner = GameOwner(self.live, status=lambda: dict(self.status))
        self.status: dict[str, Any] = {
            "camera": {"state": "none"},
            "board": {"state": "none"},
        }
        self.publisher = VenuePublisher(
            settings,
            LogReader(folder / LOG),
            folder,
            lambda: (self.owner.snapshot, self.owner.status),
            keepalive=keepalive,
        )
        publisher = self.publisher
        self.live.listeners.append(lambda _: publisher.wake())
        self.games_finished = 0

    def start(self, publish: bool = True) -> PlayingTable:
        self.owner.start()
        self.owner.call_sync(self._open)
        if publish:
            self.publisher.start()
        return self

    def _open(self, live: LiveGame) -> None:
        if not live.resume():
            self._new_game(live)

    def _new_game(self, live: LiveGame) -> None:
        self.seed += 1
        live.start(self.game_name, {"players": self.players}, self.seed)

    def move(self) -> None:
        """One bot's move (a new game once one is over)."""
        self.owner.call_sync(self._move)

    def _move(self, live: LiveGame) -> None:
        if live.open is None:  # the last game ended (`LiveGame` ends a game that is over)
            self.games_finished += 1
            self._new_game(live)
            return
        state = live.open.state
        seat = state.current_player
        if seat is None or seat == CHANCE:  # a draw the table waits for: begin again
            live.end(EndedBy.BENCH)
            self._new_game(live)
            return
        live.act(Asker.at(seat), choose(state, self.rng, Policy.BOT).to_json())

    def end_game(self) -> None:
        self.owner.call_sync(lambda live: live.end(EndedBy.HOST))

    def stop(self) -> None:
        self.publisher.stop()
        self.owner.call_sync(lambda live: live.log.close())
        self.owner.stop()

    def rows(self) -> list[int]:
        """Every row id of the log (for counting what reached the venue)."""
        reader = LogReader(self.folder / LOG)
        return [e.id for e in reader.events(limit=10_000_000)]
