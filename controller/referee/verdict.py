"""What the referee says about a settled table: one verdict, as data.

A verdict holds no words: its kind, why (`Reason`), whose it is, the actions, locations, pieces and
instructions it rests on. Every line a person reads or hears is made from it at the edge
(`controller/words/`), per audience and with the players' names."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.referee.observe import LocationView, Seen
from controller.referee.tables import Pieces, piece_text
from rules.core import Action, Visibility


class VerdictKind(StrEnum):
    """The one thing the referee says about a settled table."""

    IN_SYNC = "in_sync"  # the table is what the rules expect
    APPLIED = "applied"  # apply `actions` in order (then follow `instructions`, if any)
    CHOICE = "choice"  # apply `actions`, then `seat` picks one of `options`
    NEEDS_INPUT = "needs_input"  # apply `actions`, then `seat` says which of `options` (unseen)
    INSTRUCTIONS = "instructions"  # players are carrying out what the rules did; this is left
    ALERT = "alert"  # no legal action explains the table: `wrong` names each location
    TAKE_BACK = "take_back"  # the table is back to before the last `undo` actions: offer to undo
    WAITING = "waiting"  # the change cannot be judged while `locations` are covered


class Reason(StrEnum):
    """Why the verdict is what it is: what its words say."""

    AS_EXPECTED = "as_expected"  # in sync
    SEEN = "seen"  # a move seen on the table, applied
    COMPUTER_DECIDES = "computer_decides"  # a computer seat decides its move next
    FOLLOWING = "following"  # players carrying out what the rules did
    MANY_READINGS = "many_readings"  # the table fits more than one move: which was it?
    HIDDEN_CHOICE = "hidden_choice"  # a seat's concealed choice, made on its own phone
    OWN_DECISION = "own_decision"  # someone's own decision the table cannot show
    UNSEEN_INPUT = "unseen_input"  # something the table cannot show: say which
    CAME_UP = "came_up"  # a real draw no input here sees: say which came up
    COVERED = "covered"  # the change touches locations covered now
    COVERED_MANY = "covered_many"  # more than one move (or a turn's end) while some are covered
    DRAW_NOT_SHOWN = "draw_not_shown"  # what came up does not show on the table yet
    NEEDS_COVERED = "needs_covered"  # the move needs locations covered now
    BACK_TO_BEFORE = "back_to_before"  # the table is back to before the last actions
    NOT_LEGAL = "not_legal"  # no legal move explains the table
    TOO_MANY = "too_many"  # a piece lies on more locations than the game has of it
    REAL_DRAW_KEPT = "real_draw_kept"  # back to before, but real draws came since


class Wrong(StrEnum):
    """What is said of one location no legal move explains."""

    LEGAL_HERE = "legal_here"  # other moves are legal here
    COMPUTER_SEAT = "computer_seat"  # it is a computer's turn: it makes its own moves
    OUT_OF_TURN = "out_of_turn"  # a later seat's move: the seat to act has not ended its turn
    NO_LEGAL_MOVE = "no_legal_move"  # no legal move puts it there
    TOO_MANY = "too_many"  # more of this piece than the game has


@dataclass(frozen=True)
class Instruction:
    """Something players must do on one location so the table matches the rules."""

    location: str
    take_off: Pieces = ()
    put_on: Pieces = ()
    want: Pieces = ()  # what should lie there in the end

    @property
    def does_something(self) -> bool:
        return bool(self.take_off or self.put_on)

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "take_off": [piece_text(p) for p in self.take_off],
            "put_on": [piece_text(p) for p in self.put_on],
            "want": [piece_text(p) for p in self.want],
        }


@dataclass(frozen=True)
class WrongLocation:
    """A location no legal action explains: what lies there, what should, and why not."""

    location: str
    seen: LocationView
    expected: Pieces
    why: Wrong
    legal_here: tuple[Action, ...] = ()  # the legal moves that show here
    legal_kinds: tuple[str, ...] = ()  # only their kinds, where they are a seat's secret
    turn: int | None = None  # whose turn it is
    mover: int | None = None  # OUT_OF_TURN: the seat whose move it would be
    todo: tuple[Instruction, ...] = ()  # OUT_OF_TURN: what the seat to act still has to do
    fix: Instruction | None = None  # how to put it right
    places: tuple[str, ...] = ()  # TOO_MANY: every location the piece lies on
    copies: int = 0  # TOO_MANY: how many the game has
    belongs: tuple[str, ...] = ()  # TOO_MANY: the locations where the rules have it

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "seen": view_json(self.seen),
            "expected": [piece_text(p) for p in self.expected],
            "why": self.why.value,
            "legal_here": [a.to_json() for a in self.legal_here],
            "legal_kinds": list(self.legal_kinds),
            "turn": self.turn,
            "mover": self.mover,
            "todo": [i.to_json() for i in self.todo],
            "fix": self.fix.to_json() if self.fix is not None else None,
            "places": list(self.places),
            "copies": self.copies,
            "belongs": list(self.belongs),
        }


@dataclass(frozen=True)
class Alternative:
    """One way the table can be read, for a CHOICE or NEEDS_INPUT: its actions, and whether a
    question follows them."""

    actions: tuple[Action, ...]
    asks: bool = False


@dataclass(frozen=True)
class Verdict:
    """What the referee says, as data (`controller/words/` says it in words)."""

    kind: VerdictKind
    reason: Reason
    actions: tuple[Action, ...] = ()
    options: tuple[Alternative, ...] = ()
    seat: int | None = None
    instructions: tuple[Instruction, ...] = ()
    wrong: tuple[WrongLocation, ...] = ()
    undo: int = 0
    locations: tuple[str, ...] = ()
    hidden: bool = False  # a concealed choice: the options are for `seat` alone, not the host
    follows: Reason | None = None  # a question asked right after this (a move seen, in sync)
    drawn: tuple[Action, ...] = ()  # what came up, not shown yet; real draws not taken back
    taken: tuple[Action, ...] = ()  # REAL_DRAW_KEPT: the moves the table is back to before
    asked_kinds: tuple[str, ...] = ()  # HIDDEN_CHOICE: the kinds of choice, not the options
    computer_move: tuple[int, Action] | None = None  # the computer's move (its seat, the
    # action) that this verdict waits on the table to show

    @property
    def settles_table(self) -> bool:
        """Whether the table as seen becomes the table as it lies (in sync, applied, or players
        carrying out instructions); after an alert, a question or a wait it stays as it was."""
        return self.kind in (VerdictKind.IN_SYNC, VerdictKind.APPLIED, VerdictKind.INSTRUCTIONS)

    def to_json(self) -> dict[str, Any]:
        """The verdict as the log and the snapshots keep it: data, no words (draws only a phone
        tells are left out of its actions: a dealt card is private)."""
        return {
            "kind": self.kind.value,
            "reason": self.reason.value,
            "actions": [a.to_json() for a in self.actions if shown(a)],
            "options": [
                {"actions": [a.to_json() for a in o.actions], "asks": o.asks} for o in self.options
            ],
            "seat": self.seat,
            "instructions": [i.to_json() for i in self.instructions],
            "wrong": [w.to_json() for w in self.wrong],
            "undo": self.undo,
            "locations": list(self.locations),
            "hidden": self.hidden,
            "follows": self.follows.value if self.follows is not None else None,
            "drawn": [a.to_json() for a in self.drawn],
            "taken": [a.to_json() for a in self.taken if shown(a)],
            "asked_kinds": list(self.asked_kinds),
            "computer_move": {
                "seat": self.computer_move[0],
                "action": self.computer_move[1].to_json(),
            }
            if self.computer_move is not None
            else None,
        }


def view_json(view: LocationView) -> dict[str, Any]:
    """What was seen of a location, as data."""
    out: dict[str, Any] = {"seen": view.seen.value}
    if view.seen in (Seen.EXACT, Seen.ON_TOP):
        out["pieces"] = [piece_text(p) for p in view.pieces]
    if view.seen is Seen.MAGNET:
        out["magnet"] = view.magnet
    return out


def shown(action: Action) -> bool:
    """A player's action, or a draw the table shows: not a draw only a phone tells (a dealt card
    is private), which verdicts leave out."""
    return not action.CHANCE_OUTCOME or action.VISIBILITY is Visibility.TABLE
