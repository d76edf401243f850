"""What players must do on a location so the table matches the rules: pieces to take off and
put on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from controller.referee.observe import Observation, Seen
from controller.referee.pieces import PieceKnowledge
from controller.referee.tables import Pieces, without
from controller.referee.verdict import Instruction
from rules.physical import Piece, PlacedPiece


def instructions_for(
    pieces: PieceKnowledge,
    names: Iterable[str],
    expected: Mapping[str, Pieces],
    observation: Observation | None,
) -> tuple[Instruction, ...]:
    """For each location, what to take off and put on so it holds what `expected` says."""
    out = []
    for name in sorted(names):
        view = observation.view(name) if observation is not None else None
        want = expected.get(name, ())
        if view is not None and view.seen is Seen.EXACT:
            have = pieces.canonical(view.pieces)
            take_off = tuple(p for p in have if p not in want)
            put_on = tuple(p for p in want if p not in have)
        elif view is not None and view.seen is Seen.ON_TOP:  # what it hides is not known
            take_off, put_on = without(pieces.canonical(view.pieces), want), ()
        elif view is not None and view.seen is Seen.MAGNET:
            wanted_magnets = tuple(p for p in want if pieces.is_magnetic(p.piece))
            take_off = () if wanted_magnets else (PlacedPiece(Piece("magnetic", "piece")),)
            put_on = wanted_magnets if not view.magnet else ()
        else:
            take_off, put_on = (), want
        out.append(Instruction(name, take_off, put_on, want))
    return tuple(out)
