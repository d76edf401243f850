"""The table's inputs wired from the settings: the camera and the sensor board (each simulated,
none, or real), and on the simulated table the table itself and the bots that play on it.

One `TableInputs` holds what is wired for one mat; a game on another mat gets new ones, and
`stop()` lets go of all of it (the one teardown, for a new mat and for the service's end).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.game.live import LiveGame
from controller.simulated.bots import Bots
from controller.simulated.camera import SimulatedCamera
from controller.simulated.table import PhysicalTable
from controller.table.camera_process import CameraJob, CameraProcess
from controller.table.camera_worker import NO_NEW_FRAME, CameraView, CameraWorker
from controller.table.settings import SIMULATED as SIMULATED
from controller.table.settler import Readings
from controller.vision_bridge import board_geometry, stickers
from firmware_bridge.link import BoardLink
from rules.physical import Catalogue, Layout, TableObservation
from vision.camera_module import CameraSettings
from vision.lens import load_lens
from vision.pipeline import VisionPipeline
from vision.sources import CameraState, CameraThread, open_camera

if TYPE_CHECKING:
    from controller.table.service import ServiceSettings

log = logging.getLogger("railtable")

NONE = "none"


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


@dataclass(frozen=True)
class Health:
    """The camera's and the sensor board's health, kept from one mat's inputs to the next."""

    camera: InputHealth = field(default_factory=InputHealth)
    board: InputHealth = field(default_factory=InputHealth)


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


@dataclass(eq=False)
class TableInputs:
    """What is wired for one mat (nothing, before a game is open), read at each tick."""

    health: Health = field(default_factory=Health)
    layout: Layout | None = None
    catalogue: Catalogue | None = None
    physical: PhysicalTable | None = None  # the simulated table
    bots: Bots | None = None
    virtual_board: Any = None  # hardware.virtual_board.VirtualBoard: the simulated board
    link: BoardLink | None = None
    camera: SimulatedCamera | RealCamera | None = None  # stepped here (else: in `eyes`' child)
    pipeline: VisionPipeline | None = None
    eyes: CameraProcess | CameraWorker | None = None  # the camera's frames through the pipeline:
    # in a process of its own (the service), or stepped by the tick (a test driving the table)
    camera_table: TableObservation | None = None  # the camera's last settled table

    def camera_view(self) -> CameraView | None:
        """The camera's newest view as the tick's (its settled table, its health); None: no
        camera."""
        if self.eyes is None:
            return None
        view = self.eyes.latest
        self.camera_table = view.table
        self.health.camera.set(view.state, view.detail)
        return view

    def step_camera(self) -> None:
        """One frame, when the camera is stepped here (not in a process of its own)."""
        if isinstance(self.eyes, CameraWorker):
            self.eyes.step()

    @property
    def table_version(self) -> int | None:
        """The simulated table's version, when a simulated camera looks at it (else None)."""
        eyes = self.eyes
        simulated = isinstance(self.camera, SimulatedCamera) or (
            isinstance(eyes, CameraProcess) and eyes.simulated
        )
        if self.physical is None or not simulated:
            return None
        return self.physical.version

    def readings(self) -> Readings:
        """The mat, the camera's settled table and the squares the connected board feels."""
        assert self.layout is not None and self.catalogue is not None, "no mat wired"
        occupied = None
        if self.link is not None:
            health = self.link.health()
            self.health.board.set(health.state.value, health.last_error or "")
            occupancy = self.link.occupancy
            if occupancy is not None and health.state.value == "connected":
                occupied = frozenset((s.row, s.col) for s in occupancy.occupied)
        return Readings(self.layout, self.catalogue, self.camera_table, occupied)

    def board_caught_up(self) -> bool:
        """On the simulated table: the sensor board reports the magnets as they lie (a bot that
        played on before would lay its next move over a change the referee never saw)."""
        if self.physical is None or self.virtual_board is None or self.link is None:
            return True
        occupancy = self.link.occupancy
        if occupancy is None:
            return False
        felt = frozenset((s.row, s.col) for s in occupancy.occupied)
        return felt == self.physical.magnets()

    def recalibrate(self) -> bool:
        """Forget the calibration and look for the corner markers afresh; False: no camera."""
        if self.eyes is None:
            return False
        self.eyes.recalibrate()
        self.health.camera.set("uncalibrated", "recalibration requested: looking for the corners")
        return True

    def stop(self) -> None:
        """Let go of the board link, the simulated board, the camera's process and the camera."""
        if self.link is not None:
            self.link.stop()
        if self.virtual_board is not None:
            self.virtual_board.stop()
        if self.eyes is not None:
            self.eyes.stop()
        if isinstance(self.camera, RealCamera):
            self.camera.stop()


def wire_inputs(
    settings: ServiceSettings,
    game: LiveGame,
    health: Health,
    wake: Callable[[], None],
    camera_process: bool,
) -> TableInputs:
    """Camera, sensor board and (simulated) table for the open game's mat, as `settings` say;
    `wake`: the owner's, called when the board reports; `camera_process`: the camera reads in
    a process of its own (else the tick steps it, on the caller's thread)."""
    opened = game.open
    assert opened is not None
    info, state = opened.info, opened.state
    layout, catalogue = info.layout(state.options), info.catalogue()
    inputs = TableInputs(health, layout, catalogue)
    simulated = SIMULATED in (settings.board, settings.camera)
    if simulated:
        inputs.physical = PhysicalTable(layout, catalogue)
        inputs.physical.lay(opened.table)
    if simulated and settings.bots:
        assert inputs.physical is not None
        inputs.bots = Bots(
            game,
            inputs.physical,
            seed=state.seed if opened.deck.predictable else secrets.randbelow(1 << 31),
            mistake_rate=settings.mistake_rate,
            camera=settings.camera != NONE,
            sensors=settings.board != NONE,
        )
    if settings.board == SIMULATED:
        _wire_virtual_board(inputs, layout, wake)
    elif settings.board != NONE:
        inputs.link = _link(settings.board, wake)
    else:
        health.board.set("none", "no sensor board configured")
    if camera_process:
        _camera_in_process(inputs, settings)
    else:
        _wire_camera(inputs, settings)
    return inputs


def _camera_in_process(inputs: TableInputs, settings: ServiceSettings) -> None:
    """The camera and its pipeline in a process of their own (`camera_process.py`): told the
    simulated table's pieces as they change, never sent a frame."""
    assert inputs.layout is not None and inputs.catalogue is not None
    health = inputs.health.camera
    physical = inputs.physical
    if settings.camera == NONE or (settings.camera == SIMULATED and physical is None):
        health.set("none", "no camera configured")
        return
    job = CameraJob(
        inputs.layout,
        inputs.catalogue,
        settings.camera,
        settings.camera_settings,
        settings.data_dir,
        settings.camera_period_s,
        settings.camera_rests,
    )
    if settings.camera == SIMULATED:
        assert physical is not None
        starting = ("starting", "simulated camera: calibrating")
        eyes = CameraProcess(job, starting, physical.state())
        physical.on_laid = lambda: eyes.show_table(*physical.state())
    else:
        starting = ("connecting", f"opening camera {settings.camera!r}")
        eyes = CameraProcess(job, starting)
    health.set(*starting)
    inputs.eyes = eyes.start()


def _wire_camera(inputs: TableInputs, settings: ServiceSettings) -> None:
    """The simulated camera over the simulated table, none, or a real camera and its lens,
    stepped by the tick."""
    assert inputs.layout is not None and inputs.catalogue is not None
    layout, catalogue, health = inputs.layout, inputs.catalogue, inputs.health.camera
    if settings.camera == SIMULATED and inputs.physical is not None:
        inputs.camera = SimulatedCamera(inputs.physical, layout, catalogue)
        inputs.pipeline = VisionPipeline(inputs.camera.geometry, stickers(catalogue))
        health.set("starting", "simulated camera: calibrating")
        inputs.eyes = CameraWorker(
            inputs.camera,
            inputs.pipeline,
            catalogue,
            settings.camera_period_s,
            rests=settings.camera_rests,
        )
        inputs.physical.on_laid = inputs.eyes.wake
        return
    if settings.camera == NONE:
        health.set("none", "no camera configured")
        return
    camera = inputs.camera = RealCamera(settings.camera, settings.camera_settings)
    try:
        lens = load_lens(settings.data_dir, settings.camera)
    except ValueError as error:
        log.warning("camera lens: %s; measuring it from the mat instead", error)
        lens = None
    inputs.pipeline = VisionPipeline(
        board_geometry(layout, catalogue), stickers(catalogue), lens=lens
    )
    kept = "its lens as measured" if lens is not None else "its lens measured from the mat"
    opening = f"opening camera {settings.camera!r} ({kept})"
    health.set("connecting", opening)
    inputs.eyes = CameraWorker(
        camera,
        inputs.pipeline,
        catalogue,
        settings.camera_period_s,
        health=camera.health,
        starting=("connecting", opening),
    )


def _wire_virtual_board(inputs: TableInputs, layout: Layout, wake: Callable[[], None]) -> None:
    """The simulated sensor board under the simulated table, felt through a real link."""
    from hardware.virtual_board import VirtualBoard

    sensors = [loc.sensor for loc in layout.locations if loc.sensor is not None]
    rows = max(r for r, _ in sensors) + 1 if sensors else 1
    cols = max(c for _, c in sensors) + 1 if sensors else 1
    board = inputs.virtual_board = VirtualBoard(rows, cols, baudrate=921600).start()
    placed: set[tuple[int, int]] = set()

    def on_magnets(magnets: frozenset[tuple[int, int]]) -> None:
        for square in sorted(placed - magnets):
            board.lift(*square)
        for square in sorted(magnets - placed):
            board.place(*square)
        placed.clear()
        placed.update(magnets)

    assert inputs.physical is not None
    inputs.physical.on_magnets = on_magnets
    on_magnets(inputs.physical.magnets())
    inputs.link = _link(str(board.path), wake)


def _link(url: str, wake: Callable[[], None]) -> BoardLink:
    return BoardLink(url, on_event=lambda _: wake()).start()
