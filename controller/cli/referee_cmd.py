"""`railtable bench referee`: how fast and how right the referee reads bot games' tables."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import threading
import time
from typing import Any

from controller.cli._types import Subparsers, positive, whole_between


def register(commands: Subparsers, benches: Subparsers) -> None:
    """Add the `referee` bench target."""
    bench = benches.add_parser(
        "referee",
        help="bot games shown to the referee: verdict times, recovered fraction, false applies",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--game", action="append", default=[], help="a game (default: every one)")
    bench.add_argument("--seeds", type=positive, default=4, help="bot games per game")
    bench.add_argument("--players", type=positive, default=None, help="default: each count")
    bench.add_argument(
        "--busy",
        type=whole_between(0, 8),
        default=0,
        help="processes rendering camera frames and reading them with the vision pipeline "
        "beside the bench, as the service does on the same Pi (default 0: none)",
    )
    bench.add_argument(
        "--computer",
        choices=("none", "process", "thread"),
        default="none",
        help="a computer player's search running all the while beside the bench: in a process "
        "of its own as the service runs it, or on a thread of the bench's own process "
        "(default none)",
    )
    bench.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    import rules
    from controller.referee.cases import bench

    games = args.game or list(rules.GAMES)
    for name in games:
        rules.game_named(name)  # an unknown game: one line naming the known ones
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    beside = [
        context.Process(target=keep_busy, args=(stop,), daemon=True) for _ in range(args.busy)
    ]
    for process in beside:
        process.start()
    thinking = Thinking(args.computer)
    try:
        if beside:
            time.sleep(3.0)  # the renderers past their start-up, at work
        thinking.start()
        figures = bench(games, args.seeds, args.players)
        figures["busy_processes"] = args.busy
        figures["computer"] = args.computer
        figures["computer_decisions"] = thinking.decisions
        figures["load_average"] = round(os.getloadavg()[0], 2)
    finally:
        thinking.stop()
        stop.set()
        for process in beside:  # a renderer holds nothing worth finishing: stopped at once
            process.terminate()
            process.join(timeout=10)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:30} {value}")
    return 0


class Thinking:
    """A computer player thinking beside the bench: normal-level searches of an Off the Rails
    position, one after another, in the search process or on a thread of this process."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.decisions = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.where != "none":
            self._thread = threading.Thread(target=self._think, daemon=True)
            self._thread.start()
            time.sleep(1.5)  # the search process started, a search under way

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _think(self) -> None:
        from controller.game.search_process import SearchProcess
        from rules.ai.player import Level, decide
        from rules.core import CHANCE
        from rules.playout import chance_step
        from rules.registry import new_game

        state = new_game("offtherails", {"players": 2}, 3)
        chance = random.Random(3)
        while state.current_player == CHANCE:
            state.apply(chance_step(state, chance))
        searcher = SearchProcess()
        try:
            while not self._stop.is_set():
                if self.where == "thread":
                    decide(state, Level.NORMAL, self.decisions)
                else:
                    searcher.decide(state, Level.NORMAL, self.decisions, None)
                self.decisions += 1
        finally:
            searcher.close()


def keep_busy(stop: Any) -> None:
    """Render a short game's camera frames and read them with the vision pipeline, again and
    again, until `stop` is set: the work that shares a Pi with the referee."""
    from vision.bench import run_bench

    while not stop.is_set():
        run_bench(moves=6, naive=False, opening_pieces=20)
