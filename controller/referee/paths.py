"""The referee's searched sequences: how each step came about, the path a sequence takes over
the table, and a path kept as a candidate reading of the table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from controller.referee.moves import field_values
from controller.referee.tables import Pieces
from rules.core import CHANCE, Action


class StepKind(StrEnum):
    """How one step of a searched sequence would have come about."""

    BY_HAND = "by_hand"  # a player's action that shows on the table
    IMPLIED = "implied"  # unseen, proven by what follows
    DRAWN = "drawn"  # a chance outcome drawn by the digital deck
    SEEN_DRAW = "seen_draw"  # a real draw the table shows (a card turned up in its slot)
    FORCED_INPUT = "forced_input"  # unseen; the rules wait for it
    OPTIONAL_INPUT = "optional_input"  # unseen; taken only when nothing else explains the table


UNSEEN = frozenset({StepKind.IMPLIED, StepKind.FORCED_INPUT, StepKind.OPTIONAL_INPUT})
PLAYED = frozenset({StepKind.BY_HAND, StepKind.IMPLIED, StepKind.OPTIONAL_INPUT})

NEXT_PLAYER = -2  # a `Path.run_seat`: a turn ended unseen and draws followed; whichever
# seat acts first after them proves it (`Action.PROVEN_BY_NEXT_SEAT`)


class Step(NamedTuple):
    """One step onto a path: the action, how it came about, and what it did to the table (a
    named tuple: the search makes one for every step it tries)."""

    action: Action
    kind: StepKind
    table: dict[str, Pieces]  # the rules' table after it
    shows: bool  # it changed a location the table shows changed
    moved: frozenset[str]  # where it changed the table
    seat: int  # who took it (CHANCE for a draw)
    off: frozenset[str]  # where the path now differs from the table, where it shows no change
    laid: Mapping[str, Pieces] | None = None  # where the table may show this play as laid
    next_seat: int | None = None  # who acts after it


@dataclass(frozen=True)
class Path:
    """A searched sequence: its actions, the table it leaves, and what it is made of."""

    actions: tuple[Action, ...]
    table: dict[str, Pieces]
    by_hand: int = 0
    optional_inputs: int = 0
    rules_touched: frozenset[str] = frozenset()  # where hands' actions and draws changed the
    # table, the rules' own consequences among them (carts driven on, tokens drawn)
    run_seat: int | None = None  # the seat whose unseen steps (an implied end of turn, an
    # input) have not yet shown on the table; only that seat's own next action may prove them
    # (after an action the game says the next seat proves, the end of a turn: that seat's)
    quiet: int = 0  # unseen steps in a row that changed nothing on the table (draws aside)
    steps: int = 0  # actions taken by players (draws aside)
    seats: frozenset[int] = frozenset()  # who acted (CHANCE for draws)
    off: frozenset[str] = frozenset()  # locations it changed where the table did not change
    asked: int | None = None  # where an input was taken that the table cannot tell from others,
    # or a seat's own decision (`Decision`): the referee stops there and asks
    shown: Mapping[str, Pieces] = field(default_factory=dict)  # where the table may still show
    # a play as it was laid, its consequences not yet carried out by hand (a trick's last card)
    by_hand_at: frozenset[str] = frozenset()  # locations last changed by a hand's action that
    # names them (a wagon's start and stop), not by what the rules did after it
    passed: bool = False  # a turn ended unseen into draws (`NEXT_PLAYER`): once per reading,
    # or an evening of empty turns could explain any table (a cart driven off, placed again)
    under_hands: int = 0  # hands' actions that changed covered locations alone (a tile laid
    # under a hand): the waiting search allows one more of them in each pass (`_Walk.run`)

    @property
    def run_shows(self) -> bool:
        return self.run_seat is None

    def _may_pass_on(self, seat: int, moved: frozenset[str]) -> bool:
        """Whether the next seat's move may prove that `seat`'s turn ended unseen (the end of a
        turn with nothing left in it, docs/referee.md 'Decisions belong to the players'):
        - no turn ended unseen before in this reading (one at most: a reading never passes
          over a seat's whole turn);
        - nothing of `seat`'s own is still unproven (an unseen speed change: only that seat's
          own visible move proves it, never another seat's);
        - the end of the turn leaves nothing to show (`moved`: no minecart of that seat still
          to move, or to take off);
        - the turn is the reading's first: no other seat acted before it in this reading."""
        return (
            not self.passed and self.run_seat is None and not moved and self.seats <= {seat, CHANCE}
        )

    def _run_after(self, step: StepKind, shows: bool, seat: int) -> int | None:
        if step is StepKind.BY_HAND or shows:
            return None
        if step in (StepKind.DRAWN, StepKind.SEEN_DRAW, StepKind.FORCED_INPUT):
            return self.run_seat
        return seat if self.run_seat in (None, NEXT_PLAYER) else self.run_seat

    def then(self, step: Step) -> Path:
        """The path one step longer."""
        kind, moved, seat = step.kind, step.moved, step.seat
        by_hand = kind is StepKind.BY_HAND
        shown = {n: ps for n, ps in self.shown.items() if n not in moved}
        shown.update(step.laid or {})
        by_rules = by_hand or kind in (StepKind.DRAWN, StepKind.SEEN_DRAW)
        by_rules = by_rules or (kind is StepKind.IMPLIED and step.shows)  # proven by the table:
        # what it set off (a hit minecart turned round) is the rules' own, for players to do
        run = self._run_after(kind, step.shows, seat)
        passed = self.passed
        if (
            run is not None
            and kind is StepKind.IMPLIED
            and step.action.PROVEN_BY_NEXT_SEAT
            and step.next_seat is not None
            and self._may_pass_on(seat, moved)
        ):
            passed = True  # one turn ends unseen in a reading, at most
            if step.next_seat >= 0:
                run = step.next_seat  # the turn passed on unseen: the next seat's move proves it
            elif step.next_seat == CHANCE:
                run = NEXT_PLAYER  # draws come first (Off the Rails' deposits phase): the
                # first player to act after them proves it, whoever the draws make it
        return Path(
            (*self.actions, step.action),
            step.table,
            self.by_hand + by_hand,
            self.optional_inputs + (kind is StepKind.OPTIONAL_INPUT),
            self.rules_touched | moved if by_rules else self.rules_touched,
            run,
            0 if by_hand or moved else self.quiet + (kind is not StepKind.DRAWN),
            self.steps + (kind is not StepKind.DRAWN),
            self.seats | {seat},
            step.off,
            self.asked,  # once a seat is to be asked, nothing after it is applied
            shown,
            by_hand_at=(self.by_hand_at - moved) | (moved & field_values(step.action))
            if by_hand
            else self.by_hand_at - moved,
            passed=passed,
            under_hands=self.under_hands,
        )


@dataclass(frozen=True)
class Candidate:
    """A path that explains the table: what is left to do, and what the reading rests on."""

    actions: tuple[Action, ...]
    leftover: frozenset[str]
    covered: frozenset[str]  # unknown locations the sequence would change
    state_key: str
    by_hand: int  # actions in it that show on the table
    seats: int  # players who act in it
    implied: bool  # it ends a phase or turn unseen (something covered may have come first)
    asked: int | None  # the first input in it that the table cannot tell from others


def best(found: list[Candidate]) -> list[Candidate]:
    """The fewest instructions left, then no sequence that merely extends another one (what
    the table does not show is not taken), and none much longer than the shortest."""
    if not found:
        return []
    fewest = min(len(c.leftover) for c in found)
    fitting = [c for c in found if len(c.leftover) == fewest]
    prefixes = {c.actions for c in fitting}
    minimal = [
        c for c in fitting if not any(c.actions[:k] in prefixes for k in range(1, len(c.actions)))
    ]
    shortest = min(len(c.actions) for c in minimal)
    return [c for c in minimal if len(c.actions) <= shortest + 1]
