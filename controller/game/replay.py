"""A finished game shown move by move: its table after any players' move, as all may see it.

Built on the log's one reading of a game (`store.moves`): the same actions a restart replays."""

from __future__ import annotations

import threading
from typing import Any

from controller.game.phrasing import book_for
from controller.game.snapshot import table_json
from controller.game.store import Event, GameRecord, moves
from controller.referee.judge import Referee
from controller.referee.tables import Pieces, changed_locations
from controller.words.language import Language
from rules.core import CHANCE
from rules.registry import game_named, new_game


class StepBeyond(LookupError):
    """A step past the game's last players' move."""


class Replays:
    """Steps of finished games; one referee per game, kept (it only describes pieces here)."""

    def __init__(self) -> None:
        self._referees: dict[str, Referee] = {}
        self._lock = threading.Lock()

    def referee(self, game: str) -> Referee:
        with self._lock:
            if game not in self._referees:
                self._referees[game] = Referee(game_named(game))
            return self._referees[game]

    def step(
        self,
        record: GameRecord,
        events: list[Event],
        step: int,
        language: Language = Language.EN,
    ) -> dict[str, Any]:
        """The table after the `step`th players' move (0: the start), in words for everyone,
        said in `language`."""
        info = game_named(record.game)
        played = moves(events)
        steps = sum(1 for m in played if m.seat is not None and m.seat != CHANCE)
        if step > steps:
            raise StepBeyond(f"step {step} is beyond the game's {steps} moves")
        referee = self.referee(record.game)
        state = new_game(record.game, record.options, record.engine_seed)
        done, actor = 0, CHANCE
        shown: dict[str, Any] | None = None  # the step's action as everyone saw it
        before: dict[str, Pieces] = {}
        for move in played:
            players_move = move.seat is not None and move.seat != CHANCE
            if players_move and done == step:
                break
            if players_move:
                actor = int(move.seat)  # type: ignore[arg-type]
                if done == step - 1:
                    before = referee.table_of(state)  # the table before the step shown
            action = state.parse_action(move.action)
            state.apply(action)
            if players_move:
                done += 1
                shown = state.action_view(action, actor, None)
        book = book_for(record, events).speaking(language)
        moved: list[str] = []
        if step > 0:
            moved = sorted(changed_locations(before, referee.table_of(state)))
        return {
            "game_id": record.id,
            "title": book.words.title or info.title,
            "steps": steps,
            "step": step,
            "seat": None if actor == CHANCE else actor,
            "who": None if actor == CHANCE else book.seat(actor),
            "players": [p.to_json() for p in book.players],
            "text": book.words.seen_action(shown)
            if shown is not None
            else book.words.say.tr("the start"),
            "scores": state.scores(),
            "table": table_json(
                info, state, referee, book, marked=[], alert=False, last_move=moved
            ),
        }
