"""`railtable bench pi`: the figures of issue 40 in one go (the referee's, the camera's reads, the
start-up, the table's work per move with the camera for every game), each with its budget on
this machine and its estimate on a Raspberry Pi 4 and a Pi 5, from the existing benches run small.

The factors are estimates, not measurements on a Pi (research/raspberry-pi.md, "Speed,
estimated"): a Pi 4 core runs CPython about 6-10x slower than this machine's 2.6 GHz server core
(an n-body run timed here against a published Pi 4 figure), a Pi 5 about 2.5-4.5x (sysbench's Pi 5
/ Pi 4 ratio of about 1.85). The budgets on this machine were set so that x7 fits a Pi 4: the
Pi's target for a figure is its budget here x7, and an estimate fits when it is within that target
(`fits`: at the factor, `fits_worst`: at the range's slow end). Counts that say whether the
referee was right (recovered fraction, false applies, decisions taken for a player) do not scale.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

SOURCE = (
    "research/raspberry-pi.md, 'Speed, estimated': an n-body run timed on this kind of machine "
    "against a published Pi 4 figure; sysbench's Pi 5 / Pi 4 ratio of about 1.85"
)


@dataclass(frozen=True)
class Board:
    """A Raspberry Pi's speed against this machine: how many times slower, and the range."""

    name: str
    factor: float
    low: float
    high: float

    def to_json(self) -> dict[str, Any]:
        return {"factor": self.factor, "low": self.low, "high": self.high, "source": SOURCE}


PI4 = Board("pi4", 7.0, 6.0, 10.0)
PI5 = Board("pi5", 3.5, 2.5, 4.5)
BOARDS = (PI4, PI5)
PI_TARGET_FACTOR = PI4.factor  # a Pi's target for a figure: its budget here this many times


class Kind(StrEnum):
    """How a figure carries to a Pi."""

    TIME = "time"  # scales with the core's speed
    ATMOST = "at_most"  # a count that must stay at or below its budget, anywhere
    ATLEAST = "at_least"  # a fraction that must stay at or above its budget, anywhere


@dataclass(frozen=True)
class Figure:
    """One figure of a bench, its unit and budget on this machine."""

    bench: str
    name: str
    value: float
    budget: float
    unit: str
    kind: Kind = Kind.TIME

    def fits_here(self) -> bool:
        return self.value >= self.budget if self.kind is Kind.ATLEAST else self.value <= self.budget

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "bench": self.bench,
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "kind": self.kind.value,
            "budget": self.budget,
            "fits_here": self.fits_here(),
        }
        for board in BOARDS:
            if self.kind is not Kind.TIME:
                out[board.name] = {"estimate": self.value, "fits": self.fits_here()}
                continue
            target = round(self.budget * PI_TARGET_FACTOR, 3)
            out[board.name] = {
                "estimate": round(self.value * board.factor, 3),
                "low": round(self.value * board.low, 3),
                "high": round(self.value * board.high, 3),
                "target": target,
                "fits": self.value * board.factor <= target,
                "fits_worst": self.value * board.high <= target,
            }
        return out


@dataclass(frozen=True)
class PiSettings:
    """How much each bench runs: small enough for a few minutes in all."""

    referee_games: Sequence[str] = ()  # () = every game
    referee_seeds: int = 1
    vision_moves: int = 12
    vision_width: int = 1280
    vision_height: int = 720
    e2e_samples: int = 6
    e2e_run_s: float = 2.0
    table_games: Sequence[str] = ()  # () = every game
    table_players: int = 2
    table_seed: int = 1


def _referee(settings: PiSettings) -> list[Figure]:
    import rules
    from controller.referee.cases import bench

    games = list(settings.referee_games) or list(rules.GAMES)
    got = bench(games, settings.referee_seeds)

    def figure(name: str, budget: float, unit: str, kind: Kind = Kind.TIME) -> Figure:
        return Figure("referee", name, float(got[name]), budget, unit, kind)

    return [
        figure("infer_cpu_p99_ms", 1.5, "ms"),
        figure("merged_infer_cpu_p99_ms", 12, "ms"),
        figure("recovered_fraction", 1.0, "", Kind.ATLEAST),
        figure("false_applied", 0, "", Kind.ATMOST),
        figure("decisions_taken_for_player", 0, "", Kind.ATMOST),
    ]


def _vision(settings: PiSettings) -> list[Figure]:
    from vision.bench import run_bench

    got = run_bench(
        moves=settings.vision_moves, width=settings.vision_width, height=settings.vision_height
    ).as_dict()
    change, full = got["change_read_cpu_ms_p99"], got["full_read_cpu_ms_p99"]
    return [
        Figure("vision", "change_read_cpu_ms_p99", -1.0 if change is None else change, 25, "ms"),
        Figure("vision", "full_read_cpu_ms_p99", -1.0 if full is None else full, 80, "ms"),
    ]


def _e2e(settings: PiSettings) -> list[Figure]:
    from controller.bench.e2e import bench

    got = bench(settings.e2e_samples, 1, run_s=settings.e2e_run_s)
    return [
        Figure("e2e", "startup_s", float(got["startup_s"]), 0.5, "s"),
        Figure("e2e", "ready_s", float(got["ready_s"]), 2.0, "s"),
    ]


def _table(settings: PiSettings) -> list[Figure]:
    import rules
    from controller.bench.table import Inputs, run

    figures = []
    for game in list(settings.table_games) or list(rules.GAMES):
        info = rules.game_named(game)
        players = min(max(settings.table_players, info.min_players), info.max_players)
        got = run(game, players, Inputs.BOTH, 1, settings.table_seed).to_json()
        figures += [
            Figure(f"table {game}", "work_per_move_p99_ms", got["work_per_move_p99_ms"], 150, "ms"),
            Figure(
                f"table {game}", "camera_work_per_move_p99_ms",
                got["camera_work_per_move_p99_ms"], 150, "ms",
            ),
            Figure(f"table {game}", "false_applied", got["false_applied"], 0, "", Kind.ATMOST),
        ]  # fmt: skip
    return figures


BENCHES: tuple[tuple[str, Callable[[PiSettings], list[Figure]]], ...] = (
    ("referee", _referee),
    ("vision", _vision),
    ("e2e", _e2e),
    ("table", _table),
)


def machine() -> str:
    """This machine's CPU (its model name) and cores."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def run(settings: PiSettings = PiSettings()) -> dict[str, Any]:
    """Every bench in turn; the figures with their budgets and Pi estimates, as JSON."""
    started = time.perf_counter()
    figures: list[Figure] = []
    took: dict[str, float] = {}
    for name, bench in BENCHES:
        began = time.perf_counter()
        figures += bench(settings)
        took[name] = round(time.perf_counter() - began, 1)
    rows = [f.to_json() for f in figures]
    return {
        "machine": machine(),
        "factors": {board.name: board.to_json() for board in BOARDS},
        "pi_target": f"budget here x{PI_TARGET_FACTOR:g}",
        "figures": rows,
        "fits_here": all(r["fits_here"] for r in rows),
        "fits_pi4": all(r["pi4"]["fits"] for r in rows),
        "fits_pi5": all(r["pi5"]["fits"] for r in rows),
        "bench_wall_s": took,
        "wall_s": round(time.perf_counter() - started, 1),
    }


def lines(report: dict[str, Any]) -> list[str]:
    """The report for a person: one figure a line."""
    out = [f"machine: {report['machine']}; a Pi's target: {report['pi_target']}"]
    for board, factor in report["factors"].items():
        out.append(f"{board}: x{factor['factor']:g} (x{factor['low']:g}-x{factor['high']:g})")
    out.append(f"{'bench':22} {'figure':30} {'here':>9} {'budget':>7}  pi4 (range)          pi5")
    for r in report["figures"]:
        pi4, pi5 = r["pi4"], r["pi5"]
        ok = {True: "fits", False: "OVER"}
        span = f"({pi4['low']:g}-{pi4['high']:g})" if "low" in pi4 else ""
        out.append(
            f"{r['bench']:22} {r['name']:30} {r['value']:>9g} {r['budget']:>7g}  "
            f"{pi4['estimate']:g} {span} {ok[pi4['fits']]}   {pi5['estimate']:g} {ok[pi5['fits']]}"
        )
    out.append(
        f"fits here: {report['fits_here']}; Pi 4: {report['fits_pi4']}; Pi 5: {report['fits_pi5']}"
        f" ({report['wall_s']} s)"
    )
    return out
