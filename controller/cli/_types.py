"""Shared types for sub-command modules of the `railtable` command line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """A command given input it cannot use; the message says what was wrong, in one line."""


def positive(text: str) -> int:
    """A flag's whole number of at least 1, or argparse's one-line error naming the value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def whole_between(low: int, high: int) -> Callable[[str], int]:
    """A checker for a flag's whole number from `low` to `high`: argparse's one-line error names
    the value and the range."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not from {low} to {high}")
        return value

    return whole


def positive_number(text: str) -> float:
    """A flag's number above 0, or argparse's one-line error naming the value."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not more than 0")
    return value
