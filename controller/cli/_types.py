"""Shared types for sub-command modules of the `railtable` command line."""

from __future__ import annotations

import argparse
from typing import TypeAlias

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """A command given input it cannot use; the message says what was wrong, in one line."""
