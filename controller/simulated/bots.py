"""Bot players at the simulated table: they play physically, mistakes included.

They lay the pieces a legal action calls for on the simulated table (magnets for the virtual
board, markers for the camera's renderer), say on a phone what no input of this table sees (with
the sensor board alone: every tile), turn up what the table shows by chance (a green tile's face)
and answer the referee's questions as a player would: what they did, what came up. A turn's end
that the next player's move proves is left unsaid now and then, as players do. Now and then they
make a mistake the referee must catch (a piece on a square no legal move reaches), and put it
right after the alert. A computer seat they never play for: they lay its moves as they carry out
any instruction, and say a turn's end before the computer's turn (it waits for none). They run
on the game owner's thread, as part of the table's tick.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.game.access import Asker, Refused
from controller.game.live import LiveGame
from controller.game.opened import OpenGame
from controller.referee.judge import Referee
from controller.referee.moves import ChanceResolver
from controller.referee.observe import fuse
from controller.referee.tables import Pieces, changed_locations
from controller.referee.verdict import Alternative, Verdict, VerdictKind
from controller.simulated.table import PhysicalTable
from rules.core import CHANCE, Action, Decision, State, Visibility
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
        camera: bool = True,
        sensors: bool = True,
        unsaid_rate: float = 0.5,
    ) -> None:
        self.game = game
        self.table = table
        self.rng = random.Random(seed)
        self.mistake_rate = mistake_rate
        self.camera = camera  # which inputs the table has: what they see needs no phone
        self.sensors = sensors
        self.unsaid_rate = unsaid_rate  # how often a turn's end the next move proves goes unsaid
        self.stats = BotStats()
        self._mistake: str | None = None  # the location of the bot's last mistake
        self._patience = 0  # goes left to wait for the referee to see the mistake
        self._played: list[Action] = []  # what the bots really did since the referee last asked
        self._unsaid: list[tuple[int, Action]] = []  # a turn ended, not said: the next move shows

    def go(self) -> BotStep:
        """One step by whoever is to act, answering the referee first."""
        game, opened = self.game, self.game.open
        if opened is None or opened.state.is_over:
            return BotStep.WAITED
        state, referee = opened.state, opened.referee
        expected = referee.table_of(state)
        followed = self._follow_referee(state, referee, expected)
        if followed is not None:
            return followed
        turn = state.current_player
        if turn is None or turn in game.computers:
            return BotStep.WAITED  # the computer decides its own moves; the bots lay them
        if turn == CHANCE:
            if not state.observed_chance():
                return BotStep.WAITED  # the digital deck draws it
            return self._draw_on_table(state)
        return self._take_turn(state, referee, expected)

    def _follow_referee(
        self, state: State, referee: Referee, expected: dict[str, Pieces]
    ) -> BotStep | None:
        """Heed the referee's last verdict (and see whether it caught the bots' mistake); None
        when it asks nothing of the table and the seat to act may play."""
        game, verdict = self.game, self.game.verdict
        if self._mistake is not None and verdict is not None and verdict.kind in _APPLIES:
            self.stats.mistakes_applied += 1  # (a take-back's actions are offered, not applied)
            self._mistake = None
        elif self._mistake is not None and (
            verdict is None or verdict.kind not in (VerdictKind.ALERT, VerdictKind.TAKE_BACK)
        ):
            self._patience -= 1  # the referee has not seen it yet (the sensor board is slower)
            if self._patience > 0:
                return BotStep.WAITED
            self._mistake = None  # never seen: put it right
            self.table.lay(expected)
            return BotStep.CORRECTED
        if verdict is not None and verdict.kind is VerdictKind.ALERT:
            if self._mistake is not None:
                self.stats.mistakes_alerted += 1
            self._mistake = None
            self._say_unsaid()
            self.table.lay(referee.table_of(state))  # put it right: as the rules have it
            self.stats.corrected += 1
            return BotStep.CORRECTED
        if verdict is not None and verdict.kind in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            if verdict.seat is not None and verdict.seat in game.computers:
                return BotStep.WAITED  # the computer answers its own questions
            return self._answer(state, verdict)
        if verdict is not None and verdict.kind is VerdictKind.TAKE_BACK:
            if self._mistake is not None:  # the table does not fit the game, and it says so:
                self.stats.mistakes_alerted += 1  # with magnets alone a second Rock where a
                self._mistake = None  # wagon just left is that wagon back, as far as it knows
            game.accept_table(Asker.host())
            self.table.lay(expected)
            return BotStep.FOLLOWED
        if self.table.pieces() != expected and verdict is not None:
            self.table.lay(expected)  # carry out the instructions
            return BotStep.FOLLOWED
        return None

    def _take_turn(self, state: State, referee: Referee, expected: dict[str, Pieces]) -> BotStep:
        """The seat to act (after any turn's end left unsaid) picks its action: said on a
        phone, left unsaid, laid wrong on purpose, or laid on the table."""
        unsaid = [a for _, a in self._unsaid]
        with state.applied(unsaid):
            seat = state.current_player
            if seat is None or seat == CHANCE:
                action = None
            else:
                action = state.parse_action(choose(state, self.rng, Policy.BOT))
                shows = action.VISIBILITY is Visibility.TABLE and self._shows(state, action)
        if action is None or seat is None or seat == CHANCE or seat in self.game.computers:
            self._say_unsaid()  # a computer's turn comes only once the turn's end is said
            return BotStep.SAID
        if not shows:
            return self._say(seat, action)
        if self.rng.random() < self.mistake_rate and self._make_mistake(expected):
            return BotStep.MISTAKE
        with state.applied(unsaid):
            laid = referee.table_as_laid(state, action)  # the card in its slot, say
        with state.applied([*unsaid, action]):
            after = referee.table_of(state)
        if laid is not None:
            after = laid  # as players do: lay the play, then carry out what it causes (the table
            # as laid is whole: a share still to be taken lies where it was, not in both places)
        self._played = [*self._played[-5:], *unsaid, action]
        self._unsaid = []
        self.table.lay(after)
        self.stats.played += 1
        return BotStep.PLAYED

    def _say(self, seat: int, action: Action) -> BotStep:
        """Say on a phone an action nothing on the table shows, or now and then leave a turn's
        end unsaid when the next player's move will show it."""
        if (
            action.VISIBILITY is Visibility.IMPLIED
            and action.PROVEN_BY_NEXT_SEAT
            and not self._unsaid
            and self.rng.random() < self.unsaid_rate
        ):
            self._unsaid.append((seat, action))  # the next player's move will show it
            return BotStep.WAITED
        self._say_unsaid()
        who = Asker.host() if action.DECISION is Decision.HOST else Asker.at(seat)
        try:
            self.game.act(who, action.to_json())
        except Refused:
            return BotStep.WAITED
        self.stats.said += 1
        return BotStep.SAID

    @property
    def _opened(self) -> OpenGame:
        opened = self.game.open
        assert opened is not None  # the bots play while a game is open
        return opened

    def _say_unsaid(self) -> None:
        """Say on a phone the turn's end left unsaid (no move of the next player shows it)."""
        unsaid, self._unsaid = self._unsaid, []
        for seat, action in unsaid:
            try:
                self.game.act(Asker.at(seat), action.to_json())
                self.stats.said += 1
            except Refused:
                return

    def _draw_on_table(self, state: State) -> BotStep:
        """Chance the table shows (a green tile turned up shows its face): the bot turns it up
        and goes on as its player would (lays the tile the way she prefers), all at once."""
        outcomes = [(a, p) for a, p in state.chance_outcomes() if p > 0]
        if not outcomes:
            return BotStep.WAITED
        outcome = self.rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        steps: list[Action] = [outcome]
        with state.applied([outcome]):
            seat = state.current_player
            if seat is not None and seat >= 0:
                follow = state.parse_action(choose(state, self.rng, Policy.BOT))
                if follow.VISIBILITY is Visibility.TABLE:
                    steps.append(follow)
        with state.applied(steps):
            after = self._opened.referee.table_of(state)
        self._played = [*self._played[-5:], *steps]
        self.table.lay(after)
        self.stats.played += 1
        return BotStep.PLAYED

    def _answer(self, state: State, verdict: Verdict) -> BotStep:
        """Answer the referee's question as the players would: with what they did, or, for a
        draw no input here sees (a tile's face), with what came up."""
        asker = Asker.host() if verdict.seat is None else Asker.at(verdict.seat)
        options = verdict.options
        if options and all(len(o.actions) == 1 and o.actions[0].CHANCE_OUTCOME for o in options):
            drawn = [o.actions[0] for o in options]
            with state.applied(list(verdict.actions)):
                odds = dict(state.chance_outcomes())
            weights = [max(odds.get(a, 0.0), 0.0) for a in drawn]
            if not any(weights):
                weights = [1.0] * len(drawn)
            pick = drawn.index(self.rng.choices(drawn, weights)[0])
        else:
            pick = self._decide(state, verdict)
        self.game.answer(asker, pick)
        return BotStep.ANSWERED

    def _decide(self, state: State, verdict: Verdict) -> int:
        """For the seat's own decision (which jewel, a hidden split), what its bot decides now;
        for how the table came about, what it really did."""
        options = verdict.options
        decides = any(a.DECISION is not Decision.NONE for o in options for a in o.actions)
        if decides and state.current_player is not None and state.current_player != CHANCE:
            wanted = state.parse_action(choose(state, self.rng, Policy.BOT))  # the live game
            for index, option in enumerate(options):  # has applied what came before it
                if option.actions == (wanted,):
                    return index
        return self._truth(options)

    def _truth(self, options: tuple[Alternative, ...]) -> int:
        """The option that holds what the bots really did (players answer truthfully): all its
        actions done, the most of them; else the first holding any."""
        best, best_score = 0, (-1, -1)
        for index, option in enumerate(options):
            own = [a for a in option.actions if not a.CHANCE_OUTCOME]
            done = sum(a in self._played for a in own)
            score = (int(done == len(own) and done > 0), done)
            if score > best_score:
                best, best_score = index, score
        return best

    def _shows(self, state: State, action: Action) -> bool:
        """Whether the inputs of this table see the action (else it is said on a phone): with a
        camera, any change of the table; with the sensor board alone, every place it changes
        felt changed (a tile laid as a turn's last action sets the minecart moving: the magnet
        moved shows the turn's end, not the tile, which a player says on a phone)."""
        referee = self._opened.referee
        before = referee.table_of(state)
        with state.applied([action]):
            after = referee.table_of(state)
        changed = changed_locations(before, after)
        if not changed:
            return False
        if self.camera:
            return True
        if not self.sensors:
            return False
        seen = fuse(self.table.layout, self._catalogue(), None, self._magnets(after))
        return all(not referee.fits(seen.view(n), before.get(n, ())) for n in changed)

    def _catalogue(self) -> Any:
        info = self._opened.info
        return info.catalogue()

    def _magnets(self, table: dict[str, Pieces]) -> frozenset[tuple[int, int]]:
        return frozenset(
            sensor
            for name, sensor in self.table.sensors.items()
            if any(p.piece in self.table.magnetic for p in table.get(name, ()))
        )

    def _make_mistake(self, expected: dict[str, Pieces]) -> bool:
        """Lay a piece where no legal move puts it: a copy of a one-of-a-kind piece on an empty
        location, or (a game whose pieces all come in several copies: Derailed!'s cards) a piece
        on an empty location no legal move reaches now, nor once an unseen step was taken."""
        unique = [
            p for ps in expected.values() for p in ps if self.table.by_piece[p.piece].copies == 1
        ]
        seen = [
            loc.name
            for loc in self.table.layout.locations
            if self.camera or loc.sensor is not None  # the camera sees a card slot too
        ]
        empty = sorted(n for n in seen if not expected.get(n))
        if not self.camera:  # the sensor board feels magnets alone: a magnet where no legal
            # move puts one (a second Rock; a one-of-a-kind tile would go unfelt)
            unique = [p for p in unique if p.piece in self.table.magnetic]
            reach = self._reach(expected)
            empty = [n for n in empty if n not in reach]
        elif not unique and empty:  # no one-of-a-kind piece out: any piece, out of reach
            reach = self._reach(expected)
            empty = [n for n in empty if n not in reach]
            unique = [PlacedPiece(piece) for piece in sorted(self.table.by_piece)]
        if not unique or not empty:
            return False
        piece = self.rng.choice(sorted(unique))
        where = self.rng.choice(empty)
        wrong = dict(expected)
        wrong[where] = (PlacedPiece(piece.piece, piece.rotation),)
        self.table.lay(wrong)
        self._mistake = where
        self._patience = 20
        self.stats.mistakes += 1
        return True

    def _reach(self, expected: dict[str, Pieces]) -> set[str]:
        """Where a legal action changes the table now, or after a step nothing shows."""
        opened = self._opened
        state, referee = opened.state, opened.referee
        reach: set[str] = set()
        for action in state.legal_actions():
            with state.applied([action]):
                reach |= changed_locations(expected, referee.table_of(state))
                if action.VISIBILITY is Visibility.TABLE:
                    continue
                # a step nothing shows (an implied end of turn, a word from a phone), then the
                # digital deck's draws it sets off (Off the Rails' deposits), then anyone's action
                with state.applied(_digital_draws(state, opened.deck)):
                    if state.current_player in (None, CHANCE):
                        continue
                    for then in state.legal_actions():
                        with state.applied([then]):
                            reach |= changed_locations(expected, referee.table_of(state))
        return reach


_APPLIES = frozenset({VerdictKind.APPLIED, VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT})
"""The verdicts that apply their actions (a take-back only offers to undo them)."""


def _digital_draws(state: State, deck: ChanceResolver) -> list[Action]:
    """The draws the game's digital deck makes here before a player acts (none where the table
    shows the draw or nothing is to be drawn), as the referee looks past them."""
    draws: list[Action] = []
    with state.applied([]):
        while state.current_player == CHANCE and not state.observed_chance():
            draw = deck(state)
            draws.append(draw)
            state.apply(draw)  # taken back when the block ends
    return draws
