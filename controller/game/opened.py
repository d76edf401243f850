"""The open game's parts, all there together, and one change of it in the making."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.game.access import Refusal, Refused
from controller.game.store import Event, EventKind, GameRecord, action_entry
from controller.referee.deck import Deck
from controller.referee.judge import Referee
from controller.referee.tables import Pieces, changed_locations
from rules.core import Action, IllegalAction, State
from rules.game import Game

Row = tuple[int | None, EventKind, Any]  # a row for the event log: seat, kind, data
Played = tuple[int | None, Action]  # an action applied, with the seat that made it


@dataclass(eq=False)
class OpenGame:
    """The game open at the table: its record, engine state, rules, referee, the table as it
    lies, its digital deck and what it remembers of the last moves. All of it is there, or no
    game is open (`LiveGame.open is None`)."""

    record: GameRecord
    state: State
    info: Game[Any]
    referee: Referee
    table: dict[str, Pieces]
    deck: Deck  # its secret never leaves this object, the log and a finished game's record
    last_move: frozenset[str] = frozenset()  # locations the last players' move changed
    last_seat: int | None = None  # the seat whose action came last (asked for a draw)
    written: dict[str, Any] | None = None  # the verdict last written to the log
    computer_move: tuple[int, Action] | None = (
        None  # a computer's action the table does not show yet:
    )
    # its instruction stands until it does

    @property
    def players(self) -> int:
        return int(self.state.options.get("players", 0))


class Change:
    """One change of the open game in the making: actions applied (or taken back) and the rows
    that log them. Until its rows are written, `roll_back` leaves the state as it was."""

    def __init__(self, game: OpenGame, write: Callable[[list[Row]], list[Event]]) -> None:
        self.game = game
        self.rows: list[Row] = []
        self.events: list[Event] | None = None  # the rows as written, once they are
        self.moved = False  # the state's history was touched (a decision made before is stale)
        self.abandoned = False
        self._write = write
        self._applied = 0
        self._taken_back: list[Action] = []

    def apply(self, actions: Sequence[Action]) -> list[Played]:
        """Apply in order, atomically (on a refusal nothing stays applied), each logged as the
        action of the seat that made it. A players' move (not a draw alone) becomes the game's
        `last_move`: the locations whose pieces it changed."""
        game, state = self.game, self.game.state
        moving = any(not action.CHANCE_OUTCOME for action in actions)
        before = game.referee.table_of(state) if moving else None
        self.moved = True
        done: list[Played] = []
        try:
            for action in actions:
                seat = state.current_player
                state.apply(action)
                done.append((seat, state.history[-1]))
                if seat is not None and seat >= 0:
                    game.last_seat = seat
        except IllegalAction as error:
            for _ in done:
                state.undo()
            raise Refused(str(error), Refusal.REFUSED) from None
        self._applied += len(done)
        self.rows += [action_entry(seat, action) for seat, action in done]
        if before is not None and any(not action.CHANCE_OUTCOME for _, action in done):
            game.last_move = changed_locations(before, game.referee.table_of(state))
        return done

    def take_back(self, count: int) -> int:
        """Take back the last `count` players' actions and the draws after them; how many
        actions that was (0: nothing to take back)."""
        state = self.game.state
        taken = 0
        while taken < count and state.history:
            action = state.undo()
            self._taken_back.append(action)
            self.moved = True
            if not action.CHANCE_OUTCOME:
                taken += 1
        return len(self._taken_back)

    def log(self, seat: int | None, kind: EventKind, data: Any) -> None:
        self.rows.append((seat, kind, data))

    def write(self) -> list[Event]:
        """The rows on disk (once; no rows, no write): from here nothing is rolled back."""
        if self.events is None:
            self.events = self._write(self.rows) if self.rows else []
        return self.events

    def roll_back(self) -> None:
        """Not written: the state as it was before the change."""
        if self.events is not None:
            return
        state = self.game.state
        for _ in range(self._applied):
            state.undo()
        for action in reversed(self._taken_back):
            state.apply(action)  # not on disk: not taken back
        self._applied, self._taken_back = 0, []

    def abandon(self) -> None:
        """Rolled back, and nothing of it is published."""
        self.roll_back()
        self.abandoned = True
