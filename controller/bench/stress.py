"""`railtable bench stress`: phones hammering the service while the bots play and the referee
searches; the game must keep one owner, every state read must be a committed one, and the log must
replay to the live game.

The service runs on the simulated table (camera, sensor board, bots with mistakes) with its API on
a loopback port. Phone threads read the status, the state, the table and the verdict, post actions
and answers for their seats; the host undoes, accepts the table and switches games. Meanwhile:
- `ThreadWatch` records every thread that calls into the live `State` (it must be the owner's
  alone);
- `LoopWatch` times each callback of the HTTP event loop in the loop thread's own CPU time (a
  handler that works on the loop for more than 20 ms blocks every phone); a garbage collection the
  interpreter happens to run inside a callback is the whole process's cost, not the handler's, so
  it is taken out of the callback's time and reported apart (`loop_gc_max_ms`);
- each state read names the log row it includes (`at_row`); afterwards the log's rows up to it are
  replayed and must give exactly the view that was read.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from controller.api.app import create_app
from controller.game.store import LogReader, replay
from controller.table.service import ServiceSettings, TableService
from rules.core import State
from rules.registry import GAMES

PIN = "13579"
WARM_UP_S = 3.0  # the loop's callbacks are timed after this: each route's first call is slower
WATCHED = ("apply", "undo", "legal_actions", "view", "scores", "score_parts", "to_json")


class ThreadWatch:
    """Records the threads that call into one live `State` (whichever `live()` returns)."""

    def __init__(self, live: Callable[[], State | None]) -> None:
        self.live = live
        self.threads: set[str] = set()
        self._saved: list[tuple[type, str, Any]] = []

    def __enter__(self) -> ThreadWatch:
        classes = {info.state_class for info in GAMES.values()} | {State}
        for cls in classes:
            for name in WATCHED:
                if name in vars(cls):
                    self._saved.append((cls, name, vars(cls)[name]))
                    setattr(cls, name, self._wrap(vars(cls)[name]))
        return self

    def _wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def watched(state: State, *args: Any, **kwargs: Any) -> Any:
            if state is self.live():
                self.threads.add(threading.current_thread().name)
            return method(state, *args, **kwargs)

        return watched

    def __exit__(self, *_: object) -> None:
        for cls, name, method in reversed(self._saved):
            setattr(cls, name, method)


class LoopWatch:
    """Times each callback the watched thread's event loop runs, in that thread's CPU time."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.counting = False  # off while the server warms up (first calls build their models)
        self.callbacks = 0
        self.slow: list[float] = []  # callbacks over 20 ms, in ms
        self.slow_what: list[str] = []  # what they were
        self.longest_ms = 0.0
        self.gc_ms = 0.0  # garbage collections run on the watched thread, in total
        self.gc_longest_ms = 0.0
        self._gc_started: float | None = None
        self._saved: Any = None

    def _on_gc(self, phase: str, _info: dict[str, int]) -> None:
        if threading.get_ident() != self.thread or not self.counting:
            return
        if phase == "start":
            self._gc_started = time.thread_time()
        elif self._gc_started is not None:
            spent = (time.thread_time() - self._gc_started) * 1000
            self._gc_started = None
            self.gc_ms += spent
            self.gc_longest_ms = max(self.gc_longest_ms, spent)

    def __enter__(self) -> LoopWatch:
        handle = asyncio.events.Handle
        self._saved = handle._run
        saved, watch = self._saved, self

        def _run(h: asyncio.events.Handle) -> None:
            if threading.get_ident() != watch.thread or not watch.counting:
                saved(h)
                return
            request = _request_of(h)  # read before the step: a finished coroutine has no frame
            started, gc_before = time.thread_time(), watch.gc_ms
            try:
                saved(h)
            finally:
                spent = (time.thread_time() - started) * 1000 - (watch.gc_ms - gc_before)
                watch.callbacks += 1
                watch.longest_ms = max(watch.longest_ms, spent)
                if spent > 20.0:
                    watch.slow.append(spent)
                    watch.slow_what.append(f"{spent:.0f} ms: {_what(h)}{request}")

        handle._run = _run  # type: ignore[method-assign,assignment]
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._on_gc)
        asyncio.events.Handle._run = self._saved  # type: ignore[method-assign]


def _request_of(handle: asyncio.events.Handle) -> str:
    """' (GET /api/state)' when the callback steps an HTTP request's coroutine, else ''."""
    task = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
    if not isinstance(task, asyncio.Task):
        return ""
    coro = task.get_coro()
    if getattr(coro, "__qualname__", "") != "RequestResponseCycle.run_asgi":
        return ""
    frame = getattr(coro, "cr_frame", None)
    scope = getattr(frame.f_locals.get("self"), "scope", None) if frame is not None else None
    if not isinstance(scope, dict):
        return ""
    return f" ({scope.get('method')} {scope.get('path')})"


def _what(handle: asyncio.events.Handle) -> str:
    """The coroutine a slow callback was stepping, else the callback."""
    task = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    frame = getattr(coro, "cr_frame", None)
    where = f" at {frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else ""
    scope = getattr(frame.f_locals.get("self"), "scope", None) if frame is not None else None
    if isinstance(scope, dict):
        where += f" ({scope.get('method')} {scope.get('path')})"
    name = getattr(coro, "__qualname__", None) or repr(handle._callback)  # type: ignore[attr-defined]
    return f"{name}{where}"[:300]


@dataclass
class Phones:
    """What the phones saw: latencies, answers by kind, the states read."""

    status_ms: list[float] = field(default_factory=list)
    requests: int = 0
    refused: int = 0  # 4xx: a phone asking for what it may not (expected now and then)
    server_errors: list[str] = field(default_factory=list)  # 5xx or a broken connection
    actions_accepted: int = 0
    reads: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class StressReport:
    """The figures of one run; the last five must be 0, 1 and true for a pass."""

    seconds: float
    phones: int
    busy_processes: int
    camera_flat_out: bool
    camera_frames: int  # frames the camera read (the last mat's camera)
    requests: int
    refused_4xx: int
    actions_from_phones: int
    bot_moves: int
    log_rows: int
    status_p50_ms: float
    status_p99_ms: float
    status_max_ms: float
    loop_callbacks: int
    loop_callback_max_cpu_ms: float
    reads_checked: int
    server_errors: int
    service_errors: int
    loop_callbacks_over_20ms: int
    loop_slow_callbacks: list[str]
    loop_gc_max_ms: float
    reads_not_committed: int
    threads_touching_state: int
    log_replays_to_live: bool

    @property
    def passed(self) -> bool:
        return (
            self.server_errors == 0
            and self.service_errors == 0
            and self.loop_callbacks_over_20ms == 0
            and self.reads_not_committed == 0
            and self.threads_touching_state == 1
            and self.log_replays_to_live
        )

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed}


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


def run(
    seconds: float,
    folder: Path,
    phones: int = 8,
    busy: int = 0,
    game: str = "offtherails",
    players: int = 4,
    seed: int = 1,
    camera_flat_out: bool = False,
) -> StressReport:
    """Stress the service for `seconds`; `busy` processes burn CPU beside it meanwhile;
    `camera_flat_out`: the simulated camera draws and reads frames all the while, never
    resting, as a real camera's frames keep coming."""
    settings = ServiceSettings(
        data_dir=folder,
        pin=PIN,
        game=game,
        players=players,
        seed=seed,
        tick_s=0.02,
        bot_period_s=0.1,
        camera_period_s=0.0 if camera_flat_out else 0.1,
        camera_rests=not camera_flat_out,
        mistake_rate=0.1,
    )
    service = TableService(settings)
    errors = _Errors()
    logging.getLogger("railtable").addHandler(errors)
    seen = Phones()
    with (
        ThreadWatch(lambda: getattr(service.game.open, "state", None)) as threads,
        LoopWatch() as loop_watch,
        _burners(busy),
    ):
        service.start()
        gc.freeze()  # as `railtable serve` does once started
        port = _free_port()
        server, server_thread = _serve(service, port, loop_watch)
        stop = threading.Event()
        url = f"http://127.0.0.1:{port}"
        workers = [
            threading.Thread(
                target=_phone, args=(url, i, players, seen, stop, seconds), name=f"phone-{i}"
            )
            for i in range(phones)
        ]
        for worker in workers:
            worker.start()
        time.sleep(min(WARM_UP_S, seconds / 4))
        loop_watch.counting = True
        time.sleep(seconds - min(WARM_UP_S, seconds / 4))
        stop.set()
        for worker in workers:
            worker.join(30)
        matches = service.owner.call_sync(_replays_to_live)
        bot_moves = service.inputs.bots.stats.played if service.inputs.bots is not None else 0
        eyes = service.inputs.eyes
        camera_frames = 0 if eyes is None else int(eyes.frames)
        server.should_exit = True
        server_thread.join(15)
        service.stop()
    logging.getLogger("railtable").removeHandler(errors)
    reader = LogReader(folder / "railtable.sqlite3")
    checked, wrong = _check_reads(reader, seen.reads)
    ordered = sorted(seen.status_ms) or [0.0]

    def q(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 1)

    return StressReport(
        seconds=seconds,
        phones=phones,
        busy_processes=busy,
        camera_flat_out=camera_flat_out,
        camera_frames=camera_frames,
        requests=seen.requests,
        refused_4xx=seen.refused,
        actions_from_phones=seen.actions_accepted,
        bot_moves=bot_moves,
        log_rows=reader.last_id(),
        status_p50_ms=q(0.5),
        status_p99_ms=q(0.99),
        status_max_ms=round(ordered[-1], 1),
        loop_callbacks=loop_watch.callbacks,
        loop_callback_max_cpu_ms=round(loop_watch.longest_ms, 1),
        reads_checked=checked,
        server_errors=len(seen.server_errors),
        service_errors=len(errors.records),
        loop_callbacks_over_20ms=len(loop_watch.slow),
        loop_slow_callbacks=loop_watch.slow_what[:10],
        loop_gc_max_ms=round(loop_watch.gc_longest_ms, 1),
        reads_not_committed=wrong,
        threads_touching_state=len(threads.threads),
        log_replays_to_live=matches,
    )


def _replays_to_live(game: Any) -> bool:
    opened = game.open
    if opened is None:
        return True
    return bool(game.log.replay(opened.record).to_json() == opened.state.to_json())


def _check_reads(
    reader: LogReader, reads: list[tuple[int, int, dict[str, Any]]]
) -> tuple[int, int]:
    """Replay each read's game up to its row: the view read must be exactly that state's."""
    wrong = 0
    for game_id, row, view in reads:
        record = reader.game(game_id)
        if record is None:
            wrong += 1
            continue
        rows = [e for e in reader.events(game_id, limit=1_000_000) if e.id <= row]
        if replay(record, rows).view(None) != view:
            wrong += 1
    return len(reads), wrong


def _serve(
    service: TableService, port: int, watch: LoopWatch
) -> tuple[uvicorn.Server, threading.Thread]:
    config = uvicorn.Config(
        create_app(service),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        proxy_headers=False,
        loop="asyncio",
    )
    server = uvicorn.Server(config)

    def serve() -> None:
        loop = asyncio.new_event_loop()
        watch.thread = threading.get_ident()
        loop.run_until_complete(server.serve())
        loop.close()

    thread = threading.Thread(target=serve, name="http", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    return server, thread


def _phone(
    url: str, index: int, players: int, seen: Phones, stop: threading.Event, seconds: float
) -> None:
    """One phone: a seat (the first `players`), the host (the next), or a spectator."""
    rng = random.Random(index)
    host = {"X-Table-Pin": PIN}
    started = time.monotonic()
    switched = False
    with httpx.Client(base_url=url, timeout=30) as client:
        headers: dict[str, str] = {}
        is_host = index == players
        if is_host:
            headers = host
        elif index < players:
            token = client.post(f"/api/seats/{index}/token", headers=host)
            if token.status_code == 200:
                headers = {"X-Seat-Token": token.json()["token"]}
        while not stop.is_set():
            try:
                began = time.perf_counter()
                status = _get(client, "/api/status", headers, seen)
                with seen.lock:
                    seen.status_ms.append((time.perf_counter() - began) * 1000)
                state = _get(client, "/api/state", {}, seen)
                if state is not None and rng.random() < 0.2:
                    with seen.lock:
                        if len(seen.reads) < 120:
                            seen.reads.append((state["game_id"], state["at_row"], state["view"]))
                _get(client, "/api/table", headers, seen)
                verdict = _get(client, "/api/verdict", headers, seen)
                if headers and not is_host:
                    choices = _get(client, "/api/choices", headers, seen) or []
                    if choices and rng.random() < 0.5:
                        pick = rng.choice(choices)["action"]
                        _post(client, "/api/actions", {"action": pick}, headers, seen)
                    if verdict and verdict.get("options") and rng.random() < 0.5:
                        option = rng.randrange(len(verdict["options"]))
                        _post(client, "/api/answer", {"option": option}, headers, seen)
                if is_host:
                    elapsed = time.monotonic() - started
                    if not switched and elapsed > seconds / 2:
                        switched = True
                        other = {"game": "minewagons", "options": {"players": 2}, "seed": 3}
                        _post(client, "/api/games", other, headers, seen)
                    elif rng.random() < 0.02:
                        _post(client, "/api/undo", {"count": 1}, headers, seen)
                    elif rng.random() < 0.02:
                        _post(client, "/api/table/accept", {}, headers, seen)
                del status
                time.sleep(0.01)
            except httpx.HTTPError as error:
                with seen.lock:
                    seen.server_errors.append(f"{type(error).__name__}: {error}")


def _get(client: httpx.Client, path: str, headers: dict[str, str], seen: Phones) -> Any:
    r = client.get(path, headers=headers)
    return _answer(r, seen)


def _post(client: httpx.Client, path: str, body: Any, headers: dict[str, str], seen: Phones) -> Any:
    r = client.post(path, json=body, headers=headers)
    answer = _answer(r, seen)
    if r.status_code == 200 and path == "/api/actions":
        with seen.lock:
            seen.actions_accepted += 1
    return answer


def _answer(r: httpx.Response, seen: Phones) -> Any:
    with seen.lock:
        seen.requests += 1
        if r.status_code >= 500:
            seen.server_errors.append(f"{r.request.method} {r.request.url.path}: {r.text[:200]}")
        elif r.status_code >= 400:
            seen.refused += 1
    return r.json() if r.status_code == 200 else None


@contextlib.contextmanager
def _burners(count: int) -> Iterator[None]:
    """`count` processes that burn CPU: the machine busy with other work."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
