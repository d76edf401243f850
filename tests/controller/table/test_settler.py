"""The settler alone, on a fake clock: when the table has settled, is judged, judged on the sensor
board's word before the camera's, or waited for."""

from __future__ import annotations

from dataclasses import dataclass

from controller.referee.observe import InputMode, LocationView, Observation, Seen
from controller.table.settler import STORE_RETRY_S, Glance, Readings, Settle, Settler
from rules.physical import PlacedPiece, TableObservation
from rules.registry import game_info, new_game


@dataclass
class FakeClock:
    """Monotonic seconds that move only when the test says."""

    now: float = 100.0

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def _table(name: str = "A1", seen: Seen = Seen.MAGNET) -> Observation:
    return Observation(InputMode.CAMERA_AND_SENSORS, {name: LocationView(seen, magnet=True)})


EMPTY = Observation(InputMode.CAMERA_AND_SENSORS, {})


def _looks(settler: Settler, glance: Glance, clock: FakeClock, n: int) -> list[Settle]:
    return [settler.look(glance, clock.advance(0.05)) for _ in range(n)]


def test_a_table_is_judged_once_it_has_been_quiet_for_the_settle_ticks() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=3)
    seen = _looks(settler, Glance(_table()), clock, 4)
    assert seen == [Settle.WAIT, Settle.WAIT, Settle.WAIT, Settle.JUDGE]
    settler.judged(changes=0, stored=True, now=clock.now)
    assert settler.settled
    assert _looks(settler, Glance(_table()), clock, 3) == [Settle.WAIT] * 3  # judged already


def test_a_change_restarts_the_wait() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=2)
    assert _looks(settler, Glance(EMPTY), clock, 2) == [Settle.WAIT, Settle.WAIT]
    lifted = Glance(_table(seen=Seen.UNKNOWN))  # a hand lifts a piece: the table changes
    assert _looks(settler, lifted, clock, 2) == [Settle.WAIT, Settle.WAIT]
    placed = Glance(_table())  # and puts it down before the wait is over
    assert _looks(settler, placed, clock, 3) == [Settle.WAIT, Settle.WAIT, Settle.JUDGE]
    assert settler.last == placed.table


def test_the_game_changed_from_a_phone_judges_the_same_table_again() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    assert _looks(settler, Glance(EMPTY, changes=4), clock, 2) == [Settle.WAIT, Settle.JUDGE]
    settler.judged(changes=5, stored=True, now=clock.now)  # the verdict itself changed the game
    assert _looks(settler, Glance(EMPTY, changes=5), clock, 2) == [Settle.WAIT, Settle.WAIT]
    assert _looks(settler, Glance(EMPTY, changes=6), clock, 1) == [Settle.JUDGE]  # an answer


def test_a_camera_still_moving_lets_the_board_go_first_once_per_table() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    moving = Glance(_table(), camera_still=False)
    assert _looks(settler, moving, clock, 3) == [Settle.WAIT, Settle.BOARD_FIRST, Settle.WAIT]
    assert not settler.camera_still and not settler.settled
    still = Glance(_table(), camera_still=True)
    assert _looks(settler, still, clock, 1) == [Settle.JUDGE]  # the camera confirms it
    settler.judged(changes=1, stored=True, now=clock.now)
    assert settler.settled


def test_a_view_older_than_the_simulated_table_is_not_still() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    behind = Glance(EMPTY, camera_still=True, shown_version=3, table_version=4)
    assert _looks(settler, behind, clock, 2) == [Settle.WAIT, Settle.BOARD_FIRST]
    assert not settler.camera_still
    caught_up = Glance(EMPTY, camera_still=True, shown_version=4, table_version=4)
    assert _looks(settler, caught_up, clock, 1) == [Settle.JUDGE]
    real = Glance(EMPTY, camera_still=True, shown_version=-1, table_version=None)
    settler.look(real, clock.now)
    assert settler.camera_still  # a real camera has no table version to be behind


def test_a_verdict_the_log_could_not_keep_is_judged_again_each_retry_period() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    failing = Glance(_table(), store_failing=True)
    assert _looks(settler, failing, clock, 2) == [Settle.WAIT, Settle.JUDGE]
    settler.judged(changes=1, stored=False, now=clock.now)
    assert not settler.settled
    waited = [settler.look(failing, clock.advance(0.25)) for _ in range(4)]
    assert waited == [Settle.WAIT, Settle.WAIT, Settle.WAIT, Settle.JUDGE]  # 1 s later
    assert STORE_RETRY_S == 1.0
    settler.judged(changes=1, stored=True, now=clock.now)  # written at last
    assert settler.settled


def test_the_board_does_not_go_first_while_the_log_fails() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    moving = Glance(_table(), camera_still=False, store_failing=True)
    assert _looks(settler, moving, clock, 3) == [Settle.WAIT] * 3


def test_looking_again_and_forgetting_judge_the_same_table_once_more() -> None:
    clock, settler = FakeClock(), Settler(settle_ticks=1)
    assert _looks(settler, Glance(EMPTY), clock, 2)[-1] is Settle.JUDGE
    settler.judged(changes=0, stored=True, now=clock.now)
    settler.look_again()  # a bot played: perhaps nothing the inputs see
    assert not settler.settled
    assert _looks(settler, Glance(EMPTY), clock, 1) == [Settle.JUDGE]
    settler.judged(changes=0, stored=True, now=clock.now)
    settler.forget()  # another mat: its first table waits its quiet ticks again
    assert settler.last is None
    assert _looks(settler, Glance(EMPTY), clock, 2) == [Settle.WAIT, Settle.JUDGE]


def _minewagons() -> tuple[Readings, str, tuple[int, int], tuple[int, int]]:
    """Readings of a Mine Wagons mat whose camera and board both see one wagon on a sensed
    square; that square's name and sensor, and another sensed square's."""
    info = game_info("minewagons")
    state = new_game("minewagons", {"players": 2}, 1)
    assert info.layout is not None and info.catalogue is not None
    layout, catalogue = info.layout(state.options), info.catalogue()
    here, there = [loc for loc in layout.locations if loc.sensor is not None][:2]
    assert here.sensor is not None and there.sensor is not None
    wagon = next(e.piece for e in catalogue.entries if e.magnetic)
    camera = TableObservation.of({here.name: (PlacedPiece(wagon),)})
    readings = Readings(layout, catalogue, camera, frozenset({here.sensor}))
    return readings, here.name, here.sensor, there.sensor


def _felt(readings: Readings, occupied: set[tuple[int, int]]) -> Readings:
    return Readings(readings.layout, readings.catalogue, readings.camera, frozenset(occupied))


def test_the_board_agreeing_with_the_camera_has_nothing_to_go_first_with() -> None:
    readings, _, _, _ = _minewagons()
    assert readings.board_first() == (None, frozenset())


def test_a_lifted_magnet_alone_is_felt_but_left_to_the_camera() -> None:
    readings, here, _, _ = _minewagons()
    early, felt = _felt(readings, set()).board_first()
    assert early is None and felt == {here}  # a move half made: the camera judges


def test_a_magnet_that_only_arrives_is_felt_but_left_to_the_camera() -> None:
    readings, _, here_sensor, there_sensor = _minewagons()
    early, felt = _felt(readings, {here_sensor, there_sensor}).board_first()
    assert early is None and len(felt) == 1  # it may be any piece: the camera names it


def test_a_magnet_moved_from_one_square_to_another_is_judged_on_the_boards_word() -> None:
    readings, here, _, there_sensor = _minewagons()
    early, felt = _felt(readings, {there_sensor}).board_first()
    assert early is not None and here in felt and len(felt) == 2
    assert early.view(here).seen is not Seen.EXACT  # the camera's old word is not kept there
