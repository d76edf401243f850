"""Computer players at the table: each decision is searched off the owner's critical path (in a
process of its own, waited on by a worker thread) and comes back to the owner as a command.

The owner (on its own thread) notices that a computer seat is to act (`LiveGame.computer_to_act`),
hands the worker a copy of the state (`State.fork(history=True)`: the worker never touches the
live game) and goes on at once. The worker has `rules.ai.decide` run in the search process
(`controller.game.search_process`: the service's interpreter never waits on a search; should
that process fail, the worker searches itself) and queues the decision back to
the owner, tagged with the state's move count: a decision for a state that has since changed
(an undo, a new game, the host taking the seat back) is dropped; one that arrives while the table
is not ready (a piece still to lay, an alert) waits until it is. The same worker answers a seat's
hint ("what would you do?"): the normal level's move and one line of why, for that seat alone.
A search gets the state and a seed keyed by the game's secret (`Deck.search_seed`), never the
secret: it guesses the cards it cannot see (`State.determinise`), as a player would.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from controller.game.access import Asker, Refusal, Refused, own_seat
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.search_process import SearchFailed, SearchProcess
from rules.ai.player import Decision, Level, decide, why_line
from rules.ai.search import Budget
from rules.core import Action, State

log = logging.getLogger("railtable")

STRONG_FACTOR = 3  # the strong level searches this many times the normal level's budget
MAX_QUEUED = 4  # searches waiting for the worker at most (hints beyond it are refused)


@dataclass(frozen=True)
class Hint:
    """What the normal level would do for the asking seat, and why, in players' words."""

    seat: int
    move: str
    why: str
    action: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "move": self.move, "why": self.why, "action": self.action}


@dataclass
class ComputerStats:
    """What the computer players did, for tests and the status."""

    decided: int = 0  # decisions the worker made
    played: int = 0  # decisions taken into the game
    dropped: int = 0  # decisions for a state that had changed
    failed: int = 0  # searches that raised (the easy level played instead)
    searched_here: int = 0  # searches the worker thread made itself (the search process failed)
    search_processes: int = 0  # search processes started (more than 1: one failed and was replaced)
    hints: int = 0
    busy_s: float = 0.0  # the worker's time spent searching


@dataclass(frozen=True)
class _Job:
    state: State
    level: Level
    seed: int
    budget: Budget | None
    done: Callable[[Decision], None] = field(compare=False)


class ComputerPlayers:
    """The table's computer players and hints: one worker thread, decisions back as commands."""

    def __init__(self, owner: GameOwner, iterations: int = 0) -> None:
        self.owner = owner
        self.iterations = iterations  # > 0: a budget of iterations (tests), else the level's time
        self.stats = ComputerStats()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._queued = 0
        self._lock = threading.Lock()  # guards `_queued` (the owner and the HTTP loop add jobs)
        self._thread: threading.Thread | None = None
        self.searcher = SearchProcess()
        self._asked: tuple[int, int] | None = None  # the (game, moves) being decided for
        self._ready: tuple[tuple[int, int], int, Action] | None = None  # decided, not yet taken

    # ---- the worker
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._work, name="railtable-computer", daemon=True
            )
            self._thread.start()

    def _work(self) -> None:
        import time

        while True:
            job = self._jobs.get()
            if job is None:
                break
            began = time.monotonic()
            try:
                decision = self._search(job)
            except Exception:  # a search that fails must not leave the table waiting
                log.exception("the computer's search failed: the easy level plays instead")
                self.stats.failed += 1
                decision = decide(job.state, Level.EASY, job.seed)
            self.stats.busy_s += time.monotonic() - began
            try:
                job.done(decision)
            finally:  # busy until its decision is queued to the owner
                with self._lock:
                    self._queued -= 1
        self.searcher.close()

    def _search(self, job: _Job) -> Decision:
        """The job's decision from the search process; on this thread if that process fails."""
        try:
            return self.searcher.decide(job.state, job.level, job.seed, job.budget)
        except SearchFailed as error:
            log.warning("%s: the computer searches on the service's own thread instead", error)
            self.stats.searched_here += 1
            return decide(job.state, job.level, job.seed, job.budget)
        finally:
            self.stats.search_processes = self.searcher.started

    def _queue(self, job: _Job, limit: int | None = None) -> bool:
        with self._lock:
            if limit is not None and self._queued >= limit:
                return False
            self._queued += 1
        self._start()
        self._jobs.put(job)
        return True

    @property
    def busy(self) -> bool:
        """Whether a search is queued or under way."""
        with self._lock:
            return self._queued > 0

    def stop(self) -> None:
        """Let the worker end after the search at hand (its result is then dropped), and the
        search process with it."""
        if self._thread is not None:
            self._jobs.put(None)  # the worker closes the search process as it ends
        else:
            self.searcher.close()  # started ahead of a first search that never came

    def budget(self, level: Level) -> Budget | None:
        """The search's budget: iterations where configured (the strong level 3 times as many),
        else None: the level's own (`rules.ai.player.level_budget`)."""
        if self.iterations <= 0 or level is Level.EASY:
            return None
        factor = STRONG_FACTOR if level is Level.STRONG else 1
        return Budget(iterations=self.iterations * factor)

    # ---- on the owner's thread
    def step(self) -> None:
        """Called by the owner between commands: a computer seat to act gets its decision
        started (or taken, if it came while the table was not ready)."""
        game = self.owner.game
        if game.computers and self.searcher.started == 0:
            self.searcher.start()  # its imports before its first search (a second or two on a Pi)
        seat, opened = game.computer_to_act(), game.open
        if seat is None or opened is None:
            return
        key = (opened.record.id, game.moves)
        if self._ready is not None:
            ready_key, ready_seat, action = self._ready
            if ready_key != key:
                self._ready = None
                self.stats.dropped += 1
            else:
                if game.play_computer(ready_seat, game.moves, action):
                    self._ready = None
                    self.stats.played += 1
                    self.owner.wake()
                return
        if self._asked == key:
            return  # being worked out
        self._asked = key
        level = game.computers[seat]
        state = opened.state.fork(history=True)
        seed = opened.deck.search_seed(game.moves)  # keyed by the secret, never the secret
        job = _Job(state, level, seed, self.budget(level), lambda d: self._came(key, seat, d))
        self._queue(job)

    def _came(self, key: tuple[int, int], seat: int, decision: Decision) -> None:
        """From the worker: queue the decision to the owner as a command."""
        self.stats.decided += 1
        self.owner.submit(lambda game: self._arrived(game, key, seat, decision.action))
        self.owner.wake()

    def _arrived(self, game: LiveGame, key: tuple[int, int], seat: int, action: Action) -> None:
        if self._asked == key:
            self._asked = None
        current = (game.open.record.id, game.moves) if game.open is not None else None
        if current != key:
            self.stats.dropped += 1  # stale: the state changed while it was searched
            return
        if game.play_computer(seat, game.moves, action):
            self.stats.played += 1
        else:
            self._ready = (key, seat, action)  # the table is not ready: taken once it is
        self.owner.wake()

    # ---- hints
    def hint(self, asker: Asker) -> Future[Hint]:
        """The normal level's move for the asking seat, on its turn, with one line of why:
        worked out on the worker, for that seat alone (it may rest on its hand)."""
        answer: Future[Hint] = Future()

        def ask(game: LiveGame) -> None:
            job = self._hint_job(game, asker, answer)
            if not self._queue(job, MAX_QUEUED):
                raise Refused("the computer is busy: ask again in a moment", Refusal.NOT_NOW)

        asked = self.owner.submit(ask)

        def failed(done: Future[None]) -> None:
            error = done.exception()
            if error is not None and not answer.done():
                answer.set_exception(error)

        asked.add_done_callback(failed)
        return answer

    def _hint_job(self, game: LiveGame, asker: Asker, answer: Future[Hint]) -> _Job:
        if not game.hints:
            raise Refused("the host has switched hints off", Refusal.NOT_ALLOWED)
        seat = own_seat(asker, "a hint")
        if game.open is None:
            raise Refused("no game is open: the host starts one", Refusal.NOT_NOW)
        opened = game.open
        if seat in game.computers:
            raise Refused(f"seat {seat} is the computer's", Refusal.NOT_ALLOWED)
        if opened.state.current_player != seat:
            raise Refused("a hint is for your turn: wait until it is", Refusal.NOT_NOW)
        book = game.book
        state = opened.state.fork(history=True)

        def done(decision: Decision) -> None:
            self.stats.hints += 1
            move = decision.action.words(book.words.name)
            why = why_line(decision.result, book.words.place, book.words.seat)
            answer.set_result(Hint(seat, move, why, decision.action.to_json()))

        seed = opened.deck.search_seed(game.moves) ^ 0x5EED
        return _Job(state, Level.NORMAL, seed, self.budget(Level.NORMAL), done)
