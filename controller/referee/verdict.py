"""What the referee says about a settled table: one verdict, its kind and what it rests on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.referee.tables import Pieces
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


@dataclass(frozen=True)
class Instruction:
    """Something players must do on one location so the table matches the rules."""

    location: str
    text: str
    take_off: Pieces = ()
    put_on: Pieces = ()


@dataclass(frozen=True)
class WrongLocation:
    """A location no legal action explains: what lies there, what should, what would be legal."""

    location: str
    seen: str
    expected: str
    legal_here: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Alternative:
    """One way the table can be read, for a CHOICE or NEEDS_INPUT: its actions and their words."""

    actions: tuple[Action, ...]
    text: str


@dataclass(frozen=True)
class Verdict:
    """What the referee says; `text` is one line for everyone at the table."""

    kind: VerdictKind
    text: str
    actions: tuple[Action, ...] = ()
    options: tuple[Alternative, ...] = ()
    seat: int | None = None
    instructions: tuple[Instruction, ...] = ()
    wrong: tuple[WrongLocation, ...] = ()
    undo: int = 0
    locations: tuple[str, ...] = ()
    hidden: bool = False  # a concealed choice: the options are for `seat` alone, not the host

    @property
    def settles_table(self) -> bool:
        """Whether the table as seen becomes the table as it lies (in sync, applied, or players
        carrying out instructions); after an alert, a question or a wait it stays as it was."""
        return self.kind in (VerdictKind.IN_SYNC, VerdictKind.APPLIED, VerdictKind.INSTRUCTIONS)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "text": self.text,
            "actions": [a.to_json() for a in self.actions if shown(a)],
            "options": [
                {
                    "actions": [a.to_json() for a in o.actions],
                    "text": o.text,
                    "words": " then ".join(a.words() for a in o.actions),
                }
                for o in self.options
            ],
            "seat": self.seat,
            "instructions": [{"location": i.location, "text": i.text} for i in self.instructions],
            "wrong": [
                {
                    "location": w.location,
                    "seen": w.seen,
                    "expected": w.expected,
                    "legal_here": list(w.legal_here),
                    "text": w.text,
                }
                for w in self.wrong
            ],
            "undo": self.undo,
            "locations": list(self.locations),
            "hidden": self.hidden,
            "words": self.words(),
        }

    def words(self) -> str:
        """The verdict for a player's phone: the same, with the moves seen in players' words
        (also before a question the move leads to)."""
        seen_ones = [a for a in self.actions if shown(a)]
        seen = "seen on the table: " + ("; ".join(a.words() for a in seen_ones) or "nothing new")
        if self.kind is VerdictKind.APPLIED:
            return seen
        applied = "applied: " + actions_text(self.actions)
        if self.actions and self.text.startswith(applied):
            return seen + self.text[len(applied) :]
        return self.text


def shown(action: Action) -> bool:
    """A player's action, or a draw the table shows: not a draw only a phone tells (a dealt card
    is private), which verdicts' words and JSON leave out."""
    return not action.CHANCE_OUTCOME or action.VISIBILITY is Visibility.TABLE


def actions_text(actions: tuple[Action, ...]) -> str:
    """The actions in words; draws nothing shows are left out (a dealt card is private)."""
    return ", ".join(a.describe() for a in actions if shown(a)) or "nothing"
