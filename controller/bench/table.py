"""`railtable bench table`: whole games on the simulated table, as fast as the machine allows.

Each game runs the real path: the bots move pieces on the simulated table, the renderer draws
camera frames the vision pipeline reads (in the camera's own process, as the service runs it), the
virtual sensor board sends serial bytes the link reads, the referee judges, the live game writes
the event log. There is no real-time wait: a table tick runs as soon as the last one ended, and
the only pauses are for the sensor board to report what the bots just laid (its own scan and
debounce, in its own thread) and, when a tick changed nothing, for the camera to show the table
as it lies (its frames, in its own process). Bots make their usual mistakes. `work_per_move` is
the table's own work (the owner's thread); `camera_work_per_move` the camera's reading of its
frames (the vision pipeline's CPU in the camera's process: what a Pi's camera costs too), and
`camera_process_per_move` all that process's CPU, the simulated frames' drawing included (which a
real camera's frames do not cost). The moves are counted from the camera's first sight of the
opening table: its calibration and that full read are `camera_opening_ms`.

A stall is 50 table ticks without progress (no action accepted, the game not over): the game is
given up and counted unfinished. `decisions_taken_for_player` counts inputs (a seat's own choice,
`Visibility.INPUT`) the referee applied itself from what it saw, rather than a seat giving them: it
must be 0.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.bench import COMPUTER_ITERATIONS
from controller.game.access import Asker
from controller.game.store import EventKind, LogReader
from controller.table.camera_process import CameraProcess
from controller.table.inputs import NONE, SIMULATED
from controller.table.service import ServiceSettings, TableService
from controller.words.book import Book
from controller.words.verdicts import said, verdict_line
from rules.core import CHANCE, Visibility
from rules.registry import game_named

STALL_TICKS = 50
COMPUTER_WAIT_S = 60.0  # a computer's search that has not come back by then is a stall
CAMERA_WAIT_S = 30.0  # the camera's view of the table as it lies, waited for at most this long
MAX_TICKS = 200_000  # a game that never ends is given up here (a stall catches it long before)


class Inputs(StrEnum):
    """Which inputs see the table."""

    BOTH = "both"
    CAMERA = "camera"
    SENSORS = "sensors"


@dataclass
class TableFigures:
    """Figures of whole games on the simulated table (docs/referee.md lists what each means)."""

    games: int = 0
    games_finished: int = 0
    seat_moves: int = 0
    stalls: int = 0
    mistakes_made: int = 0
    mistakes_alerted: int = 0
    mistakes_recovered: int = 0
    false_applied: int = 0
    decisions_taken_for_player: int = 0
    computer_moves: int = 0  # moves of the computer seats (`--computers`), laid by the bots
    log_errors: int = 0
    work_per_move_ms: list[float] = field(default_factory=list)
    camera_work_per_move_ms: list[float] = field(default_factory=list)  # reading its frames
    camera_process_per_move_ms: list[float] = field(default_factory=list)  # drawing them too
    camera_opening_ms: float = 0.0  # reading until the opening table was seen, before a move
    stalled_at: list[str] = field(default_factory=list)  # what the referee said when it stalled
    top_scores: list[float] = field(default_factory=list)  # each game's best final score

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        work = sorted(out.pop("work_per_move_ms")) or [0.0]
        out["work_per_move_p50_ms"] = round(work[len(work) // 2], 1)
        out["work_per_move_p99_ms"] = round(work[min(len(work) - 1, int(len(work) * 0.99))], 1)
        for name in ("camera_work_per_move", "camera_process_per_move"):
            camera = sorted(out.pop(f"{name}_ms")) or [0.0]
            out[f"{name}_p50_ms"] = round(camera[len(camera) // 2], 1)
            out[f"{name}_p99_ms"] = round(camera[min(len(camera) - 1, int(len(camera) * 0.99))], 1)
        return out

    def add(self, other: TableFigures) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            setattr(self, name, max(mine, value) if name == "camera_opening_ms" else mine + value)


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def run(
    game: str,
    players: int,
    inputs: Inputs,
    games: int,
    first_seed: int = 1,
    mistake_rate: float = 0.06,
    computers: int = 0,
) -> TableFigures:
    """`games` whole games of `game` with seeds from `first_seed`; the last `computers` seats
    are computer players (normal level, `COMPUTER_ITERATIONS` a search)."""
    total = TableFigures()
    for seed in range(first_seed, first_seed + games):
        with tempfile.TemporaryDirectory(prefix="railtable-table-") as folder:
            total.add(_one_game(game, players, inputs, seed, Path(folder), mistake_rate, computers))
    return total


def _one_game(
    game: str,
    players: int,
    inputs: Inputs,
    seed: int,
    folder: Path,
    mistake_rate: float,
    computers: int = 0,
) -> TableFigures:
    settings = ServiceSettings(
        data_dir=folder,
        pin="1",
        game=game,
        players=players,
        seed=seed,
        camera=NONE if inputs is Inputs.SENSORS else SIMULATED,
        board=NONE if inputs is Inputs.CAMERA else SIMULATED,
        tick_s=0.0,
        bot_period_s=0.0,
        camera_period_s=0.0,
        mistake_rate=mistake_rate,
        ai_iterations=COMPUTER_ITERATIONS,
    )
    figures = TableFigures(games=1)
    errors = _Errors()
    logging.getLogger("railtable").addHandler(errors)
    service = TableService(settings)
    try:
        service.start(thread=False, camera_process=True)
        for seat in range(players - computers, players):
            service.game.set_computer(Asker.host(), seat, "normal")
        assert service.game.open is not None
        record = service.game.open.record
        # the camera's start (its calibration and its full read of the opening table) is the
        # service's readiness (`bench e2e` `ready_s`), not a move's: kept apart
        _camera_caught_up(service)
        figures.camera_opening_ms = round(_camera_cpu(service)[0] * 1000, 1)
        idle = 0
        moves = _moves(service)
        mistakes = 0
        owed = 0  # mistakes made and not yet followed by progress
        work = 0.0
        camera_work = _camera_cpu(service)  # (reading, the whole process)
        scores: list[float] = []
        for _ in range(MAX_TICKS):
            if service.game.open is None:
                figures.games_finished = 1
                break
            scores = service.game.open.state.scores()
            started = time.thread_time()
            service.owner.pump()  # a computer's decision comes back as a command, then the tick
            work += time.thread_time() - started
            _computer_caught_up(service)
            _board_caught_up(service)
            bots = service.inputs.bots
            if bots is not None and bots.stats.mistakes > mistakes:
                owed += bots.stats.mistakes - mistakes
                mistakes = bots.stats.mistakes
            now = _moves(service)
            if now != moves or service.game.open is None:
                camera_now = _camera_cpu(service)
                if now > moves:
                    figures.work_per_move_ms.append(work * 1000 / (now - moves))
                    read, whole = (
                        (a - b) * 1000 / (now - moves)
                        for a, b in zip(camera_now, camera_work, strict=True)
                    )
                    figures.camera_work_per_move_ms.append(read)
                    figures.camera_process_per_move_ms.append(whole)
                moves, idle, work, camera_work = now, 0, 0.0, camera_now
                figures.mistakes_recovered += owed
                owed = 0
                continue
            _camera_caught_up(service)
            idle += 1
            if idle >= STALL_TICKS:
                figures.stalls = 1
                figures.stalled_at.append(f"{game} seed {seed}: " + _last_said(service)[:200])
                break
        finished = service.game.finished
        if figures.games_finished and finished is not None:
            scores = list(finished["scores"])  # the end's scoring too (the last action's)
        figures.top_scores = [max(scores)] if scores else []
        bots = service.inputs.bots
        if bots is not None:
            figures.mistakes_made = bots.stats.mistakes
            figures.mistakes_alerted = bots.stats.mistakes_alerted
            figures.false_applied = bots.stats.mistakes_applied
    finally:
        service.stop()
        logging.getLogger("railtable").removeHandler(errors)
    reader = LogReader(folder / "railtable.sqlite3")
    seats = frozenset(range(players - computers, players))
    figures.seat_moves, figures.decisions_taken_for_player, figures.computer_moves = _from_log(
        reader, record.id, game, seats
    )
    figures.log_errors = errors.count
    return figures


def _last_said(service: TableService) -> str:
    """The verdict standing when a game stalled, else the last one the log holds, and who was
    to act: what a stall says to whoever reads the figures."""
    verdict = service.game.verdict
    opened = service.game.open
    book = Book.of(opened.info if opened is not None else None, plain=True)
    text = verdict_line(verdict, book) if verdict is not None else ""
    record = opened.record if opened is not None else None
    if not text and record is not None:
        rows = service.log.events(record.id, limit=100_000)
        last = [e for e in rows if e.kind is EventKind.VERDICT]
        text = "(last) " + str(said(last[-1].data, book).get("text", "")) if last else "no verdict"
    turn = opened.state.current_player if opened is not None else None
    return f"{text}; to act: {'chance' if turn == CHANCE else turn}"


def _computer_caught_up(service: TableService) -> None:
    """Wait for a computer's search under way (it runs in its own process, not on this thread):
    its time is not the table's, and no tick passes idle while it thinks."""
    if not service.computers.busy:
        return
    deadline = time.monotonic() + COMPUTER_WAIT_S
    while service.computers.busy and time.monotonic() < deadline:
        time.sleep(0.001)
    if service.computers.busy:
        return
    service.owner.pump()  # the decision that came: taken now


def _camera_cpu(service: TableService) -> tuple[float, float]:
    """The camera process's CPU time so far (its restarts' included): reading its frames, and
    all of it (s)."""
    eyes = service.inputs.eyes
    return (eyes.read_cpu_s, eyes.cpu_s) if isinstance(eyes, CameraProcess) else (0.0, 0.0)


def _camera_caught_up(service: TableService) -> None:
    """A tick that changed nothing: wait until the camera shows the simulated table as it lies,
    settled (its frames take real time, in its own process; the ticks run flat out), or away.
    Its time is not the table's."""
    eyes, physical = service.inputs.eyes, service.inputs.physical
    if not isinstance(eyes, CameraProcess) or physical is None:
        return
    deadline = time.monotonic() + CAMERA_WAIT_S
    while time.monotonic() < deadline:
        view = eyes.latest
        if view.state == "disconnected" or (view.still and view.version == physical.version):
            return  # (away: the table goes on with the sensor board alone)
        time.sleep(0.0005)


def _moves(service: TableService) -> int:
    opened = service.game.open
    return len(opened.state.history) if opened is not None else -1


def _board_caught_up(service: TableService, timeout_s: float = 2.0) -> None:
    """Wait until the sensor board has reported the magnets the bots laid (its scan, debounce and
    serial frames take real time; everything else runs flat out)."""
    link, physical = service.inputs.link, service.inputs.physical
    if link is None or physical is None:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        occupancy = link.occupancy
        if occupancy is not None:
            seen = frozenset((s.row, s.col) for s in occupancy.occupied)
            if seen == physical.magnets():
                return
        time.sleep(0.0005)


def _from_log(
    reader: LogReader, game_id: int, game: str, computers: frozenset[int] = frozenset()
) -> tuple[int, int, int]:
    """Seat moves in the log, inputs the referee applied itself (from its verdicts), and the
    computer seats' moves."""
    codec = game_named(game).state_class.CODEC
    moves = 0
    taken = 0
    computer_moves = 0
    for event in reader.events(game_id, limit=1_000_000):
        if event.kind is EventKind.ACTION and event.seat is not None and event.seat >= 0:
            moves += 1
            computer_moves += event.seat in computers
        elif event.kind is EventKind.VERDICT and event.data.get("kind") == "applied":
            for data in event.data.get("actions", []):
                action = codec.parse(data)
                if not action.CHANCE_OUTCOME and action.VISIBILITY is Visibility.INPUT:
                    taken += 1
    return moves, taken, computer_moves
