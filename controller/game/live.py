"""The game at the table: the engine state, the referee's verdicts acted on, the event log written.

`LiveGame` is the one place where the game changes. Settled observations (from the camera and the
sensor board) and actions from phones and seat buttons both come here, are checked by the same
engine, and every accepted change is written to the event log before anyone hears of it. It is
synchronous and single-threaded: only the thread of its `GameOwner` calls it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, TypeVar

from controller.game import players as named
from controller.game.access import Asker, Refusal, Refused, Role
from controller.game.phrasing import Phrasebook
from controller.game.players import TABLE_ROW, Player
from controller.game.store import (
    MAX_ROWS,
    Event,
    EventKind,
    EventLog,
    GameRecord,
    StoreError,
    action_entry,
    replay,
)
from controller.referee.deck import Deck, SecretDeck, SeededDeck, new_secret
from controller.referee.judge import Referee
from controller.referee.observe import Observation, Seen
from controller.referee.tables import Pieces, as_laid, changed_locations
from controller.referee.verdict import Alternative, Reason, Verdict, VerdictKind
from rules.ai.player import Level
from rules.core import CHANCE, Action, Decision, IllegalAction, State, Visibility
from rules.game import Game
from rules.registry import game_named, new_game

log = logging.getLogger("railtable")
Listener = Callable[[Event], None]
T = TypeVar("T")
TABLE_HANDS = "table"  # option `hands`: real cards held by the players, unknown to the engine
DISK_FULL = "event log: disk full — play is paused until space returns"
CANNOT_WRITE = "event log: cannot be written — play is paused until it can be"


class LiveGame:
    """The open game: state, referee, table as it lies, pending question; writes the log."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.listeners: list[Listener] = []
        self.record: GameRecord | None = None
        self.state: State | None = None
        self.info: Game[Any] | None = None
        self.referee: Referee | None = None
        self.table: dict[str, Pieces] = {}
        self.verdict: Verdict | None = None  # the last verdict, while it stands
        self.last_move: frozenset[str] = frozenset()  # locations the last players' move changed
        self.felt: tuple[str, ...] = ()  # felt by the sensor board, not yet seen by the camera
        self.seen: Observation | None = None  # the last settled table judged: which inputs see
        self._last_seat: int | None = None  # the seat whose action came last (asked for a draw)
        self.changes = 0  # counts every change anyone may see: the owner publishes on a new count
        self.store_problem: str | None = None  # why the last write failed, until one works
        self._written: dict[str, Any] | None = None  # the verdict last written to the log
        self.chosen: dict[int, dict[str, str]] = {}  # each seat's chosen name and colour
        self.finished: dict[str, Any] | None = None  # the game that ended last, for its end screen
        self.moves = 0  # counts every change of the state's history (a computer's decision
        # made for an older count is stale)
        self.computer_move: tuple[int, Action] | None = None  # a computer's action on the
        # table that the table does not show yet: its instruction stands until it does
        self.deck: Deck = SeededDeck(0)  # the open game's digital deck (`_load` sets it): its
        # secret never leaves this object, the log and a finished game's record

    # ---- games
    def resume(self) -> bool:
        """Rebuild the open game from the log, if there is one."""
        record = self.log.open_game()
        if record is None:
            return False
        self._load(record, self.log.replay(record))
        self.chosen = named.chosen(self.log.events(record.id, limit=MAX_ROWS))
        self._draw_chance()  # a plug pulled between a move and its draws: draw them now, the same
        self._ask_for_draws()
        return True

    def recall(self) -> bool:
        """No game open, and the last one is over: its end screen again (after a restart), with
        what it left on the table; False on a new table or with a game open."""
        record = self.log.last_game()
        if record is None or record.is_open:
            return False
        events = self.log.events(record.id, limit=MAX_ROWS)
        ends = [e.data for e in events if e.kind is EventKind.END]
        reason = str(ends[-1].get("reason") or "the game is over") if ends else "the game is over"
        self._load(record, replay(record, events))
        self.chosen = named.chosen(events)
        self.finished = self.summary(reason)
        self.record = None
        self.state = None
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
        lying = self.table  # what the last game left on the table, as far as it was seen
        self._load(record, state)
        self.finished = None
        if lying and self.referee is not None:
            # A new game on a table still holding pieces: the referee asks to clear them
            # rather than read them as the new game's moves.
            self.table = {n: self.referee.canonical(ps) for n, ps in lying.items()}
        self._publish([event])
        self._draw_chance()
        self._ask_for_draws()
        return state

    def end(self, reason: str = "ended by the host") -> None:
        record, state = self._open()
        scores = state.scores()
        event = self._stored(lambda: self.log.end_game(record.id, scores, reason))
        self.finished = self.summary(reason)
        self._publish([event])
        self.record = None
        self.state = None
        self.verdict = None
        self.changes += 1

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
        if asker.role is not Role.HOST:
            raise Refused("only the host seats the computer", Refusal.NOT_ALLOWED)
        record, state = self._open()
        count = int(state.options.get("players", 0))
        if not 0 <= seat < count:
            raise Refused(f"this game has {count} players: no player {seat + 1}")
        if level is not None:
            if level not in tuple(Level):
                raise Refused(f"level {level!r}: one of {', '.join(Level)}", Refusal.REFUSED)
            if state.options.get("hands") == TABLE_HANDS:
                raise Refused(
                    "the computer cannot play with real cards (hands dealt by hand): start the "
                    "game with the table dealing the hands"
                )
        events = self._write(record.id, [(seat, EventKind.PLAYER, {"computer": level or ""})])
        self.chosen.setdefault(seat, {})["computer"] = level or ""
        self._publish(events)
        return self.players[seat]

    def set_hints(self, asker: Asker, on: bool) -> None:
        """The host lets seats ask for hints, or not (kept in the log)."""
        if asker.role is not Role.HOST:
            raise Refused("only the host switches hints", Refusal.NOT_ALLOWED)
        record, _ = self._open()
        said = "on" if on else "off"
        events = self._write(record.id, [(None, EventKind.PLAYER, {"hints": said})])
        self.chosen.setdefault(TABLE_ROW, {})["hints"] = said
        self._publish(events)

    def computer_to_act(self) -> int | None:
        """The computer seat to decide now, if one is: its turn, and the table as the rules
        expect (a move of its own still to be laid, an alert, a wait: not yet)."""
        state = self.state
        if state is None or state.is_over or self.store_problem is not None:
            return None
        seat = state.current_player
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
        record, state = self._open()
        if moves != self.moves or self.computer_to_act() != seat:
            return False
        verdict = self.verdict
        if verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT:
            picked = [o for o in verdict.options if o.actions == (action,)]
            if not picked:
                return False
            self._commit(record, state, list(picked[0].actions))
            return True
        self._commit(record, state, [action])
        if action.VISIBILITY is Visibility.TABLE:
            self.computer_move = (seat, state.history[-1] if state.history else action)
            if self.seen is not None and self.referee is not None and self.state is not None:
                self.observe(self.seen)  # its instruction at once, on the table as last seen
        return True

    def _computer_says(self, verdict: Verdict) -> Verdict:
        """A verdict while a computer's move waits for the table: the move in the computer's
        name first, then what is left to do (or what went wrong)."""
        if self.computer_move is None:
            return verdict
        if verdict.kind is VerdictKind.IN_SYNC:
            self.computer_move = None
            return verdict
        if verdict.kind is VerdictKind.INSTRUCTIONS:
            seat = self.computer_move[0]
            return dataclasses.replace(verdict, computer_move=self.computer_move, seat=seat)
        if verdict.kind is VerdictKind.ALERT:
            return dataclasses.replace(verdict, computer_move=self.computer_move)
        return verdict

    # ---- players
    @property
    def players(self) -> tuple[Player, ...]:
        """Each seat's player: name and colour (the game's piece colour where it has one)."""
        count = int(self.state.options.get("players", 0)) if self.state is not None else 0
        return named.players(self.info, self.state, count, self.chosen)

    @property
    def book(self) -> Phrasebook:
        """The open game's words: its places' and cards' names, its players' names."""
        return Phrasebook.of(self.info, self.players)

    def name_player(
        self, asker: Asker, seat: int, name: str | None = None, colour: str | None = None
    ) -> Player:
        """A seat's player names themself (or the host names them): kept in the log."""
        record, state = self._open()
        count = int(state.options.get("players", 0))
        if asker.role is Role.SPECTATOR or (asker.role is Role.SEAT and asker.seat != seat):
            raise Refused(
                "a player names only themself (the host may name anyone)", Refusal.NOT_ALLOWED
            )
        if not 0 <= seat < count:
            raise Refused(f"this game has {count} players: no player {seat + 1}")
        if seat in self.computers:
            raise Refused(f"seat {seat} is the computer's: the host takes it back first")
        data: dict[str, str] = {}
        if name is not None:
            data["name"] = named.check_name(name)
            taken = [p.name.casefold() for p in self.players if p.seat != seat]
            if data["name"].casefold() in taken:
                raise Refused(f"{data['name']} is already playing: pick another name")
        if colour is not None:
            if not named.colour_choice(self.info):
                raise Refused("in this game your colour is your pieces' colour")
            data["colour"] = named.check_colour(colour)
        if not data:
            raise Refused("say a name or a colour", Refusal.REFUSED)
        now = self.players[seat]
        if all(getattr(now, key) == value for key, value in data.items()):
            return now  # the same name and colour again: nothing to log
        events = self._write(record.id, [(seat, EventKind.PLAYER, data)])
        self.chosen.setdefault(seat, {}).update(data)
        self._publish(events)
        return self.players[seat]

    def summary(self, reason: str) -> dict[str, Any]:
        """The open game as its end screen shows it: winners, scores and what they are made of."""
        record, state = self._open()
        scores = state.scores()
        top = max(scores) if scores else 0
        assert self.info is not None
        return {
            "id": record.id,
            "game": record.game,
            "title": self.info.title,
            "options": dict(state.options),
            "reason": reason,
            "players": [p.to_json() for p in self.players],
            "scores": scores,
            "score_parts": [
                [{"what": what, "points": points} for what, points in parts]
                for parts in state.score_parts()
            ],
            "winners": [seat for seat, points in enumerate(scores) if points == top],
        }

    def _load(self, record: GameRecord, state: State) -> None:
        self.deck = self._deck(record)
        self.changes += 1
        self.chosen = {}
        self.record = record
        self.state = state
        self.info = game_named(record.game)
        self.referee = Referee(self.info)
        self.table = self.referee.table_of(state)
        self.verdict = None
        self.last_move = frozenset()
        self.felt = ()
        self._written = None
        self._last_seat = None
        self.moves += 1
        self.computer_move = None

    def _deck(self, record: GameRecord) -> Deck:
        """The game's digital deck: its seed's (a test, a demo), else its secret's from the log."""
        if record.seed is not None:
            return SeededDeck(record.seed)
        secret = self.log.secret(record.id)
        if secret is None:
            raise StoreError(f"event log: game {record.id} has neither a seed nor a secret")
        return SecretDeck(secret, record.game)

    def _open(self) -> tuple[GameRecord, State]:
        if self.record is None or self.state is None:
            raise Refused("no game is open: the host starts one", Refusal.NOT_NOW)
        return self.record, self.state

    # ---- the table
    def observe(
        self, observation: Observation, acting_on: Collection[VerdictKind] | None = None
    ) -> Verdict | None:
        """Judge a settled observation and act on the verdict; None when no game can judge it.

        `acting_on`: the verdict kinds acted on (None: every kind); any other verdict is left
        unsaid (None), as the table's settler asks while only the sensor board has settled."""
        record, state = self._open()
        if self.referee is None or state.is_over:
            return None
        verdict = self.referee.judge(
            state, observation, self.table, self.deck, frozenset(self.computers)
        )
        if acting_on is not None and verdict.kind not in acting_on:
            return None
        verdict = self._computer_says(verdict)
        self.seen = observation
        self.felt = ()
        entries: list[tuple[int | None, EventKind, Any]] = []
        applied: list[tuple[int | None, Action]] = []
        if verdict.kind in (VerdictKind.APPLIED, VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            applied = self._apply_all(state, list(verdict.actions))
            entries += [action_entry(seat, action) for seat, action in applied]
        said = verdict.to_json()
        if applied or said != self._written:  # a verdict that has not changed is not written again
            if verdict.kind is VerdictKind.ALERT:
                entries.append((None, EventKind.ALERT, said))
            elif verdict.kind is VerdictKind.INSTRUCTIONS or verdict.instructions:
                entries.append((None, EventKind.INSTRUCTION, said))
            if verdict.kind is not VerdictKind.IN_SYNC or self.verdict is not None:
                entries.append((verdict.seat, EventKind.VERDICT, said))
        try:
            events = self._write(record.id, entries) if entries else []
        except BaseException as error:
            for _ in applied:
                state.undo()
            if isinstance(error, Refused):
                return None  # nothing applied: the table is judged again once the log is back
            raise
        if entries:
            self._written = said
        if verdict.settles_table:
            referee = self.referee
            self.table = as_laid(self.table, observation, referee.table_of(state), referee.fits)
        self.verdict = None if verdict.kind is VerdictKind.IN_SYNC else verdict
        self.changes += 1
        self._publish(events)
        self._draw_chance()
        self._ask_for_draws()
        self._check_end()
        return verdict

    def feel(self, locations: Iterable[str]) -> None:
        """Locations where the sensor board felt a piece come or go that the camera has not seen
        yet (the move is judged once it has): phones show them at once."""
        felt = tuple(sorted(locations))
        if felt != self.felt:
            self.felt = felt
            self.changes += 1

    # ---- actions no sensor sees
    def act(self, asker: Asker, action: Mapping[str, Any]) -> list[Event]:
        """An action from a phone or a seat button, checked by the engine; the host may act for
        the seat whose turn it is. The rules' reason for a refusal goes to the seat's own phone;
        anyone else acting for it, while the game hides anything from anyone, hears only that the
        move is not legal now (the reason may tell what a hidden hand holds: "seat 0 does not
        hold bo-3", and probing would read the hand)."""
        record, state = self._open()
        if asker.role is Role.SPECTATOR:
            raise Refused("a spectator cannot act: join a seat first", Refusal.NOT_ALLOWED)
        try:
            parsed = state.parse_action(action)
        except IllegalAction as error:
            raise Refused(str(error), Refusal.REFUSED) from None
        seat = state.current_player
        if parsed.CHANCE_OUTCOME and asker.role is not Role.HOST:
            raise Refused("only the host enters a physical draw", Refusal.NOT_ALLOWED)
        if parsed.DECISION is Decision.HOST and asker.role is not Role.HOST:
            raise Refused(f"only the host decides {parsed.TYPE}", Refusal.NOT_ALLOWED)
        if parsed.DECISION is Decision.HIDDEN and asker.role is Role.HOST:
            raise Refused(
                f"a hidden choice is seat {seat}'s alone: made on their own phone",
                Refusal.NOT_ALLOWED,
            )
        if asker.role is Role.SEAT and asker.seat != seat:
            raise Refused(
                f"it is not seat {asker.seat}'s turn to act (seat {seat} is)", Refusal.NOT_ALLOWED
            )
        if seat in self.computers and not parsed.CHANCE_OUTCOME:
            raise Refused(
                f"seat {seat} is the computer's: it makes its own moves", Refusal.NOT_ALLOWED
            )
        own = asker.role is Role.SEAT and asker.seat == seat
        try:
            return self._commit(record, state, [parsed])
        except Refused as refusal:
            if own or refusal.why is not Refusal.REFUSED or parsed.CHANCE_OUTCOME:
                raise
            if not _hides_anything(state):
                raise  # nothing is hidden: the reason tells nothing anyone cannot see
            raise Refused(f"not a legal move for seat {seat} now", Refusal.REFUSED) from None

    def answer(self, asker: Asker, option: int) -> list[Event]:
        """The seat's pick for the referee's question (a choice, or an input nothing shows)."""
        verdict = self.verdict
        if verdict is None or verdict.kind not in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            raise Refused("there is no question to answer", Refusal.NOT_NOW)
        if (
            asker.role is Role.SPECTATOR
            or (asker.role is Role.SEAT and asker.seat != verdict.seat)
            or (asker.role is Role.HOST and verdict.hidden)
        ):
            who = "the host" if verdict.seat is None else f"seat {verdict.seat}"
            alone = " alone (a hidden choice)" if verdict.hidden else ""
            raise Refused(f"the question is for {who}{alone}", Refusal.NOT_ALLOWED)
        if verdict.seat is not None and verdict.seat in self.computers:
            raise Refused(
                f"seat {verdict.seat} is the computer's: it answers itself", Refusal.NOT_ALLOWED
            )
        if not 0 <= option < len(verdict.options):
            raise Refused(
                f"option {option} is not one of 0..{len(verdict.options) - 1}", Refusal.REFUSED
            )
        record, state = self._open()
        return self._commit(record, state, list(verdict.options[option].actions))

    def _commit(self, record: GameRecord, state: State, actions: list[Action]) -> list[Event]:
        """Apply actions a person gave, log them (on disk before anyone hears), then go on."""
        self._written = None  # the game moved on: the next verdict is news
        applied = self._apply_all(state, actions)
        try:
            events = self._write(record.id, [action_entry(s, a) for s, a in applied])
        except BaseException:
            for _ in applied:
                state.undo()
            raise
        self.verdict = None
        self._publish(events)
        self._draw_chance()
        self._ask_for_draws()
        self._check_end()
        return events

    def undo(self, asker: Asker, count: int = 1) -> list[Event]:
        """The host takes back the last `count` players' actions (and the draws after them)."""
        if asker.role is not Role.HOST:
            raise Refused("only the host can undo (enter the table PIN)", Refusal.NOT_ALLOWED)
        record, state = self._open()
        taken = 0
        undone = 0
        taken_back: list[Action] = []
        while taken < count:
            if not state.history:
                break
            action = state.undo()
            taken_back.append(action)
            undone += 1
            if not action.CHANCE_OUTCOME:
                taken += 1
        if not undone:
            raise Refused("nothing to undo", Refusal.NOT_NOW)
        self._written = None
        try:
            events = self._write(record.id, [(None, EventKind.UNDO, {"count": undone})])
        except BaseException:
            for action in reversed(taken_back):
                state.apply(action)  # not on disk: not taken back
            raise
        if self.referee is not None:
            # the table as it lies: what was last seen, not what the rules now expect. A move
            # undone while its pieces still lie there is not read again from the same table:
            # the referee shows what to take off or put back until the table changes
            rules = self.referee.table_of(state)
            seen = self.seen
            self.table = (
                rules if seen is None else as_laid(self.table, seen, rules, self.referee.fits)
            )
        self.verdict = None
        self.last_move = frozenset()
        self.moves += 1
        self.computer_move = None
        self._publish(events)
        return events

    def accept_table(self, asker: Asker) -> None:
        """The host says the table as it lies now is right (after correcting it by hand)."""
        if asker.role is not Role.HOST:
            raise Refused("only the host can correct the board", Refusal.NOT_ALLOWED)
        _, state = self._open()
        if self.referee is not None:
            self.table = self.referee.table_of(state)
        self.verdict = None
        self.changes += 1

    # ---- helpers
    def _apply_all(self, state: State, actions: list[Action]) -> list[tuple[int | None, Action]]:
        """Apply in order, atomically: on a refusal nothing stays applied. A players' move
        (not a draw alone) becomes `last_move`: the locations whose pieces it changed."""
        done: list[tuple[int | None, Action]] = []
        before = self.referee.table_of(state) if self.referee is not None and actions else None
        self.moves += 1
        try:
            for action in actions:
                seat = state.current_player
                state.apply(action)
                done.append((seat, state.history[-1]))
                if seat is not None and seat >= 0:
                    self._last_seat = seat
        except IllegalAction as error:
            for _ in done:
                state.undo()
            raise Refused(str(error), Refusal.REFUSED) from None
        moved = any(not action.CHANCE_OUTCOME for _, action in done)
        if before is not None and self.referee is not None and moved:
            self.last_move = changed_locations(before, self.referee.table_of(state))
        return done

    def _write(self, game_id: int, entries: list[tuple[int | None, EventKind, Any]]) -> list[Event]:
        """Rows on disk, or a refusal saying the log cannot be written (a full disk)."""
        return self._stored(lambda: self.log.append(game_id, entries))

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
                self.changes += 1
                log.warning("%s: %s", problem, error)
            raise Refused(problem, Refusal.UNAVAILABLE) from None
        if self.store_problem is not None:
            self.store_problem = None
            self.changes += 1
            log.info("the event log is written again: play goes on")
        return written

    def _draw_chance(self) -> None:
        """Resolve pending chance with the digital deck; each draw is logged before it counts."""
        record, state = self._open()
        while state.current_player == CHANCE and not state.observed_chance():
            outcome = self.deck(state)
            state.apply(outcome)
            self.moves += 1
            try:
                events = self._write(record.id, [action_entry(CHANCE, state.history[-1])])
            except BaseException:
                state.undo()
                raise
            self._publish(events)

    def _ask_for_draws(self) -> None:
        """A real draw nothing on the table shows (a gem from the bag), or one no input here
        sees (a tile's face with the sensor board alone): ask the seat that drew it (the seat
        whose action came last; else the host) which."""
        state = self.state
        if state is None or state.current_player != CHANCE or not state.observed_chance():
            return
        outcomes = [a for a, p in state.chance_outcomes() if p > 0]
        if not outcomes:
            return
        if all(a.VISIBILITY is Visibility.TABLE for a in outcomes):
            if self._inputs_see(state, outcomes):
                return  # the camera will see it (a card in the reveal slot)
            seat = self._last_seat
            if seat in self.computers:
                seat = None  # no phone holds the computer's seat: the host says what came up
        else:
            seat = None
        options = tuple(Alternative((a,)) for a in outcomes)
        self.changes += 1
        self.verdict = Verdict(VerdictKind.NEEDS_INPUT, Reason.CAME_UP, options=options, seat=seat)

    def _inputs_see(self, state: State, outcomes: list[Action]) -> bool:
        """Whether the inputs of the table last judged tell each outcome on the table (a camera
        over the location it changes, or the sensor board where it moves a magnet); True
        before any table was judged."""
        seen, referee = self.seen, self.referee
        if seen is None or referee is None:
            return True
        before = referee.table_of(state)
        for outcome in outcomes:
            with state.applied([outcome]):
                after = referee.table_of(state)
            for name in changed_locations(before, after):
                if seen.camera_covers(name):
                    break
                if seen.view(name).seen is Seen.MAGNET and (
                    any(referee.is_magnetic(p.piece) for p in before.get(name, ()))
                    != any(referee.is_magnetic(p.piece) for p in after.get(name, ()))
                ):
                    break
            else:
                return False
        return True

    def _check_end(self) -> None:
        if self.state is not None and self.state.is_over and self.record is not None:
            words = self.info.words if self.info is not None else None
            ended = words.ended if words is not None else "the game is over"
            reason = str(self.state.to_json().get("end_reason") or ended)
            self.end(reason)

    def _publish(self, events: list[Event]) -> None:
        self.changes += 1
        for event in events:
            for listener in list(self.listeners):
                listener(event)


def _hides_anything(state: State) -> bool:
    """Whether some seat sees what a spectator does not (a hand, a hidden split)."""
    public = state.view(None)
    players = int(state.options.get("players", 0))
    return any(state.view(seat) != public for seat in range(players))
