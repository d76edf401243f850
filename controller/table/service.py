"""The table service: camera and sensor board in, the referee, the event log, the LEDs.

Its tick runs on the thread of the game's owner (`GameOwner`), between the commands that phones,
buttons and the host send: it takes the camera's newest view and the board's snapshot, fuses
them, waits for the table to settle, hands a settled observation to the live game, and acts on the
verdict (LEDs under the squares concerned). Blocking sources and heavy work run on threads of
their own (the camera reader, the camera's frames through the vision pipeline, the board link,
the virtual board) and only wake the owner. With no hardware configured
the simulated table stands in and bots play on it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.game.access import Asker, Refused, SeatTokens
from controller.game.computers import ComputerPlayers
from controller.game.host_sessions import HostSessions
from controller.game.live import LiveGame
from controller.game.owner import GameOwner
from controller.game.store import EventLog, LogReader
from controller.referee.judge import Verdict, VerdictKind
from controller.referee.observe import Observation, fuse, magnet_changes
from controller.simulated.bots import Bots
from controller.simulated.camera import SimulatedCamera
from controller.simulated.table import PhysicalTable
from controller.table.camera_worker import NO_NEW_FRAME, CameraWorker
from controller.table.gpio import GpioPins, TableIO
from controller.table.memory import TRIM_EVERY_S, give_back, map_big_blocks
from controller.table.speech import EspeakSpeaker, Narrator, Speaker, Speech, Voice, choose_speech
from controller.table.systemd import notify, watchdog_interval
from controller.venue.publisher import VenuePublisher
from controller.venue.settings import VenueSettings
from controller.vision_bridge import board_geometry, stickers
from firmware_bridge.link import BoardLink
from firmware_bridge.messages import Color, Square
from rules.core import Visibility
from rules.physical import Catalogue, Layout, TableObservation
from vision.camera_module import CameraSettings
from vision.lens import load_lens
from vision.pipeline import VisionPipeline
from vision.sources import CameraState, CameraThread, open_camera

log = logging.getLogger("railtable")

SIMULATED = "simulated"
NONE = "none"
ALERT_COLOUR = Color(255, 0, 0)
TODO_COLOUR = Color(255, 160, 0)
GO_COLOUR = Color(0, 200, 60)


@dataclass(frozen=True)
class ServiceSettings:
    """What the service runs with (the configuration file fills it in)."""

    data_dir: Path
    pin: str = ""
    game: str = "offtherails"
    players: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    camera: str = SIMULATED  # "simulated", "none", or a camera source (device, file, URL,
    # "picamera2[:N]": a camera module)
    camera_settings: CameraSettings = field(default_factory=CameraSettings)  # size, controls
    board: str = SIMULATED  # "simulated", "none", or a pyserial URL
    tick_s: float = 0.05
    settle_ticks: int = 1  # the fused table unchanged this many ticks (the board debounces, the
    # camera pipeline has its own stabiliser: this only joins the two)
    bot_period_s: float = 1.0  # the simulated table: a bot's go this often
    camera_period_s: float = 0.1  # the camera: a frame this often (read off the owner's thread;
    # the simulated camera draws none while its table rests, and one at once when it changes)
    mistake_rate: float = 0.06
    bots: bool = True  # on the simulated table, bots play
    ai_iterations: int = 0  # > 0: a computer player's search is this many iterations (tests),
    # else its level's time (normal 1 s, strong 3 s)
    gpio: GpioPins = field(default_factory=GpioPins)
    venue: VenueSettings | None = None  # publish to the venue's broker (docs/venue.md)
    speech: Speech = Speech.AUTO  # the table speaks turns, alerts and the winner (espeak-ng)


@dataclass
class InputHealth:
    """How one input is doing, in words, and since when."""

    state: str = "starting"
    detail: str = ""
    since: float = field(default_factory=time.time)

    def set(self, state: str, detail: str = "") -> None:
        if state != self.state or detail != self.detail:
            self.state, self.detail, self.since = state, detail, time.time()

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "detail": self.detail, "since": self.since}


class RealCamera:
    """A camera (device index, file, stream URL or camera module) read on its own thread;
    reconnects itself. Each change of its state is logged once, in its own words (a camera
    that stays away is retried with backoff, and not logged again)."""

    def __init__(self, source: str, settings: CameraSettings | None = None) -> None:
        self.source = open_camera(source, settings)
        self.thread = CameraThread(self.source).start()
        self._last_index = -1
        self._said = ""

    def frame(self) -> Any:
        """The newest frame not yet handed out, or None (none new, or the camera is away)."""
        self._say()
        latest = self.thread.latest()
        if latest is None or latest.index == self._last_index:
            return None if latest is None else NO_NEW_FRAME
        self._last_index = latest.index
        return latest.image

    def _say(self) -> None:
        state, reason = self.source.state, self.source.reason
        if state is CameraState.CLOSED or reason == self._said or reason == "not opened yet":
            return
        self._said = reason
        if state is CameraState.STREAMING:
            log.info("camera %r: %s", self.source.address, reason)
        else:
            log.warning("%s; trying again now and then", reason)

    def health(self) -> str:
        return f"{self.source.state.value}: {self.source.reason}"

    def stop(self) -> None:
        self.thread.stop()


STORE_RETRY_S = 1.0  # while the event log cannot be written, the table is judged again this often


class TableService:
    """Everything at the table, started by `start()` and run by `run()`."""

    def __init__(self, settings: ServiceSettings) -> None:
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
        self.camera_health = InputHealth()
        self.board_health = InputHealth()
        self.physical: PhysicalTable | None = None
        self.bots: Bots | None = None
        self.virtual_board: Any = None
        self.link: BoardLink | None = None
        self.camera: SimulatedCamera | RealCamera | None = None
        self.pipeline: VisionPipeline | None = None
        self.eyes: CameraWorker | None = None  # the camera's frames through the pipeline
        self.camera_table: TableObservation | None = None
        self.camera_still = True  # the camera sees nothing moving (always, without a camera)
        self._threaded = False  # the owner and the camera run on threads of their own
        self.started_at = time.time()
        self._last: Observation | None = None
        self._stable = 0
        self._judged: Observation | None = None
        self._early: Observation | None = None  # the last table judged before the camera saw it
        self._judged_changes = -1  # the game's change count when the table was last judged
        self._store_retry = 0.0  # a full disk: when to try writing the table's verdict again
        self._leds: dict[Square, Color] = {}
        self._lifted: tuple[str, ...] = ()
        self._layout: Layout | None = None
        self._go_leds: set[Square] = set()
        self._next_bot = 0.0
        self._next_frame = 0.0
        self._watchdog_s = watchdog_interval()
        self._petted = 0.0
        self._next_trim = time.monotonic() + TRIM_EVERY_S
        self.on_stop: Any = None  # set by whoever serves the API: stop serving too
        self.io = TableIO(settings.gpio)
        self.voice: Voice | None = None
        self.speech = choose_speech(settings.speech, SIMULATED in (settings.board, settings.camera))
        if self.speech.on:
            card = self.speech.card
            self.speak_with(EspeakSpeaker(card=None if card is None else card.id))
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
        self.game.listeners.append(Narrator(self.game, self.voice).heard)
        return self.voice

    # ---- life cycle
    def start(self, thread: bool = True) -> None:
        """Start the owner (on its own thread, unless a test drives `owner.pump()` itself); on
        it, resume the open game or start the default one, and start the inputs."""
        self.io.on_done = lambda seat: self._submit(lambda: self.done(seat))
        self.io.on_shutdown = lambda: self._submit(self.shut_down)
        self.io.on_clear_lockout = lambda: self._submit(self.clear_lockout)
        self._threaded = thread
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
            self._start_inputs()
        elif self.game.recall():
            log.info("the last game is over: its end screen stays until the host starts another")
            for health in (self.camera_health, self.board_health):
                health.set("waiting", "no game open: the host starts the next one")
        else:
            s = self.settings
            self.game.start(s.game, {**s.options, "players": s.players}, s.seed)
            self._start_inputs()
        notify("READY=1")

    def _start_inputs(self) -> None:
        """Camera, sensor board and (simulated) table for the open game's mat."""
        opened = self.game.open
        assert opened is not None
        info, state = opened.info, opened.state
        assert info.layout is not None and info.catalogue is not None
        layout, catalogue = info.layout(state.options), info.catalogue()
        self._layout = layout
        simulated = SIMULATED in (self.settings.board, self.settings.camera)
        if simulated:
            self.physical = PhysicalTable(layout, catalogue)
            self.physical.lay(opened.table)
        if simulated and self.settings.bots:
            assert self.physical is not None
            self.bots = Bots(
                self.game,
                self.physical,
                seed=state.seed if opened.deck.predictable else secrets.randbelow(1 << 31),
                mistake_rate=self.settings.mistake_rate,
                camera=self.settings.camera != NONE,
                sensors=self.settings.board != NONE,
            )
        if self.settings.board == SIMULATED:
            self._start_virtual_board(layout)
        elif self.settings.board != NONE:
            self._start_link(self.settings.board)
        else:
            self.board_health.set("none", "no sensor board configured")
        if self.settings.camera == SIMULATED and self.physical is not None:
            self.camera = SimulatedCamera(self.physical, layout, catalogue)
            self.pipeline = VisionPipeline(self.camera.geometry, stickers(catalogue))
            self.camera_health.set("starting", "simulated camera: calibrating")
            self.eyes = CameraWorker(
                self.camera, self.pipeline, catalogue, self.settings.camera_period_s
            )
            self.physical.on_laid = self.eyes.wake
        elif self.settings.camera == NONE:
            self.camera_health.set("none", "no camera configured")
        else:
            self.camera = RealCamera(self.settings.camera, self.settings.camera_settings)
            try:
                lens = load_lens(self.settings.data_dir, self.settings.camera)
            except ValueError as error:
                log.warning("camera lens: %s; measuring it from the mat instead", error)
                lens = None
            self.pipeline = VisionPipeline(
                board_geometry(layout, catalogue), stickers(catalogue), lens=lens
            )
            kept = "its lens as measured" if lens is not None else "its lens measured from the mat"
            opening = f"opening camera {self.settings.camera!r} ({kept})"
            self.camera_health.set("connecting", opening)
            self.eyes = CameraWorker(
                self.camera,
                self.pipeline,
                catalogue,
                self.settings.camera_period_s,
                health=self.camera.health,
                starting=("connecting", opening),
            )
        if self.eyes is not None and self._threaded:
            self.eyes.start()

    def _stop_inputs(self) -> None:
        """Let go of the camera, the board link and the simulated table (a new mat follows)."""
        if self.link is not None:
            self.link.stop()
        if self.virtual_board is not None:
            self.virtual_board.stop()
        if self.eyes is not None:
            self.eyes.stop()
        if isinstance(self.camera, RealCamera):
            self.camera.stop()
        self.link = self.virtual_board = self.camera = self.pipeline = self.eyes = None
        self.physical = self.bots = None
        self.camera_table = None
        self._last = self._judged = self._early = None
        self._leds = {}

    def _follow_game(self) -> None:
        """A game on another mat was started (from a phone): the inputs follow it."""
        opened = self.game.open
        if opened is None:
            return
        info = opened.info
        if info.layout is None:
            return
        if info.layout(opened.state.options) != self._layout:
            log.info("the mat changed to %s: the inputs follow", info.title)
            self._stop_inputs()
            self._start_inputs()

    def _start_virtual_board(self, layout: Layout) -> None:
        from hardware.virtual_board import VirtualBoard

        sensors = [loc.sensor for loc in layout.locations if loc.sensor is not None]
        rows = max(r for r, _ in sensors) + 1 if sensors else 1
        cols = max(c for _, c in sensors) + 1 if sensors else 1
        self.virtual_board = VirtualBoard(rows, cols, baudrate=921600).start()
        board = self.virtual_board
        placed: set[tuple[int, int]] = set()

        def on_magnets(magnets: frozenset[tuple[int, int]]) -> None:
            for square in sorted(placed - magnets):
                board.lift(*square)
            for square in sorted(magnets - placed):
                board.place(*square)
            placed.clear()
            placed.update(magnets)

        assert self.physical is not None
        self.physical.on_magnets = on_magnets
        on_magnets(self.physical.magnets())
        self._start_link(str(board.path))

    def _start_link(self, url: str) -> None:
        self.link = BoardLink(url, on_event=lambda _: self.owner.wake()).start()

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
        if self.link is not None:
            self.link.stop()
        if self.virtual_board is not None:
            self.virtual_board.stop()
        if self.eyes is not None:
            self.eyes.stop()
        if isinstance(self.camera, RealCamera):
            self.camera.stop()
        self.log.close()

    def wake(self) -> None:
        """Something changed: look at the table again soon."""
        self.owner.wake()

    def tick(self) -> Verdict | None:
        """One tick on the owner's thread; returns the verdict if the table was judged."""
        now = time.monotonic()
        if self._watchdog_s is not None and now - self._petted >= self._watchdog_s:
            notify("WATCHDOG=1")  # a hung owner stops this, and systemd restarts us
            self._petted = now
        if now >= self._next_trim:  # what a burst of phones or frames freed goes back
            self._next_trim = now + TRIM_EVERY_S
            give_back()
        if self.game.open is None:
            return None
        self._follow_game()
        if self.eyes is not None:
            if not self._threaded and now >= self._next_frame:
                self._next_frame = now + self.settings.camera_period_s
                self.eyes.step()  # no thread of its own (a test, a flat-out bench): here
            self._take_camera_view(self.eyes)
        observed = self.observe()
        self._show_destinations(observed)
        if observed != self._last:
            self._last, self._stable = observed, 0
        else:
            self._stable += 1
        verdict = None
        if (
            self._stable >= self.settings.settle_ticks
            and self.camera_still
            and (observed != self._judged or self.game.changes != self._judged_changes)
            and self.game.open is not None
            and (self.game.store_problem is None or now >= self._store_retry)
        ):
            # judged again when the game changed from a phone (an answer, a decision, an
            # undo): what the table showed beyond the question is read now
            self._judged = observed
            verdict = self.game.observe(observed)
            self._judged_changes = self.game.changes
            if self.game.store_problem is not None:
                self._judged = None  # not kept: judged again (once a second) until it is written
                self._store_retry = now + STORE_RETRY_S
            self._show(verdict)
        elif (
            self._stable >= self.settings.settle_ticks
            and not self.camera_still
            and observed != self._early
            and self.game.store_problem is None
        ):
            # the board has settled before the camera: a move it alone makes certain is applied
            # now (the camera confirms it when it has seen the table; anything else waits for it)
            self._early = observed
            early, felt = self.early_observation()
            self.game.feel(felt)  # phones show where at once, while the camera looks
            if early is not None:
                verdict = self.game.observe(early, early=True)
                if verdict is not None:
                    self._judged_changes = self.game.changes
                    self._show(verdict)
        self.computers.step()  # a computer seat to act: its decision searched off this thread
        if self.bots is not None and now >= self._next_bot and self._settled():
            self._next_bot = now + self.settings.bot_period_s
            self.bots.go()
            self._judged = None  # look again, even if the bot changed nothing the inputs see
        return verdict

    def _settled(self) -> bool:
        return (
            self._stable >= self.settings.settle_ticks
            and self.camera_still
            and self._judged == self._last
            and self._board_caught_up()
        )

    def _board_caught_up(self) -> bool:
        """On the simulated table: the sensor board reports the magnets as they lie (a bot that
        played on before would lay its next move over a change the referee never saw)."""
        if self.physical is None or self.virtual_board is None or self.link is None:
            return True
        occupancy = self.link.occupancy
        if occupancy is None:
            return False
        felt = frozenset((s.row, s.col) for s in occupancy.occupied)
        return felt == self.physical.magnets()

    def _take_camera_view(self, eyes: CameraWorker) -> None:
        """The camera's newest view as the tick's: its settled table, whether it is still (not
        while the simulated table holds a change no frame has shown yet), its health."""
        view = eyes.latest
        self.camera_table = view.table
        behind = (
            self.physical is not None
            and isinstance(self.camera, SimulatedCamera)
            and view.version != self.physical.version
        )
        self.camera_still = view.still and not behind
        self.camera_health.set(view.state, view.detail)

    def observe(self) -> Observation:
        """The table now, from the latest camera view and board snapshot."""
        layout, catalogue, occupied = self._inputs()
        return fuse(layout, catalogue, self.camera_table, occupied)

    def early_observation(self) -> tuple[Observation | None, frozenset[str]]:
        """Where the sensor board has felt a magnetic piece come or go that the camera has not
        seen yet (its magnets settle in milliseconds, the camera waits for a hand to go and for
        still frames), and the table as the board has it, to judge before the camera, when
        pieces the camera knew moved: as many magnets left squares as arrived on others. A
        magnet that only arrives may be any piece (a mistake the camera would name, read by the
        magnets as a legal piece), one that only leaves a move half made: the camera judges."""
        layout, catalogue, occupied = self._inputs()
        arrived, left = magnet_changes(layout, catalogue, self.camera_table, occupied)
        if not arrived or len(left) != len(arrived):
            return None, arrived | left
        early = fuse(layout, catalogue, self.camera_table, occupied, catching_up=True)
        return early, arrived | left

    def _inputs(self) -> tuple[Layout, Catalogue, frozenset[tuple[int, int]] | None]:
        """The game's layout and catalogue, and the squares the connected board feels."""
        opened = self.game.open
        assert opened is not None
        info = opened.info
        assert info.layout is not None and info.catalogue is not None
        layout = info.layout(opened.state.options)
        occupied = None
        if self.link is not None:
            health = self.link.health()
            self.board_health.set(health.state.value, health.last_error or "")
            occupancy = self.link.occupancy
            if occupancy is not None and health.state.value == "connected":
                occupied = frozenset((s.row, s.col) for s in occupancy.occupied)
        return layout, info.catalogue(), occupied

    def _show(self, verdict: Verdict | None) -> None:
        """LEDs under the squares in error (red) and with something left to do (amber); the
        seat to act lit; a buzz on an alert."""
        opened = self.game.open
        self.io.show_turn(opened.state.current_player if opened is not None else None)
        if verdict is not None and verdict.kind is VerdictKind.ALERT:
            self.io.alert()
        if self.link is None or verdict is None:
            return
        if opened is None or opened.info.layout is None:
            return
        sensors = {
            loc.name: loc.sensor for loc in opened.info.layout(opened.state.options).locations
        }
        colour = ALERT_COLOUR if verdict.kind is VerdictKind.ALERT else TODO_COLOUR
        wanted = {}
        for name in verdict.locations:
            sensor = sensors.get(name)
            if sensor is not None:
                wanted[Square(*sensor)] = colour
        off = {square: Color(0, 0, 0) for square in self._leds if square not in wanted}
        if wanted or off:
            try:
                self.link.set_leds({**off, **wanted})
                self._leds = wanted
            except ValueError as error:
                log.warning("LEDs: %s", error)

    def _show_destinations(self, observed: Observation) -> None:
        """While a magnetic piece is lifted off its square, light where the rules let it go."""
        opened = self.game.open
        if self.link is None or opened is None:
            return
        referee, state, info = opened.referee, opened.state, opened.info
        lifted = sorted(
            name
            for name, pieces in opened.table.items()
            if any(referee.is_magnetic(p.piece) for p in pieces)
            and observed.view(name).seen.value in ("magnet", "exact", "on_top")
            and not referee.fits(observed.view(name), pieces)
        )
        key = tuple(lifted)
        if key == self._lifted:
            return
        self._lifted = key
        assert info.layout is not None
        sensors = {loc.name: loc.sensor for loc in info.layout(state.options).locations}
        go: set[str] = set()
        for name in lifted[:2]:
            go |= referee.destinations(state, name)
        wanted: dict[Square, Color] = {}
        for name in go:
            sensor = sensors.get(name)
            if sensor is not None:
                wanted[Square(*sensor)] = GO_COLOUR
        merged = {**self._leds, **wanted} if wanted else dict(self._leds)
        off = {sq: Color(0, 0, 0) for sq in self._go_leds if sq not in merged}
        self._go_leds = set(wanted)
        if merged or off:
            try:
                self.link.set_leds({**off, **merged})
            except ValueError as error:
                log.warning("LEDs: %s", error)

    def recalibrate(self) -> bool:
        """Forget the calibration and look for the corner markers afresh; False: no camera."""
        if self.eyes is None:
            return False
        self.eyes.recalibrate()
        self.camera_health.set("uncalibrated", "recalibration requested: looking for the corners")
        return True

    def camera_jpeg(self) -> bytes | None:
        """The newest camera frame annotated with what the pipeline reads, as a JPEG (from any
        thread: it waits for the frame at hand to be read)."""
        eyes = self.eyes
        return None if eyes is None else eyes.annotated_jpeg()

    # ---- status
    def status(self) -> dict[str, Any]:
        """The table's health (the owner publishes it after each round; the game's part comes
        from the game's snapshot)."""
        mode = self._last.mode.value if self._last is not None else "starting"
        return {
            "mode": mode,
            "simulated": self.physical is not None,
            "camera": self.camera_health.to_json(),
            "board": self.board_health.to_json(),
            "bots": None if self.bots is None else vars(self.bots.stats).copy(),
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
