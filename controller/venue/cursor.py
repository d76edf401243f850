"""The "published up to row" of a table: kept in its data folder, so a restart goes on from there.

The file is replaced whole (write, then rename), never half-written. It is not synced to disk on
every batch: a cursor a power cut takes back only makes rows go out again, and the venue drops
a row it already has by its id.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

FILE = "venue-published.json"


@dataclass(frozen=True)
class Cursor:
    """Rows after `origin` (where publishing there began) up to `row` reached the broker named
    `where` (broker URL, venue and table)."""

    where: str
    origin: int
    row: int


def load(folder: Path, where: str) -> tuple[int, int] | None:
    """(origin, row) published to `where`; None if never published there (or unreadable)."""
    try:
        data = json.loads((folder / FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("where") != where:
        return None
    origin, row = data.get("origin"), data.get("row")
    if not (isinstance(origin, int) and isinstance(row, int) and 0 <= origin <= row):
        return None
    return origin, row


def save(folder: Path, cursor: Cursor) -> None:
    """Keep `cursor` (replacing the file whole)."""
    path = folder / FILE
    temporary = path.with_suffix(".tmp")
    kept = {"where": cursor.where, "origin": cursor.origin, "row": cursor.row}
    temporary.write_text(json.dumps(kept))
    os.replace(temporary, path)
