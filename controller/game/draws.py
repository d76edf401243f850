"""Real draws the table cannot see: which seat (or the host) is asked what came up."""

from __future__ import annotations

from collections.abc import Collection

from controller.game.opened import OpenGame
from controller.referee.judge import Referee
from controller.referee.observe import Observation, Seen
from controller.referee.tables import changed_locations
from controller.referee.verdict import Alternative, Reason, Verdict, VerdictKind
from rules.core import CHANCE, Action, State, Visibility


def draw_question(
    game: OpenGame, seen: Observation | None, computers: Collection[int]
) -> Verdict | None:
    """A real draw nothing on the table shows (a gem from the bag), or one no input here sees
    (a tile's face with the sensor board alone): the question for the seat that drew it (the
    seat whose action came last; else the host) which; None when there is nothing to ask."""
    state = game.state
    if state.current_player != CHANCE or not state.observed_chance():
        return None
    outcomes = [a for a, p in state.chance_outcomes() if p > 0]
    if not outcomes:
        return None
    if all(a.VISIBILITY is Visibility.TABLE for a in outcomes):
        if inputs_see(state, outcomes, seen, game.referee):
            return None  # the camera will see it (a card in the reveal slot)
        seat = game.last_seat
        if seat in computers:
            seat = None  # no phone holds the computer's seat: the host says what came up
    else:
        seat = None
    options = tuple(Alternative((a,)) for a in outcomes)
    return Verdict(VerdictKind.NEEDS_INPUT, Reason.CAME_UP, options=options, seat=seat)


def inputs_see(
    state: State, outcomes: list[Action], seen: Observation | None, referee: Referee
) -> bool:
    """Whether the inputs of the table last judged (`seen`) tell each outcome on the table (a
    camera over the location it changes, or the sensor board where it moves a magnet); True
    before any table was judged."""
    if seen is None:
        return True
    before = referee.table_of(state)
    for outcome in outcomes:
        with state.applied([outcome]):
            after = referee.table_of(state)
        for name in changed_locations(before, after):
            if seen.camera_covers(name):
                break
            if seen.view(name).seen is Seen.MAGNET and (
                any(referee.is_magnetic(p.piece) for p in before.get(name, ()))
                != any(referee.is_magnetic(p.piece) for p in after.get(name, ()))
            ):
                break
        else:
            return False
    return True
