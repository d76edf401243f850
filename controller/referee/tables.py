"""Tables as the referee holds them: pieces per location, and the one way to compare two."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from controller.referee.observe import LocationView, Observation, Seen
from rules.physical import Piece, PlacedPiece

Pieces = tuple[PlacedPiece, ...]
Table = Mapping[str, Pieces]


def changed_locations(before: Table, after: Table) -> frozenset[str]:
    """The locations whose pieces differ between two tables.

    The referee's tables share one tuple per distinct set of pieces (`Referee.table_of`), so most
    locations compare by identity; the search calls this for every node it tries."""
    changed = [
        n for n, was in before.items() if (now := after.get(n, ())) is not was and now != was
    ]
    changed.extend(n for n, now in after.items() if now and n not in before)
    return frozenset(changed)


def without(pieces: Pieces, taken: Pieces) -> Pieces:
    """`pieces` less one of each of `taken` (those it holds)."""
    left = list(pieces)
    for piece in taken:
        if piece in left:
            left.remove(piece)
    return tuple(left)


def holds(pieces: Pieces, some: Pieces) -> bool:
    """Whether `pieces` holds each of `some` (as many times as `some` lists it)."""
    return len(without(pieces, some)) == len(pieces) - len(some)


def as_laid(
    before: Table,
    observation: Observation,
    rules: Table | None = None,
    fits: Callable[[LocationView, Pieces], bool] | None = None,
) -> dict[str, Pieces]:
    """The table as now believed to lie: what is seen exactly, and what was there elsewhere.

    Where less than everything is seen (only magnets, the pieces on top of others, nothing), the
    rules' table `rules` is believed where it agrees with what is seen (`fits`): with the sensor
    board alone a wagon moved is believed gone from where it left and off the starting area it
    came from; what a wagon stands on is the tile the rules put there."""
    table = dict(before)
    for name, view in observation.views.items():
        if view.seen is Seen.EXACT:
            table[name] = view.pieces
        elif rules is not None and fits is not None and fits(view, rules.get(name, ())):
            table[name] = rules.get(name, ())
        elif view.seen is Seen.ON_TOP:
            top = view.pieces
            table[name] = tuple(sorted((*top, *without(before.get(name, ()), top))))
    return table


_TURNS = "NESW"


def piece_text(placed: PlacedPiece) -> str:
    """A piece as data: `minecart:red-white@S` (kind:identity[:face], turned N, E, S or W)."""
    return f"{placed.piece}@{_TURNS[placed.rotation % 4]}"


def piece_from_text(text: str) -> PlacedPiece:
    """The piece `piece_text` wrote."""
    name, _, turned = text.partition("@")
    kind, _, rest = name.partition(":")
    identity, _, face = rest.partition(":")
    return PlacedPiece(Piece(kind, identity, face), _TURNS.index(turned) if turned else 0)
