"""The camera in a process of its own: capture (or, on the simulated table, rendering) and the
vision pipeline run in a child process, so a full read of the table never holds the service's
interpreter lock; the owner reads the newest `CameraView` by one reference, as before.

The child is started with multiprocessing's 'spawn' context: a fresh interpreter, never a fork of
a service whose threads (the owner, the web server, the board link) may hold locks mid-way. It
opens the camera and its pipeline itself from a `CameraJob` (the mat, the pieces' catalogue, the
camera's source and settings, the data folder for a measured lens) and sends back small values
only: each new view (its settled table left out when unchanged), a heartbeat while it rests, its
log lines, and an annotated JPEG when the host's camera page asks for one. Frames never cross.
The simulated table's camera gets the table's pieces (a few hundred bytes) each time they change.

The child dies with the service: it is a daemon process (a clean exit ends it), the kernel kills
it when the thread that started it ends (`PR_SET_PDEATHSIG`, Linux), and its command reader ends
it when the pipe from the service closes (any death of the service closes it). A child that
dies or goes silent for `HANG_S` is killed and started again, with one line in the log; the camera
reads as away (`disconnected`) meanwhile, so the referee goes on with the sensor board alone.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from controller.referee.tables import Pieces
from controller.table.camera_worker import CameraView, CameraWorker
from rules.physical import Catalogue, Layout, TableObservation
from vision.camera_module import CameraSettings

log = logging.getLogger("railtable")

SIMULATED = "simulated"
HANG_S = 30.0  # a child silent this long is taken for hung (a Pi's full decode takes seconds)
START_S = 120.0  # a child's first word may take this long (its imports, on a busy Pi)
BEAT_S = 1.0  # a resting child says it lives this often
RESTART_S = 1.0  # the pause before a dead child's successor (doubled for each in a row that
# died young)
RESTART_MAX_S = 30.0
YOUNG_S = 10.0  # a child that dies sooner than this after its start died young
STOP_S = 5.0  # a stopped child may take this long to end before it is killed
JPEG_WAIT_S = 10.0  # the host's camera page waits this long for a picture
NICENESS = 5  # where the cores are all busy, the owner and the web server go first
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class CameraJob:
    """What the child needs to open the camera and its pipeline."""

    layout: Layout
    catalogue: Catalogue
    source: str  # SIMULATED, or a camera source (device, file, URL, "picamera2[:N]")
    camera_settings: CameraSettings = field(default_factory=CameraSettings)
    data_dir: Path | None = None  # where a measured lens is kept (a real camera)
    period_s: float = 0.1
    rests: bool = True  # the simulated camera draws nothing while its table rests
    parent_pid: int = 0


class CameraProcess:
    """The owner's side of the camera's process: `latest` (the newest view), `recalibrate`,
    `annotated_jpeg`, `show_table` (the simulated table changed), `stop`. The same calls as
    `CameraWorker`'s, which steps the camera on the caller's thread instead (tests)."""

    def __init__(
        self,
        job: CameraJob,
        starting: tuple[str, str],
        table: tuple[int, dict[str, Pieces]] | None = None,
        hang_s: float = HANG_S,
    ) -> None:
        self.job = job
        self.hang_s = hang_s
        self.latest = CameraView(None, False, *starting)
        self.frames = 0  # frames the child read (its successors' added)
        self.cpu_s = 0.0  # the children's CPU time (process time), all of them
        self.read_cpu_s = 0.0  # of which reading frames (`CameraWorker.read_cpu_s`)
        self.started = 0  # children started (more than 1: one died and was replaced)
        self.views = 0  # views received
        self._table = table
        self._kept: TableObservation | None = None  # the settled table of the last view
        self._child_frames = self._child_cpu = self._child_read = 0.0
        self._process: Any = None
        self._conn: Connection | None = None
        self._send_lock = threading.Lock()
        self._jpeg_lock = threading.Lock()
        self._jpeg_ids = itertools.count()
        self._jpeg: tuple[int, bytes | None] | None = None
        self._jpeg_came = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def simulated(self) -> bool:
        return self.job.source == SIMULATED

    @property
    def pid(self) -> int | None:
        """The running child's process id (None: none runs)."""
        process = self._process
        return None if process is None or not process.is_alive() else int(process.pid)

    # ---- life cycle
    def start(self) -> CameraProcess:
        self._thread = threading.Thread(target=self._watch, name="railtable-camera", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = STOP_S) -> None:
        """End the child (a word first, killed if it takes longer than `timeout`)."""
        self._stopping.set()
        self._send(("stop",))
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout + 2)
        self._end(timeout)

    def _watch(self) -> None:
        """Start a child, take its messages until it dies, hangs or is stopped; again."""
        young = 0  # children in a row that died young
        while not self._stopping.is_set():
            began = time.monotonic()
            try:
                why = self._serve(self._spawn())
            except Exception as error:  # the child could not even start
                why = f"could not start: {' '.join(str(error).split())[:200]}"
            if self._stopping.is_set():
                self._end(STOP_S)  # the frame in hand finished, then it ends
                return
            self._end(0.5)
            young = young + 1 if time.monotonic() - began < YOUNG_S else 1
            pause = min(RESTART_S * 2 ** (young - 1), RESTART_MAX_S)
            log.warning("the camera's process %s; starting it again in %.0f s", why, pause)
            self.latest = CameraView(
                None, True, "disconnected", f"the camera's process {why}: starting it again"
            )
            self._stopping.wait(pause)

    def _spawn(self) -> Any:
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe(duplex=True)
        job = replace(self.job, parent_pid=os.getpid())
        process = context.Process(
            target=child_main, args=(theirs, job), name="railtable-camera", daemon=True
        )
        process.start()
        theirs.close()  # the child holds the only other end: its death ends our reads
        self._process, self._conn = process, mine
        self._child_frames = self._child_cpu = self._child_read = 0.0
        self.started += 1
        if self._table is not None:
            self._send(("table", *self._table))
        return process

    def _serve(self, process: Any) -> str:
        """Take the child's messages; why it stopped serving (its death, its silence)."""
        conn = self._conn
        assert conn is not None
        heard, limit = time.monotonic(), max(self.hang_s, START_S)  # its imports: not a hang
        while not self._stopping.is_set():
            try:
                if not conn.poll(0.25):
                    if time.monotonic() - heard > limit:
                        return f"was silent for {limit:.0f} s"
                    continue
                message = conn.recv()
            except (EOFError, OSError):
                process.join(1.0)
                return f"stopped (exit code {process.exitcode})"
            heard, limit = time.monotonic(), self.hang_s
            self._take(message)
        return "was stopped"

    def _take(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind in ("view", "beat"):
            frames, cpu, read = message[-3:]
            self.frames += frames - self._child_frames
            self.cpu_s += cpu - self._child_cpu
            self.read_cpu_s += read - self._child_read
            self._child_frames, self._child_cpu, self._child_read = frames, cpu, read
        if kind == "view":
            view, kept = message[1], message[2]
            if kept:
                view = replace(view, table=self._kept)
            self._kept = view.table
            self.latest = view
            self.views += 1
        elif kind == "log":
            log.log(message[1], "%s", message[2])
        elif kind == "jpeg":
            self._jpeg = (message[1], message[2])
            self._jpeg_came.set()

    def _end(self, timeout: float) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None:
            process.join(timeout)
            if process.is_alive():
                process.kill()
                process.join(5.0)
        if conn is not None:
            with self._send_lock:
                conn.close()

    def _send(self, message: tuple[Any, ...]) -> None:
        with self._send_lock:
            conn = self._conn
            if conn is None:
                return
            with contextlib.suppress(OSError, ValueError):  # a dead child: the watcher sees it
                conn.send(message)

    # ---- from the owner and other threads
    def wake(self) -> None:
        """Nothing to do: the child looks as soon as it is told of a change."""

    def show_table(self, version: int, pieces: dict[str, Pieces]) -> None:
        """The simulated table changed: its pieces to the child (which draws a frame at once)."""
        self._table = (version, pieces)
        self._send(("table", version, pieces))

    def unplug(self, seconds: float) -> None:
        """The simulated camera's fault knob: no frames for `seconds`."""
        self._send(("unplug", seconds))

    def recalibrate(self) -> None:
        """Forget the calibration and look for the corners afresh, at the next frame."""
        self.latest = CameraView(
            self.latest.table,
            False,
            "uncalibrated",
            "recalibration requested: looking for the corners",
            self.latest.version,
        )
        self._send(("recalibrate",))

    def annotated_jpeg(self) -> bytes | None:
        """The newest frame annotated with what the pipeline reads (None: no frame yet, or the
        child did not answer in time); waits for the child."""
        with self._jpeg_lock:
            asked = next(self._jpeg_ids)
            self._jpeg_came.clear()
            self._send(("jpeg", asked))
            deadline = time.monotonic() + JPEG_WAIT_S
            while time.monotonic() < deadline and self._jpeg_came.wait(deadline - time.monotonic()):
                self._jpeg_came.clear()
                answer = self._jpeg
                if answer is not None and answer[0] == asked:
                    return answer[1]
            return None


# ---- the child
def child_main(conn: Connection, job: CameraJob) -> None:
    """The camera's process: open the camera and its pipeline, then read frames and send views
    until told to stop or the service is gone."""
    _die_with(job.parent_pid)
    # Ctrl-C at a terminal, or systemd's SIGTERM to the whole group: the service decides when the
    # camera stops (it says so on the pipe; were the service killed, SIGKILL follows it here)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    sending = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with sending:
            try:
                conn.send(message)
            except (OSError, ValueError):
                os._exit(0)  # the service is gone

    _log_through(send)
    worker, physical = open_worker(job)
    threading.Thread(
        target=_commands, args=(conn, worker, physical, send), name="commands", daemon=True
    ).start()
    last: list[Any] = [None, None, 0.0]  # the view sent, its table, when

    def publish(eyes: CameraWorker) -> None:
        view, now = eyes.latest, time.monotonic()
        cpu = time.process_time()
        if view is not last[0]:
            kept = last[0] is not None and view.table == last[1]
            counts = (eyes.frames, cpu, eyes.read_cpu_s)
            send(("view", replace(view, table=None) if kept else view, kept, *counts))
            last[:] = [view, view.table, now]
        elif now - last[2] >= BEAT_S:
            send(("beat", eyes.frames, cpu, eyes.read_cpu_s))
            last[2] = now
        if os.getppid() != job.parent_pid:
            os._exit(0)  # the service died without closing the pipe (it cannot, but still)

    try:
        worker.run(publish, BEAT_S)
    finally:
        camera = worker.camera
        if hasattr(camera, "stop"):
            camera.stop()


def open_worker(job: CameraJob) -> tuple[CameraWorker, Any]:
    """The camera and its pipeline as `job` says (and, simulated, the table it looks at)."""
    from controller.simulated.camera import SimulatedCamera
    from controller.simulated.table import PhysicalTable
    from controller.table.inputs import RealCamera
    from controller.vision_bridge import board_geometry, stickers
    from vision.lens import load_lens
    from vision.pipeline import VisionPipeline

    layout, catalogue = job.layout, job.catalogue
    if job.source == SIMULATED:
        physical = PhysicalTable(layout, catalogue)
        camera = SimulatedCamera(physical, layout, catalogue)
        pipeline = VisionPipeline(camera.geometry, stickers(catalogue))
        worker = CameraWorker(camera, pipeline, catalogue, job.period_s, rests=job.rests)
        return worker, physical
    real = RealCamera(job.source, job.camera_settings)
    lens = None
    if job.data_dir is not None:
        try:
            lens = load_lens(job.data_dir, job.source)
        except ValueError as error:
            log.warning("camera lens: %s; measuring it from the mat instead", error)
    pipeline = VisionPipeline(board_geometry(layout, catalogue), stickers(catalogue), lens=lens)
    kept = "its lens as measured" if lens is not None else "its lens measured from the mat"
    worker = CameraWorker(
        real,
        pipeline,
        catalogue,
        job.period_s,
        health=real.health,
        starting=("connecting", f"opening camera {job.source!r} ({kept})"),
    )
    return worker, None


def _commands(conn: Connection, worker: CameraWorker, physical: Any, send: Any) -> None:
    """The service's words to the child, until the pipe ends (the service stopped or died:
    the child ends at once)."""
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        kind = message[0]
        if kind == "stop":
            worker.stop(timeout=0)
            return
        if kind == "table" and physical is not None:
            physical.show(message[1], message[2])
            worker.wake()
        elif kind == "recalibrate":
            worker.recalibrate()
        elif kind == "unplug" and hasattr(worker.camera, "unplug"):
            worker.camera.unplug(message[1])
            worker.wake()
        elif kind == "jpeg":
            send(("jpeg", message[1], worker.annotated_jpeg()))


class _Forward(logging.Handler):
    """The child's log lines to the service's log, through the pipe."""

    def __init__(self, send: Any) -> None:
        super().__init__(logging.INFO)
        self.send = send

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.send(("log", record.levelno, text))


def _log_through(send: Any) -> None:
    railtable = logging.getLogger("railtable")
    railtable.handlers[:] = [_Forward(send)]
    railtable.setLevel(logging.INFO)
    railtable.propagate = False


def _die_with(parent_pid: int) -> None:
    """Ask the kernel to kill this process when the service's thread that started it ends
    (Linux; elsewhere the closed pipe does it); a service already gone: end now."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent_pid and os.getppid() != parent_pid:
        os._exit(0)
