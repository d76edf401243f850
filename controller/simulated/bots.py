"""Bot players at the simulated table: they play physically, mistakes included.

They lay the pieces a legal action calls for on the simulated table (magnets for the virtual
board, markers for the camera's renderer), say on a phone what no sensor sees, now and then make a
mistake the referee must catch (a piece on a square no legal move reaches), and put it right after
the alert. They run on the game owner's thread, as part of the table's tick.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from controller.game.access import Asker, Refused
from controller.game.live import LiveGame
from controller.referee.judge import Alternative, VerdictKind
from controller.referee.tables import Pieces
from controller.simulated.table import PhysicalTable
from rules.core import CHANCE, Action, Decision, GameInfo, State, Visibility
from rules.physical import PlacedPiece
from rules.playout import Policy, choose


class BotStep(StrEnum):
    """What a bot did on its go."""

    PLAYED = "played"  # moved pieces on the table
    SAID = "said"  # told a phone what no sensor sees
    MISTAKE = "mistake"  # laid a piece wrong, on purpose
    CORRECTED = "corrected"  # put its mistake right after the alert
    FOLLOWED = "followed"  # carried out the referee's instructions
    ANSWERED = "answered"  # answered the referee's question
    WAITED = "waited"


@dataclass
class BotStats:
    """What the bots did, for tests and the status page."""

    played: int = 0
    said: int = 0
    mistakes: int = 0
    mistakes_alerted: int = 0
    mistakes_applied: int = 0  # a mistake the referee took for a legal move: must stay 0
    corrected: int = 0


class Bots:
    """Bot players at the simulated table: each go, the seat to act plays one step physically."""

    def __init__(
        self,
        game: LiveGame,
        table: PhysicalTable,
        seed: int = 0,
        mistake_rate: float = 0.06,
    ) -> None:
        self.game = game
        self.table = table
        self.rng = random.Random(seed)
        self.mistake_rate = mistake_rate
        self.stats = BotStats()
        self._mistake: str | None = None  # the location of the bot's last mistake
        self._played: list[Action] = []  # what the bots really did since the referee last asked

    def go(self) -> BotStep:
        """One step by whoever is to act, answering the referee first."""
        game, state, info = self.game, self.game.state, self.game.info
        if state is None or info is None or state.is_over or game.referee is None:
            return BotStep.WAITED
        verdict = game.verdict
        expected = game.referee.table_of(state)
        if self._mistake is not None and verdict is not None and verdict.actions:
            self.stats.mistakes_applied += 1
        if verdict is not None and verdict.kind is VerdictKind.ALERT:
            if self._mistake is not None:
                self.stats.mistakes_alerted += 1
            self._mistake = None
            self.table.lay(expected)  # put it right: the table as the rules have it
            self.stats.corrected += 1
            return BotStep.CORRECTED
        if verdict is not None and verdict.kind in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            who = Asker.host() if verdict.seat is None else Asker.at(verdict.seat)
            game.answer(who, self._answer(state, verdict.options))
            return BotStep.ANSWERED
        if verdict is not None and verdict.kind is VerdictKind.TAKE_BACK:
            game.accept_table(Asker.host())
            self.table.lay(expected)
            return BotStep.FOLLOWED
        if self.table.pieces() != expected and verdict is not None:
            self.table.lay(expected)  # carry out the instructions
            return BotStep.FOLLOWED
        turn = state.current_player
        if turn is None or turn == CHANCE:
            return BotStep.WAITED
        seat = turn
        action = state.parse_action(choose(state, self.rng, Policy.BOT))
        if action.VISIBILITY is not Visibility.TABLE or not self._shows(state, info, action):
            who = Asker.host() if action.DECISION is Decision.HOST else Asker.at(seat)
            try:
                game.act(who, action.to_json())
            except Refused:
                return BotStep.WAITED
            self.stats.said += 1
            return BotStep.SAID
        if self.rng.random() < self.mistake_rate and self._make_mistake(expected):
            return BotStep.MISTAKE
        laid = game.referee.table_as_laid(state, action)  # the card in its slot, say
        with state.applied([action]):
            after = game.referee.table_of(state)
        if laid is not None and laid != after:
            after = laid  # as players do: lay the play, then carry out what it causes
        self._played = [*self._played[-5:], action]
        self.table.lay(after)
        self.stats.played += 1
        return BotStep.PLAYED

    def _answer(self, state: State, options: tuple[Alternative, ...]) -> int:
        """The option the seat would pick: for its own decision (which jewel, a hidden split),
        what its bot decides now; for how the table came about, what it really did."""
        decides = any(a.DECISION is not Decision.NONE for o in options for a in o.actions)
        if decides and state.current_player is not None and state.current_player != CHANCE:
            wanted = state.parse_action(choose(state, self.rng, Policy.BOT))
            for index, option in enumerate(options):
                if option.actions == (wanted,):
                    return index
        return self._truth(options)

    def _truth(self, options: tuple[Alternative, ...]) -> int:
        """The option that holds what the bot really did (players answer truthfully)."""
        for index, option in enumerate(options):
            if any(a in self._played for a in option.actions if not a.CHANCE_OUTCOME):
                return index
        return 0

    def _shows(self, state: State, info: GameInfo, action: object) -> bool:
        """Whether the action changes the table (else it comes from a phone)."""
        assert self.game.referee is not None
        before = self.game.referee.table_of(state)
        with state.applied([action]):  # type: ignore[list-item]
            return self.game.referee.table_of(state) != before

    def _make_mistake(self, expected: dict[str, Pieces]) -> bool:
        """Lay a copy of a one-of-a-kind piece on an empty location: no legal move does that."""
        unique = [
            p for ps in expected.values() for p in ps if self.table.by_piece[p.piece].copies == 1
        ]
        empty = sorted(
            loc.name
            for loc in self.table.layout.locations
            if not expected.get(loc.name) and loc.sensor is not None
        )
        if not unique or not empty:
            return False
        piece = self.rng.choice(sorted(unique))
        where = self.rng.choice(empty)
        wrong = dict(expected)
        wrong[where] = (PlacedPiece(piece.piece, piece.rotation),)
        self.table.lay(wrong)
        self._mistake = where
        self.stats.mistakes += 1
        return True
