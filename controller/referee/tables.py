"""Tables as the referee holds them: pieces per location, and the one way to compare two."""

from __future__ import annotations

from collections.abc import Mapping

from controller.referee.observe import Observation, Seen
from rules.physical import PlacedPiece

Pieces = tuple[PlacedPiece, ...]
Table = Mapping[str, Pieces]


def changed_locations(before: Table, after: Table) -> frozenset[str]:
    """The locations whose pieces differ between two tables."""
    return frozenset(
        n for n in before.keys() | after.keys() if before.get(n, ()) != after.get(n, ())
    )


def as_laid(before: Table, observation: Observation) -> dict[str, Pieces]:
    """The table as now believed to lie: what is seen exactly, and what was there elsewhere."""
    table = dict(before)
    for name, view in observation.views.items():
        if view.seen is Seen.EXACT:
            table[name] = view.pieces
    return table
