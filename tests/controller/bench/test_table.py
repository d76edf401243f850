"""`railtable bench table` with computer seats: whole games on the simulated table where the bots
lay the computer's moves, every game to its end, nothing taken from the table for the computer."""

from __future__ import annotations

import pytest

from controller.bench.table import Inputs, run
from controller.cli import main


@pytest.mark.parametrize(
    ("game", "players", "inputs"),
    [
        ("minewagons", 2, Inputs.BOTH),  # a tile it turns up: its face read by the camera
        ("minewagons", 2, Inputs.SENSORS),  # its face said on a phone (the sensors cannot tell)
        ("offtherails", 2, Inputs.SENSORS),
        ("trickoftherails", 3, Inputs.SENSORS),
        ("derailed", 2, Inputs.SENSORS),
    ],
)
def test_a_whole_game_with_a_computer_seat(game: str, players: int, inputs: Inputs) -> None:
    figures = run(game, players, inputs, 1, first_seed=2, computers=1)
    assert figures.games_finished == 1, figures.stalled_at
    assert figures.stalls == 0 and figures.log_errors == 0
    assert figures.computer_moves > 0 and figures.seat_moves > figures.computer_moves
    assert figures.false_applied == 0 and figures.decisions_taken_for_player == 0
    assert figures.mistakes_alerted == figures.mistakes_made
    json = figures.to_json()
    if inputs is Inputs.BOTH:  # the camera's reading, apart from its start and its drawing
        assert figures.camera_opening_ms > 0
        assert 0 < json["camera_work_per_move_p50_ms"] < json["camera_process_per_move_p50_ms"]


def test_more_computers_than_players_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "table", "--game", "derailed", "--players", "2", "--computers", "3"]
    assert main(argv) != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith("--computers 3: more than --players 2") and "\n" not in err


def test_a_bots_mistake_is_never_a_legal_reading_past_the_digital_draws() -> None:
    """Off the Rails, the sensor board alone: an end of turn the next move proves, then the
    deposits' digital draws, then the next seat's magnet. A bot's mistake must lie out of that
    reach too, or the referee rightly reads it as a move (seed 11 applied one before)."""
    figures = run("offtherails", 4, Inputs.SENSORS, 1, first_seed=11, mistake_rate=0.2)
    assert figures.games_finished == 1, figures.stalled_at
    assert figures.mistakes_made > 0
    assert figures.false_applied == 0 and figures.mistakes_alerted == figures.mistakes_made


def test_a_take_back_offered_for_a_bots_mistake_is_no_move_applied() -> None:
    """The mine-wagon race, 4 players, the sensor board alone (seed 22): a second Rock laid
    where a wagon just left for its goal feels like that wagon back, and the referee offers to
    take the move back. Nothing is applied: the bench counts it alerted, not a false apply
    (before, the take-back's offered actions counted as applied)."""
    figures = run("minewagons", 4, Inputs.SENSORS, 1, first_seed=22)
    assert figures.games_finished == 1, figures.stalled_at
    assert figures.false_applied == 0 and figures.mistakes_alerted == figures.mistakes_made > 0
