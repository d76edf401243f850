"""The table service: camera and sensor board in, the referee, the event log, the LEDs.

Its tick runs on the thread of the game's owner (`GameOwner`), between the commands that phones,
buttons and the host send: it takes the camera's newest view and the board's snapshot, fuses
them, waits for the table to settle, hands a settled observation to the live game, and acts on the
verdict (LEDs under the squares concerned). Blocking sources and heavy work run on threads of
their own (the camera reader and the vision pipeline in a process of their own, the board link,
the virtual board) and only wake the owner. With no hardware configured
the simulated table stands in and bots play on it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.game.access import Asker, Refused, SeatTokens
from controller.game.computers import ComputerPlayers
from controller.game.host_sessions import HostSessions
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader
from controller.referee.observe import Observation
from controller.referee.verdict import Verdict
from controller.table.gpio import TableIO
from controller.table.inputs import SIMULATED, TableInputs, wire_inputs
from controller.table.lights import Lights
from controller.table.memory import TRIM_EVERY_S, give_back, map_big_blocks
from controller.table.pacing import Every, Pacing
from controller.table.settings import ServiceSettings as ServiceSettings
from controller.table.settler import BOARD_FIRST_VERDICTS, Glance, Settle, Settler
from controller.table.speech import EspeakSpeaker, Narrator, Speaker, Speech, Voice, choose_speech
from controller.table.systemd import notify, watchdog_interval
from controller.venue.publisher import VenuePublisher
from rules.core import Visibility

log = logging.getLogger("railtable")


class TableService:
    """Everything at the table, started by `start()` and run by `run()`: the live game and its
    owner, the phones' keys, the inputs (`inputs.py`), when they have settled (`settler.py`),
    the lights (`lights.py`), the voice and the venue."""

    def __init__(self, settings: ServiceSettings, io: TableIO | None = None) -> None:
        """`io`: the table's own pins (seat buttons, turn LEDs, buzzer; a test's mock), else
        those `settings.gpio` name."""
        self.settings = settings
        map_big_blocks()  # frames never linger in malloc's heaps (controller/table/memory.py)
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        path = settings.data_dir / "railtable.sqlite3"
        self.log = EventLog(path)
        self.reader = LogReader(path)
        self.game = LiveGame(self.log)
        self.owner = GameOwner(
            self.game, tick=self._tick, tick_s=settings.tick_s, status=self.status
        )
        self.computers = ComputerPlayers(self.owner, settings.ai_iterations)
        self.pin = settings.pin or _stored_pin(settings.data_dir)
        self.tokens = SeatTokens(settings.data_dir / "seats.json")
        self.host_sessions = HostSessions(self.pin, settings.data_dir / "host-sessions.json")
        self.lockout_cleared: list[Callable[[], int]] = []  # the API's wrong-PIN limiters
        self.card_folder = settings.data_dir / "cards"  # card files a host may name from a phone
        self.inputs = TableInputs()  # none wired until a game is open
        self.settler = Settler(settings.settle_ticks)
        self._threaded = False  # the owner runs on a thread of its own
        self._camera_process = False  # the camera reads in a process of its own
        self.started_at = time.time()
        watchdog_s = watchdog_interval()
        self._pace = Pacing(
            watchdog=None if watchdog_s is None else Every(watchdog_s, watchdog_s),
            trim=Every(TRIM_EVERY_S, time.monotonic() + TRIM_EVERY_S),
            bots=Every(settings.bot_period_s),
            frames=Every(settings.camera_period_s),
        )
        self.on_stop: Any = None  # set by whoever serves the API: stop serving too
        self.io = io if io is not None else TableIO(settings.gpio)
        self.lights = Lights(self.game, self.io)
        self.voice: Voice | None = None
        self.speech = choose_speech(settings.speech, SIMULATED in (settings.board, settings.camera))
        if self.speech.on:
            card = self.speech.card
            voice = settings.language.voice
            self.speak_with(EspeakSpeaker(card=None if card is None else card.id, voice=voice))
        elif settings.speech is Speech.AUTO:
            log.info("%s", self.speech.reason)
        self.venue: VenuePublisher | None = None
        if settings.venue is not None:
            self.venue = VenuePublisher(
                settings.venue,
                self.reader,
                settings.data_dir,
                lambda: (self.owner.snapshot, self.owner.status),
            )
            publisher = self.venue
            self.game.listeners.append(lambda _: publisher.wake())

    def speak_with(self, speaker: Speaker) -> Voice:
        """The table speaks through `speaker` (espeak-ng; a test's fake), off the owner's thread."""
        self.voice = Voice(speaker)
        narrator = Narrator(self.game, self.voice, self.settings.language)
        self.game.listeners.append(narrator.heard)
        return self.voice

    # ---- life cycle
    def start(self, thread: bool = True, camera_process: bool | None = None) -> None:
        """Start the owner (on its own thread, unless a test drives `owner.pump()` itself); on
        it, resume the open game or start the default one, and start the inputs. The camera
        reads in a process of its own (`camera_process`; default: when the owner has a thread;
        else the tick steps it)."""
        self.io.on_done = lambda seat: self._submit(lambda: self.done(seat))
        self.io.on_shutdown = lambda: self._submit(self.shut_down)
        self.io.on_clear_lockout = lambda: self._submit(self.clear_lockout)
        self._threaded = thread
        self._camera_process = thread if camera_process is None else camera_process
        if thread:
            self.owner.start()
            self.owner.call_sync(lambda _: self._open())
        else:
            self._open()
        if self.venue is not None:
            self.venue.start()
        if self.voice is not None:
            self.voice.start()

    def _open(self) -> None:
        """Resume the open game; else show the last game's end screen until the host starts
        another (a restart must not hide who won); else, on a new table, start the default game."""
        if self.game.resume():
            self._wire()
        elif self.game.recall():
            log.info("the last game is over: its end screen stays until the host starts another")
            health = self.inputs.health
            for input_health in (health.camera, health.board):
                input_health.set("waiting", "no game open: the host starts the next one")
        else:
            s = self.settings
            self.game.start(s.game, {**s.options, "players": s.players}, s.seed)
            self._wire()
        notify("READY=1")

    def _wire(self) -> None:
        """Camera, sensor board and (simulated) table for the open game's mat."""
        self.inputs = wire_inputs(
            self.settings, self.game, self.inputs.health, self.owner.wake, self._camera_process
        )

    def _follow_game(self) -> None:
        """A game on another mat was started (from a phone): the inputs follow it."""
        opened = self.game.open
        if opened is None:
            return
        info = opened.info
        if info.layout is None:
            return
        if info.layout(opened.state.options) != self.inputs.layout:
            log.info("the mat changed to %s: the inputs follow", info.title)
            self.inputs.stop()
            self.settler.forget()
            self.lights.board_changed()
            self._wire()

    def done(self, seat: int) -> None:
        """A seat's "done" button: the one unseen action that ends its phase, if there is one."""
        opened = self.game.open
        if opened is None or opened.state.current_player != seat:
            return
        state = opened.state
        ending = [
            a
            for a in state.legal_actions()
            if a.VISIBILITY is Visibility.IMPLIED and list(a.to_json()) == ["type"]
        ]
        if len(ending) == 1:
            try:
                self.game.act(Asker.at(seat), ending[0].to_json())
            except Refused as error:
                log.info("done button of seat %s: %s", seat, error)
        self.owner.wake()

    def shut_down(self) -> None:
        """The shutdown button held: stop the service cleanly (systemd may power off after)."""
        log.warning("shutdown button held: stopping")
        if self.on_stop is not None:
            self.on_stop()

    def clear_lockout(self) -> None:
        """The shutdown button pressed briefly: forget every wrong PIN, so the host may enter
        the PIN at once, whatever guessers on the network did (one line in the log)."""
        forgotten = sum(clear() for clear in self.lockout_cleared)
        log.warning(
            "shutdown button pressed briefly: wrong-PIN lock-out cleared (%d wrong PINs forgotten)",
            forgotten,
        )

    def _submit(self, call: Any) -> None:
        """Hand `call` to the owner's thread (from a gpiozero thread)."""
        self.owner.submit(lambda _: call())

    def _tick(self) -> None:
        self.tick()

    def stop(self) -> None:
        """Stop the owner, let go of the inputs and close the log (on the owner's thread)."""
        if self.venue is not None:
            self.venue.stop()
        if self.voice is not None:
            self.voice.stop()
        if self.owner.thread_ident is not None and not self.owner.on_owner_thread:
            try:
                self.owner.call_sync(lambda _: self._close(), timeout=15)
            except Exception:  # an owner already stopped: close from here
                log.exception("closing on the owner's thread failed")
            self.owner.stop()
        else:
            self._close()
            self.owner.stop()

    def _close(self) -> None:
        self.computers.stop()
        self.host_sessions.save()  # their last use, so a restart keeps the idle clock
        self.io.close()
        self.inputs.stop()
        self.log.close()

    def wake(self) -> None:
        """Something changed: look at the table again soon."""
        self.owner.wake()

    # ---- the tick
    def tick(self) -> Verdict | None:
        """One tick on the owner's thread; returns the verdict if the table was judged."""
        now = time.monotonic()
        pace = self._pace
        if pace.watchdog is not None and pace.watchdog.due(now):
            notify("WATCHDOG=1")  # a hung owner stops this, and systemd restarts us
        if pace.trim.due(now):  # what a burst of phones or frames freed goes back
            give_back()
        if self.game.open is None:
            return None
        self._follow_game()
        inputs = self.inputs
        if pace.frames.due(now):
            inputs.step_camera()  # no process of its own (a test driving the table): here
        view = inputs.camera_view()
        observed = self.observe()
        self.lights.show_destinations(observed, inputs.link)
        glance = Glance(
            observed,
            camera_still=view is None or view.still,
            shown_version=-1 if view is None else view.version,
            table_version=inputs.table_version,
            changes=self.game.changes,
            store_failing=self.game.store_problem is not None,
        )
        verdict = None
        settle = self.settler.look(glance, now)
        if settle is Settle.JUDGE:
            # judged again when the game changed from a phone (an answer, a decision, an
            # undo): what the table showed beyond the question is read now
            verdict = self.game.observe(observed)
            self.settler.judged(self.game.changes, self.game.store_problem is None, now)
            self.lights.show(verdict, inputs.link)
        elif settle is Settle.BOARD_FIRST:
            verdict = self._judge_board_first(now)
        self.computers.step()  # a computer seat to act: its decision searched off this thread
        if inputs.bots is not None and self.settled() and pace.bots.due(now):
            inputs.bots.go()
            self.settler.look_again()  # even if the bot changed nothing the inputs see
        return verdict

    def _judge_board_first(self, now: float) -> Verdict | None:
        """The board has settled before the camera: phones show where it felt pieces come or go
        at once, and a move it alone makes certain is applied now (the camera confirms it when it
        has seen the table; anything else waits for it)."""
        early, felt = self.inputs.readings().board_first()
        self.game.feel(felt)
        if early is None:
            return None
        verdict = self.game.observe(early, acting_on=BOARD_FIRST_VERDICTS)
        if verdict is not None:
            self.settler.judged(self.game.changes, stored=True, now=now)
            self.lights.show(verdict, self.inputs.link)
        return verdict

    def settled(self) -> bool:
        """The table has settled, its verdict given, and the sensor board caught up with it."""
        return self.settler.settled and self.inputs.board_caught_up()

    def observe(self) -> Observation:
        """The table now, from the latest camera view and board snapshot."""
        return self.inputs.readings().fused()

    def recalibrate(self) -> bool:
        """Forget the calibration and look for the corner markers afresh; False: no camera."""
        return self.inputs.recalibrate()

    def camera_jpeg(self) -> bytes | None:
        """The newest camera frame annotated with what the pipeline reads, as a JPEG (from any
        thread: it waits for the frame at hand to be read)."""
        eyes = self.inputs.eyes
        return None if eyes is None else eyes.annotated_jpeg()

    # ---- status
    def status(self) -> dict[str, Any]:
        """The table's health (the owner publishes it after each round; the game's part comes
        from the game's snapshot)."""
        last, inputs = self.settler.last, self.inputs
        return {
            "mode": last.mode.value if last is not None else "starting",
            "simulated": inputs.physical is not None,
            "camera": inputs.health.camera.to_json(),
            "board": inputs.health.board.to_json(),
            "bots": None if inputs.bots is None else vars(inputs.bots.stats).copy(),
            "computers": vars(self.computers.stats).copy(),
            "gpio": self.io.health(),
            "venue": None if self.venue is None else self.venue.health().to_json(),
            "speech": self.voice is not None,
            "speech_detail": self.speech.reason,
            "uptime_s": round(time.time() - self.started_at, 1),
        }


def _stored_pin(data_dir: Path) -> str:
    """The table PIN kept in the data folder, made at the first start (six digits)."""
    path = data_dir / "pin"
    if path.exists():
        return path.read_text().strip()
    pin = f"{secrets.randbelow(1_000_000):06d}"
    path.write_text(pin + "\n")
    path.chmod(0o600)
    return pin
