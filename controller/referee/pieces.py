"""What the referee knows of a game's pieces: their canonical forms, how they fit what is seen,
how far a location is from what is seen, and their names."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from controller.referee.observe import LocationView, Observation, Seen
from controller.referee.tables import Pieces, holds, without
from rules.core import Action, State
from rules.physical import Catalogue, Piece, PlacedPiece, TableObservation

_IDENTITY_MEMO = 20_000  # tuples of pieces the referee knows by identity, at most
_CANONICAL_MEMO = 50_000  # tuples of pieces whose canonical form is remembered, at most

PiecesOf = Callable[[State], Iterable[tuple[str, Pieces]]]
WhilePlayed = Callable[[State, Action], TableObservation | None]


class PieceKnowledge:
    """One game's pieces as the referee compares them (from the game's catalogue) and the
    rules' table for a state, in canonical form."""

    def __init__(
        self,
        catalogue: Catalogue,
        pieces_of: PiecesOf,
        while_played: WhilePlayed | None = None,
    ) -> None:
        self._pieces_of = pieces_of
        self._while_played = while_played
        entries = catalogue.by_piece()
        self._rotations = {p: e.rotations for p, e in entries.items()}
        self._labels = {p: e.label for p, e in entries.items()}
        self._turns = {p: e.turns for p, e in entries.items() if e.turns}
        self._magnetic = frozenset(p for p, e in entries.items() if e.magnetic)
        self._copies = {p: e.copies for p, e in entries.items()}
        self._canonical: dict[Pieces, Pieces] = {}
        self._by_identity: dict[int, tuple[Pieces, Pieces]] = {}

    # ---- canonical forms and the rules' table
    def canonical(self, pieces: Iterable[PlacedPiece]) -> Pieces:
        """Pieces with each rotation reduced to the turns that look different for that piece
        (a tuple is remembered: the search asks again for every location seen, at every node)."""
        known = self._canonical
        if type(pieces) is tuple:
            same = known.get(pieces)
            if same is not None:
                return same
        reduced = tuple(
            sorted(
                PlacedPiece(p.piece, p.rotation % self._rotations.get(p.piece, 4)) for p in pieces
            )
        )
        if type(pieces) is tuple:
            if len(known) >= _CANONICAL_MEMO:
                known.clear()
            known[pieces] = reduced
        return reduced

    def table_of(self, state: State) -> dict[str, Pieces]:
        """The rules' table for a state, rotations reduced (memoised per location's pieces).

        The search calls this for every node it tries. A game that hands out the same tuple for
        the same pieces (a tile alone on its square) is answered by the tuple's identity, without
        hashing its pieces; the memo holds each tuple it names, so no identity is reused while
        it is there, and it is emptied when it grows large (fresh tuples from other games)."""
        by_id = self._by_identity
        out = {}
        for name, pieces in self._pieces_of(state):
            if not pieces:
                continue
            hit = by_id.get(id(pieces))
            if hit is not None and hit[0] is pieces:
                out[name] = hit[1]
                continue
            same = self.canonical(pieces)
            if len(by_id) >= _IDENTITY_MEMO:
                by_id.clear()
            by_id[id(pieces)] = (pieces, same)
            out[name] = same
        return out

    def table_as_laid(self, state: State, action: Action) -> dict[str, Pieces] | None:
        """The table the moment `action` is laid, before its consequences are carried out by
        hand (the game's `table_while_played`), or None where that is the table after it."""
        if self._while_played is None:
            return None
        during = self._while_played(state, action)
        if during is None:
            return None
        return {n: self.canonical(ps) for n, ps in during.pieces}

    def base(self, table: TableObservation | Mapping[str, Pieces]) -> dict[str, Pieces]:
        """A table as last accepted, in canonical form (empty locations left out)."""
        items = table.pieces if isinstance(table, TableObservation) else table.items()
        return {n: self.canonical(ps) for n, ps in items if ps}

    # ---- against what is seen
    def fits(self, view: LocationView, pieces: Pieces) -> bool:
        """Whether what is seen of a location agrees with these pieces lying there."""
        if view.seen is Seen.EXACT:
            return self.canonical(view.pieces) == pieces
        if view.seen is Seen.MAGNET:
            return view.magnet == any(p.piece in self._magnetic for p in pieces)
        if view.seen is Seen.ON_TOP:  # what stands on top is seen; what it hides may be anything
            return holds(pieces, self.canonical(view.pieces))
        return True

    def hides_change(self, view: LocationView, before: Pieces, after: Pieces) -> bool:
        """Whether a change from `before` to `after` here could not be seen."""
        if before == after or view.seen is Seen.EXACT:
            return False
        if view.seen is Seen.UNKNOWN:
            return True
        if view.seen is Seen.ON_TOP:  # a change under the pieces on top
            top = self.canonical(view.pieces)
            return without(before, top) != without(after, top)
        unmagnetic_before = [p for p in before if p.piece not in self._magnetic]
        unmagnetic_after = [p for p in after if p.piece not in self._magnetic]
        return unmagnetic_before != unmagnetic_after

    def distance(self, view: LocationView, pieces: Pieces) -> int:
        """How many pieces would have to come or go for these pieces to look as seen."""
        if view.seen is Seen.EXACT:
            seen = list(self.canonical(view.pieces))
            extra = 0
            for piece in pieces:
                if piece in seen:
                    seen.remove(piece)
                else:
                    extra += 1
            return extra + len(seen)
        if view.seen is Seen.MAGNET:
            return int(not self.fits(view, pieces))
        if view.seen is Seen.ON_TOP:  # pieces seen on top that are not there
            top = self.canonical(view.pieces)
            return len(top) - (len(pieces) - len(without(pieces, top)))
        return 0

    def taken_off_by_rules(
        self, view: LocationView, pieces: Pieces, table: Mapping[str, Pieces]
    ) -> bool:
        """Whether the table shows these pieces and more, the more being pieces the rules took
        off the table (a derailed cart), not pieces they moved elsewhere."""
        if view.seen is Seen.EXACT:
            seen = list(self.canonical(view.pieces))
            for piece in pieces:
                if piece not in seen:
                    return False
                seen.remove(piece)
            elsewhere = {p.piece for placed in table.values() for p in placed}
            return bool(seen) and not any(p.piece in elsewhere for p in seen)
        if view.seen is Seen.MAGNET:
            return view.magnet and not any(p.piece in self._magnetic for p in pieces)
        return False

    def too_many(self, observation: Observation) -> dict[Piece, list[str]]:
        """Pieces seen on more locations than the game has of them (two of the one Rock)."""
        where: dict[Piece, list[str]] = {}
        for name, view in sorted(observation.views.items()):
            if view.seen in (Seen.EXACT, Seen.ON_TOP):
                for placed in view.pieces:
                    where.setdefault(placed.piece, []).append(name)
        return {p: names for p, names in where.items() if len(names) > self._copies.get(p, 1 << 30)}

    def copies(self, piece: Piece) -> int:
        """How many of this piece the game has."""
        return self._copies.get(piece, 1)

    def is_magnetic(self, piece: Piece) -> bool:
        """Whether the piece carries a magnet (the sensor board feels it)."""
        return piece in self._magnetic

    # ---- words
    def label(self, piece: Piece) -> str:
        return self._labels.get(piece, str(piece))

    def describe_piece(self, placed: PlacedPiece) -> str:
        label, turn = self.piece_words(placed)
        return label + turn

    def piece_words(self, placed: PlacedPiece) -> tuple[str, str]:
        """The piece's name and how it is turned, apart, so an instruction can name the square
        between them ("put the corner track on B4, joining south and west")."""
        turns = self._rotations.get(placed.piece, 4)
        label = self.label(placed.piece)
        if turns == 1:
            return label, ""
        said = self._turns.get(placed.piece)
        if said:  # the game's words for it: "corner track", ", joining south and west"
            return label, f", {said[placed.rotation % len(said)]}"
        return label, f" turned {'NESW'[placed.rotation % 4]}"

    def describe_pieces(self, pieces: Pieces) -> str:
        return " and ".join(self.describe_piece(p) for p in pieces) or "nothing"

    def describe_view(self, view: LocationView) -> str:
        if view.seen is Seen.EXACT:
            return self.describe_pieces(self.canonical(view.pieces))
        if view.seen is Seen.MAGNET:
            return "a magnetic piece" if view.magnet else "no magnetic piece"
        if view.seen is Seen.ON_TOP:
            return self.describe_pieces(self.canonical(view.pieces)) + " (on what it hides)"
        return "something unseen"


def the(words: str) -> str:
    """`the red minecart`, and `the Rock` rather than `the the Rock`."""
    return words if words.lower().startswith("the ") else f"the {words}"
