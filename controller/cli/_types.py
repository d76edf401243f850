"""Shared types for sub-command modules of the `railtable` command line."""

from __future__ import annotations

import argparse
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


def busy_count(text: str) -> int:
    """A flag's count of processes from 0 to 8, or argparse's one-line error naming the value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= 8:
        raise argparse.ArgumentTypeError(f"{value} is not from 0 to 8")
    return value


def positive_number(text: str) -> float:
    """A flag's number above 0, or argparse's one-line error naming the value."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not more than 0")
    return value
