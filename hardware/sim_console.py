"""Text commands that drive the virtual board: `place 2 3`, `unplug 5`, `corrupt 0.05`..."""

from __future__ import annotations

import math
from dataclasses import replace

from hardware.virtual_board import Faults, VirtualBoard


class ConsoleError(ValueError):
    """A console line that is not a known command with valid arguments."""


class Quit(Exception):
    """The `quit` command."""


def _number(line: str, name: str, text: str, whole: bool = False) -> float:
    """A command's argument as a number, or a ConsoleError naming the argument."""
    try:
        return int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ConsoleError(f"{line.strip()!r}: {name} must be {kind}, got {text!r}") from None


def execute(board: VirtualBoard, line: str) -> str:
    """Carry out one command line; returns what to print. ConsoleError names a bad line."""
    words = line.split()
    if not words:
        return ""
    name, args = words[0].lower(), words[1:]
    try:
        if name in ("place", "lift") and len(args) == 2:
            row = int(_number(line, "ROW", args[0], whole=True))
            col = int(_number(line, "COL", args[1], whole=True))
            (board.place if name == "place" else board.lift)(row, col)
            return f"{name} ({row}, {col})"
        if name == "reset" and not args:
            board.reset()
            return "board reset"
        if name == "unplug" and len(args) == 1:
            seconds = _number(line, "SECONDS", args[0])
            if not (math.isfinite(seconds) and seconds >= 0):
                raise ConsoleError(
                    f"unplug needs a finite number of seconds >= 0: {line.strip()!r}"
                )
            board.unplug(seconds)
            return f"unplugged for {seconds} s"
        if name in ("corrupt", "drop", "delay") and len(args) == 1:
            field = {"corrupt": "corruption_rate", "drop": "drop_rate", "delay": "delay_ms"}[name]
            value = _number(line, "MS" if name == "delay" else "RATE", args[0])
            if name == "delay" and not (math.isfinite(value) and value >= 0):
                raise ConsoleError(f"{line.strip()!r}: MS must be a finite number >= 0")
            if name != "delay" and not 0 <= value <= 1:
                raise ConsoleError(f"{line.strip()!r}: RATE must be within 0..1")
            faults: Faults = replace(board.faults, **{field: value})
            board.set_faults(faults)
            return f"faults now {faults}"
        if name == "show" and not args:
            return describe(board)
        if name == "quit" and not args:
            raise Quit
    except ValueError as error:
        if isinstance(error, ConsoleError):
            raise
        raise ConsoleError(f"{line.strip()!r}: {error}") from None
    raise ConsoleError(f"unknown command or wrong arguments: {line.strip()!r}")


def describe(board: VirtualBoard) -> str:
    """Magnets, lit LEDs, plug state and wire counts, one per line."""
    magnets = " ".join(f"({r},{c})" for r, c in sorted(board.magnets)) or "none"
    lit = [
        f"({r},{c})={board.led(r, c)}"
        for r in range(board.rows)
        for c in range(board.cols)
        if board.led(r, c) != (0, 0, 0)
    ]
    plugged = f"plugged in at {board.path} -> {board.device}" if board.plugged_in else "unplugged"
    return "\n".join(
        (
            f"magnets: {magnets}",
            f"LEDs lit: {' '.join(lit) or 'none'}",
            plugged,
            f"wire: {board.counts}",
            f"faults: {board.faults}",
        )
    )
