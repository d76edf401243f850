"""The game at the table: the engine state, the referee's verdicts acted on, the event log written.

`LiveGame` is the one place where the game changes. Settled observations (from the camera and the
sensor board) and actions from phones and seat buttons both come here, are checked by the same
engine, and every accepted change is written to the event log before anyone hears of it, through
one commit (`LiveGame._change`). It is synchronous and single-threaded: only the thread of its
`GameOwner` calls it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from controller.game import players as named
from controller.game.access import (
    Asker,
    Refusal,
    Refused,
    may_act,
    may_act_at_all,
    may_answer,
    may_name,
    only_host,
)
from controller.game.draws import draw_question
from controller.game.ending import EndedBy, end_screens, ended_by
from controller.game.opened import Change, OpenGame
from controller.game.phrasing import Phrasebook
from controller.game.players import TABLE_ROW, Player
from controller.game.store import (
    MAX_ROWS,
    Event,
    EventKind,
    EventLog,
    GameRecord,
    StoreError,
    replay,
)
from controller.referee.deck import Deck, SecretDeck, SeededDeck, new_secret
from controller.referee.judge import Referee
from controller.referee.observe import Observation
from controller.referee.tables import Pieces, as_laid
from controller.referee.verdict import Verdict, VerdictKind
from controller.words.language import Language
from rules.ai.player import Level
from rules.core import CHANCE, Action, IllegalAction, State, Visibility
from rules.registry import game_named, new_game

log = logging.getLogger("railtable")
Listener = Callable[[Event], None]
T = TypeVar("T")
TABLE_HANDS = "table"  # option `hands`: real cards held by the players, unknown to the engine
DISK_FULL = "event log: disk full — play is paused until space returns"
CANNOT_WRITE = "event log: cannot be written — play is paused until it can be"


class LiveGame:
    """The open game (`open`: its state, referee, table as it lies), the pending question, the
    seats' players; every change of it goes through one commit (`_change`), which writes the log."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.listeners: list[Listener] = []
        self.open: OpenGame | None = None  # the game open at the table, if one is
        self.left_on_table: dict[str, Pieces] = {}  # what the last game left, as last seen
        self.verdict: Verdict | None = None  # the last verdict, while it stands
        self.felt: tuple[str, ...] = ()  # felt by the sensor board, not yet seen by the camera
        self.seen: Observation | None = None  # the last settled table judged: which inputs see
        self.changes = 0  # the version: counts every change anyone may see (`_publish` alone
        # bumps it); the owner publishes on a new count
        self.store_problem: str | None = None  # why the last write failed, until one works
        self.chosen: dict[int, dict[str, str]] = {}  # each seat's chosen name and colour
        self.finished: dict[str, Any] | None = None  # the game that ended last, for its end screen
        self.finished_said: dict[Language, dict[str, Any]] = {}  # that screen in each language
        self.moves = 0  # counts every change of the state's history (a computer's decision
        # made for an older count is stale)

    # ---- games
    def resume(self) -> bool:
        """Rebuild the open game from the log, if there is one."""
        record = self.log.open_game()
        if record is None:
            return False
        game = self._load(record, self.log.replay(record))
        self.chosen = named.chosen(self.log.events(record.id, limit=MAX_ROWS))
        # a plug pulled between a move and its draws: draw them now, the same
        self._go_on(game, ends=False)
        return True

    def recall(self) -> bool:
        """No game open, and the last one is over: its end screen again (after a restart), with
        what it left on the table; False on a new table or with a game open."""
        record = self.log.last_game()
        if record is None or record.is_open:
            return False
        events = self.log.events(record.id, limit=MAX_ROWS)
        ends = [e.data for e in events if e.kind is EventKind.END]
        game = self._load(record, replay(record, events))
        self.chosen = named.chosen(events)
        self._finish(game, ended_by(ends[-1]) if ends else EndedBy.RULES)
        self.left_on_table, self.open = game.table, None
        return True

    def start(self, name: str, options: Mapping[str, Any], seed: int | None = None) -> State:
        """A new game (`options` may hold `players`); bad names and options are refused.

        Its digital draws come from a new secret (`controller.referee.deck.SecretDeck`), kept in
        the log and nowhere else; a `seed` (tests, reproducible demos) draws predictably from it
        instead, and the game says so to the host (`reproducible_seed`)."""
        try:
            info = game_named(name)
        except KeyError as error:
            raise Refused(str(error.args[0]), Refusal.REFUSED) from None
        secret = new_secret() if seed is None else None
        try:
            state = new_game(name, dict(options), 0 if seed is None else seed)
        except ValueError as error:
            raise Refused(str(error), Refusal.REFUSED) from None
        options = dict(state.options)
        game_id, event = self._stored(lambda: self.log.start_game(info.name, options, seed, secret))
        record = self.log.game(game_id)
        assert record is not None
        # what the last game left on the table, as far as it was seen
        lying = self.open.table if self.open is not None else self.left_on_table
        game = self._load(record, state)
        self.finished, self.finished_said = None, {}
        # a game on another mat: the last mat went with what lay on it, but for the places the
        # new one has too (a simulated camera drew pieces on places its mat lacks: no frame)
        on_this_mat = {loc.name for loc in info.layout(state.options).locations}
        lying = {n: ps for n, ps in lying.items() if n in on_this_mat}
        if lying:
            # A new game on a table still holding pieces: the referee asks to clear them
            # rather than read them as the new game's moves.
            game.table = {n: game.referee.canonical(ps) for n, ps in lying.items()}
        self._publish([event])
        self._go_on(game, ends=False)
        return state

    def end(self, by: EndedBy = EndedBy.HOST) -> None:
        """End the open game (the host's or the bench's doing, or the rules': `by`); its end
        screen is kept in every language until another game starts."""
        game = self.opened()
        scores = game.state.scores()
        screens = self._finish(game, by)  # why, in every language
        reason = screens[Language.EN]["reason"]  # English, as the log keeps it
        said = {  # and in each other language, for the page's list of what happened
            language.value: screen["reason"]
            for language, screen in screens.items()
            if language is not Language.EN
        }
        event = self._stored(lambda: self.log.end_game(game.record.id, scores, reason, by, said))
        self._publish([event])
        self.left_on_table, self.open, self.verdict = game.table, None, None
        self._publish([])

    # ---- computer players
    @property
    def computers(self) -> dict[int, Level]:
        """The seats the computer plays, with its level (kept in the log as `player` rows)."""
        return {
            seat: Level(mine["computer"])
            for seat, mine in self.chosen.items()
            if mine.get("computer") in tuple(Level)
        }

    @property
    def hints(self) -> bool:
        """Whether a seat may ask for a hint ("what would you do?"); the host switches it."""
        return self.chosen.get(TABLE_ROW, {}).get("hints", "on") != "off"

    def set_computer(self, asker: Asker, seat: int, level: str | None) -> Player:
        """The host makes a seat a computer player (`level`: easy, normal or strong) or takes
        it back (None); kept in the log, so it survives a restart."""
        only_host(asker, "seats the computer")
        game = self.opened()
        count = game.players
        if not 0 <= seat < count:
            raise Refused(f"this game has {count} players: no player {seat + 1}")
        if level is not None:
            if level not in tuple(Level):
                raise Refused(f"level {level!r}: one of {', '.join(Level)}", Refusal.REFUSED)
            if game.state.options.get("hands") == TABLE_HANDS:
                raise Refused(
                    "the computer cannot play with real cards (hands dealt by hand): start the "
                    "game with the table dealing the hands"
                )
        self._choose(game, seat, {"computer": level or ""})
        return self.players[seat]

    def set_hints(self, asker: Asker, on: bool) -> None:
        """The host lets seats ask for hints, or not (kept in the log)."""
        only_host(asker, "switches hints")
        self._choose(self.opened(), None, {"hints": "on" if on else "off"})

    def computer_to_act(self) -> int | None:
        """The computer seat to decide now, if one is: its turn, and the table as the rules
        expect (a move of its own still to be laid, an alert, a wait: not yet)."""
        game = self.open
        if game is None or game.state.is_over or self.store_problem is not None:
            return None
        seat = game.state.current_player
        if seat is None or seat < 0 or seat not in self.computers:
            return None
        verdict = self.verdict
        if verdict is None or verdict.kind is VerdictKind.IN_SYNC:
            return seat
        if verdict.kind is VerdictKind.APPLIED and not verdict.instructions:
            return seat
        if verdict.kind is VerdictKind.NEEDS_INPUT and verdict.seat == seat:
            return seat  # its own decision (a hidden split, which jewel): it answers itself
        if verdict.kind is VerdictKind.WAITING and verdict.seat == seat:
            return seat  # the table shows its move already as someone laid it: it decides
        return None

    def play_computer(self, seat: int, moves: int, action: Action) -> bool:
        """A computer's decision, made on another thread for the state as it stood at `moves`:
        taken now if that state still stands and the table is ready (else False: the caller
        drops it when stale, or tries again). What shows on the table becomes the instruction
        everyone reads (the referee then waits for the table to show it); the rest is done."""
        game = self.opened()
        if moves != self.moves or self.computer_to_act() != seat:
            return False
        verdict = self.verdict
        if verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT:
            picked = [o for o in verdict.options if o.actions == (action,)]
            if not picked:
                return False
            self._play(game, picked[0].actions)
            return True
        self._play(game, [action])
        if action.VISIBILITY is Visibility.TABLE:
            state = game.state
            game.computer_move = (seat, state.history[-1] if state.history else action)
            if self.seen is not None and self.open is not None:
                self.observe(self.seen)  # its instruction at once, on the table as last seen
        return True

    # ---- players
    @property
    def players(self) -> tuple[Player, ...]:
        """Each seat's player: name and colour (the game's piece colour where it has one)."""
        game = self.open
        if game is None:
            return ()
        return named.players(game.info, game.state, game.players, self.chosen)

    @property
    def book(self) -> Phrasebook:
        """The open game's words: its places' and cards' names, its players' names."""
        return Phrasebook.of(self.open.info if self.open is not None else None, self.players)

    def name_player(
        self, asker: Asker, seat: int, name: str | None = None, colour: str | None = None
    ) -> Player:
        """A seat's player names themself (or the host names them): kept in the log."""
        game = self.opened()
        count = game.players
        may_name(asker, seat)
        if not 0 <= seat < count:
            raise Refused(f"this game has {count} players: no player {seat + 1}")
        if seat in self.computers:
            raise Refused(f"{self.book.seat(seat)} is the computer's: the host takes it back first")
        data: dict[str, str] = {}
        if name is not None:
            data["name"] = named.check_name(name)
            taken = [p.name.casefold() for p in self.players if p.seat != seat]
            if data["name"].casefold() in taken:
                raise Refused(f"{data['name']} is already playing: pick another name")
        if colour is not None:
            if not named.colour_choice(game.info):
                raise Refused("in this game your colour is your pieces' colour")
            data["colour"] = named.check_colour(colour)
        if not data:
            raise Refused("say a name or a colour", Refusal.REFUSED)
        now = self.players[seat]
        if all(getattr(now, key) == value for key, value in data.items()):
            return now  # the same name and colour again: nothing to log
        self._choose(game, seat, data)
        return self.players[seat]

    def _choose(self, game: OpenGame, seat: int | None, data: dict[str, str]) -> None:
        """A seat's (or, with None, the table's) choices: logged, then kept."""
        with self._change(game, goes_on=False) as change:
            change.log(seat, EventKind.PLAYER, data)
            change.write()
            self.chosen.setdefault(TABLE_ROW if seat is None else seat, {}).update(data)

    def _load(self, record: GameRecord, state: State) -> OpenGame:
        deck = deck_of(self.log, record)
        info = game_named(record.game)
        referee = Referee(info)
        self.open = OpenGame(record, state, info, referee, referee.table_of(state), deck)
        self.chosen = {}
        self.verdict = None
        self.felt = ()
        self.moves += 1
        self._publish([])
        return self.open

    def opened(self) -> OpenGame:
        """The open game, or a refusal saying none is."""
        if self.open is None:
            raise Refused("no game is open: the host starts one", Refusal.NOT_NOW)
        return self.open

    # ---- the table
    def observe(
        self, observation: Observation, acting_on: Collection[VerdictKind] | None = None
    ) -> Verdict | None:
        """Judge a settled observation and act on the verdict; None when no game can judge it.

        `acting_on`: the verdict kinds acted on (None: every kind); any other verdict is left
        unsaid (None), as the table's settler asks while only the sensor board has settled."""
        game = self.opened()
        state = game.state
        if state.is_over:
            return None
        verdict = game.referee.judge(
            state, observation, game.table, game.deck, frozenset(self.computers)
        )
        if acting_on is not None and verdict.kind not in acting_on:
            return None
        if verdict.kind is VerdictKind.IN_SYNC:
            game.computer_move = None  # the table shows the computer's move now
        verdict = computer_says(verdict, game.computer_move)
        self.seen = observation
        self.felt = ()
        with self._change(game) as change:
            applied = []
            if verdict.kind in (VerdictKind.APPLIED, VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
                applied = change.apply(verdict.actions)
            said = verdict.to_json()
            if applied or said != game.written:  # a verdict unchanged is not written again
                if verdict.kind is VerdictKind.ALERT:
                    change.log(None, EventKind.ALERT, said)
                elif verdict.kind is VerdictKind.INSTRUCTIONS or verdict.instructions:
                    change.log(None, EventKind.INSTRUCTION, said)
                if verdict.kind is not VerdictKind.IN_SYNC or self.verdict is not None:
                    change.log(verdict.seat, EventKind.VERDICT, said)
            try:
                change.write()
            except Refused:
                change.abandon()
                return None  # nothing applied: the table is judged again once the log is back
            if change.rows:
                game.written = said
            if verdict.settles_table:
                referee = game.referee
                game.table = as_laid(game.table, observation, referee.table_of(state), referee.fits)
            self.verdict = None if verdict.kind is VerdictKind.IN_SYNC else verdict
        return verdict

    def feel(self, locations: Iterable[str]) -> None:
        """Locations where the sensor board felt a piece come or go that the camera has not seen
        yet (the move is judged once it has): phones show them at once."""
        felt = tuple(sorted(locations))
        if felt != self.felt:
            self.felt = felt
            self._publish([])

    # ---- actions no sensor sees
    def act(self, asker: Asker, action: Mapping[str, Any]) -> list[Event]:
        """An action from a phone or a seat button, checked by the engine; the host may act for
        the seat whose turn it is. The rules' reason for a refusal goes to the seat's own phone;
        anyone else acting for it, while the game hides anything from anyone, hears only that the
        move is not legal now (the reason may tell what a hidden hand holds: "seat 0 does not
        hold bo-3", and probing would read the hand)."""
        game = self.opened()
        state = game.state
        may_act_at_all(asker)
        try:
            parsed = state.parse_action(action)
        except IllegalAction as error:
            raise Refused(str(error), Refusal.REFUSED) from None
        seat = state.current_player
        may_act(asker, seat, parsed)
        if seat in self.computers and not parsed.CHANCE_OUTCOME:
            raise Refused(
                f"{self.book.seat(seat)} is the computer's: it makes its own moves",
                Refusal.NOT_ALLOWED,
            )
        try:
            return self._play(game, [parsed])
        except Refused as refusal:
            if asker.is_seat(seat) or refusal.why is not Refusal.REFUSED or parsed.CHANCE_OUTCOME:
                raise
            if not _hides_anything(state):
                raise  # nothing is hidden: the reason tells nothing anyone cannot see
            raise Refused(
                f"not a legal move for {self.book.seat(seat)} now", Refusal.REFUSED
            ) from None

    def answer(self, asker: Asker, option: int) -> list[Event]:
        """The seat's pick for the referee's question (a choice, or an input nothing shows)."""
        verdict = self.verdict
        if verdict is None or verdict.kind not in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            raise Refused("there is no question to answer", Refusal.NOT_NOW)
        may_answer(asker, verdict.seat, verdict.hidden)
        if verdict.seat is not None and verdict.seat in self.computers:
            raise Refused(
                f"{self.book.seat(verdict.seat)} is the computer's: it answers itself",
                Refusal.NOT_ALLOWED,
            )
        if not 0 <= option < len(verdict.options):
            raise Refused(
                f"option {option} is not one of 0..{len(verdict.options) - 1}", Refusal.REFUSED
            )
        return self._play(self.opened(), verdict.options[option].actions)

    def _play(self, game: OpenGame, actions: Sequence[Action]) -> list[Event]:
        """Actions a person (or the computer) gave: applied, logged, and the game goes on."""
        game.written = None  # the game moved on: the next verdict is news
        with self._change(game) as change:
            change.apply(actions)
            events = change.write()
            self.verdict = None
        return events

    def undo(self, asker: Asker, count: int = 1) -> list[Event]:
        """The host takes back the last `count` players' actions (and the draws after them)."""
        only_host(asker, "can undo (enter the table PIN)")
        game = self.opened()
        with self._change(game, goes_on=False) as change:
            undone = change.take_back(count)
            if not undone:
                raise Refused("nothing to undo", Refusal.NOT_NOW)
            game.written = None
            change.log(None, EventKind.UNDO, {"count": undone})
            events = change.write()
            # the table as it lies: what was last seen, not what the rules now expect. A move
            # undone while its pieces still lie there is not read again from the same table:
            # the referee shows what to take off or put back until the table changes
            rules, seen = game.referee.table_of(game.state), self.seen
            game.table = (
                rules if seen is None else as_laid(game.table, seen, rules, game.referee.fits)
            )
            self.verdict = None
            game.last_move = frozenset()
            game.computer_move = None
        return events

    def accept_table(self, asker: Asker) -> None:
        """The host says the table as it lies now is right (after correcting it by hand)."""
        only_host(asker, "can correct the board")
        game = self.opened()
        with self._change(game, goes_on=False):
            game.table = game.referee.table_of(game.state)
            self.verdict = None

    # ---- the one commit
    @contextmanager
    def _change(self, game: OpenGame, goes_on: bool = True) -> Iterator[Change]:
        """Every change of the open game: the body applies actions (or takes them back) and
        logs rows, `change.write()` puts them on disk before anyone hears (leaving writes what
        the body has not), then what the body sets besides. A failure before the write takes
        back what the change applied (what was accepted before stays); after it, the version is
        bumped and the rows published once, and with `goes_on` what follows a move follows."""
        change = Change(
            game, lambda rows: self._stored(lambda: self.log.append(game.record.id, rows))
        )
        try:
            yield change
            if change.abandoned:
                return
            change.write()
        except BaseException:
            change.roll_back()
            raise
        finally:
            if change.moved:
                self.moves += 1
        self._publish(change.write())
        if goes_on:
            self._go_on(game)

    def _go_on(self, game: OpenGame, ends: bool = True) -> None:
        """What follows a change of the state: the digital deck's draws (each logged before it
        counts), the question for a real draw nothing sees, and the end of a game that is over."""
        state = game.state
        while state.current_player == CHANCE and not state.observed_chance():
            with self._change(game, goes_on=False) as change:
                change.apply([game.deck(state)])
        asked = draw_question(game, self.seen, self.computers)
        if asked is not None:
            self.verdict = asked
            self._publish([])
        if ends and state.is_over and self.open is game:
            self.end(EndedBy.RULES)

    def _finish(self, game: OpenGame, by: EndedBy) -> dict[Language, dict[str, Any]]:
        """The ended game's end screen, in each language (English: `finished`), kept and
        given."""
        screens = end_screens(game, self.players, self.book, by)
        self.finished, self.finished_said = screens[Language.EN], screens
        return screens

    def _stored(self, write: Callable[[], T]) -> T:
        """A write to the log, or a refusal (HTTP 503) saying in one line that play is paused
        (`DISK_FULL`): what the service's status and every phone say until a write works
        again, which the table's next look (or anyone's next action) tries by itself."""
        try:
            written = write()
        except StoreError as error:
            problem = DISK_FULL if error.full else CANNOT_WRITE
            if self.store_problem != problem:
                self.store_problem = problem
                self._publish([])
                log.warning("%s: %s", problem, error)
            raise Refused(problem, Refusal.UNAVAILABLE) from None
        if self.store_problem is not None:
            self.store_problem = None
            self._publish([])
            log.info("the event log is written again: play goes on")
        return written

    def _publish(self, events: Sequence[Event]) -> None:
        """The one place the version moves: a change anyone may see, its rows told to listeners."""
        self.changes += 1
        for event in events:
            for listener in list(self.listeners):
                listener(event)


def computer_says(verdict: Verdict, computer_move: tuple[int, Action] | None) -> Verdict:
    """A verdict while a computer's move waits for the table: the move in the computer's name
    (`computer_move`, said at the edge) with what is left to do (or what went wrong)."""
    if computer_move is None or verdict.kind is VerdictKind.IN_SYNC:
        return verdict
    if verdict.kind is VerdictKind.INSTRUCTIONS:
        return dataclasses.replace(verdict, computer_move=computer_move, seat=computer_move[0])
    if verdict.kind is VerdictKind.ALERT:
        return dataclasses.replace(verdict, computer_move=computer_move)
    return verdict


def deck_of(log: EventLog, record: GameRecord) -> Deck:
    """A game's digital deck: its seed's (a test, a demo), else its secret's from the log."""
    if record.seed is not None:
        return SeededDeck(record.seed)
    secret = log.secret(record.id)
    if secret is None:
        raise StoreError(f"event log: game {record.id} has neither a seed nor a secret")
    return SecretDeck(secret, record.game)


def _hides_anything(state: State) -> bool:
    """Whether some seat sees what a spectator does not (a hand, a hidden split)."""
    public = state.view(None)
    players = int(state.options.get("players", 0))
    return any(state.view(seat) != public for seat in range(players))
