import argparse
import json

import pytest

from controller.bench import link as bench
from controller.cli import board_cmd, main
from firmware_bridge.messages import Occupancy, Square
from firmware_bridge.session import OccupancyChanged, diff
from hardware.sim_console import ConsoleError, Quit, execute
from hardware.virtual_board import VirtualBoard


def parser():
    root = argparse.ArgumentParser(prog="railtable")
    commands = root.add_subparsers(dest="command", required=True)
    bench_parser = commands.add_parser("bench")
    benches = bench_parser.add_subparsers(dest="bench_target", required=True)
    board_cmd.register(commands, benches)
    return root


def test_sim_board_and_link_bench_are_registered_with_handlers():
    args = parser().parse_args(["sim-board", "--rows", "4", "--corrupt", "0.05"])
    assert args.rows == 4 and args.corrupt == 0.05 and callable(args.handler)
    args = parser().parse_args(["bench", "link", "--json", "--samples", "5"])
    assert args.json and args.samples == 5 and callable(args.handler)


def test_bench_prints_one_json_object_with_the_named_figures(capsys):
    args = parser().parse_args(
        ["bench", "link", "--json", "--samples", "8", "--throughput-seconds", "0.2"]
    )
    assert bench.run(args) == 0
    figures = json.loads(capsys.readouterr().out)
    for key in (
        "events_per_s",
        "change_latency_p50_ms",
        "change_latency_p99_ms",
        "delivered_fraction_at_5pct_corruption",
        "changes_per_s",
        "led_ack_p50_ms",
        "led_ack_p99_ms",
    ):
        assert isinstance(figures[key], float | int), key
    assert figures["change_latency_p50_ms"] <= figures["change_latency_p99_ms"]
    assert 0 < figures["led_ack_p50_ms"] <= figures["led_ack_p99_ms"]
    assert figures["events_per_s"] <= figures["changes_per_s"]
    assert 0.0 <= figures["delivered_fraction_at_5pct_corruption"] <= 1.0


def test_console_drives_the_board_and_names_bad_lines():
    with VirtualBoard(4, 4, seed=3) as board:
        assert execute(board, "place 1 2") == "place (1, 2)"
        assert board.magnets == {(1, 2)}
        execute(board, "lift 1 2")
        assert board.magnets == frozenset()
        assert "corruption_rate=0.1" in execute(board, "corrupt 0.1")
        assert "delay_ms=5.0" in execute(board, "delay 5")
        assert "magnets: none" in execute(board, "show")
        assert execute(board, "") == ""
        with pytest.raises(ConsoleError, match=r"'place 9 9': square \(9, 9\) outside"):
            execute(board, "place 9 9")
        with pytest.raises(ConsoleError, match=r"within 0\.\.1"):
            execute(board, "drop 2")
        with pytest.raises(ConsoleError, match="'jump'"):
            execute(board, "jump")
        with pytest.raises(Quit):
            execute(board, "quit")


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "-inf"])
def test_console_refuses_an_unplug_that_never_ends_or_is_negative(seconds):
    with VirtualBoard(4, 4, seed=3) as board:
        with pytest.raises(ConsoleError, match="finite number of seconds >= 0"):
            execute(board, f"unplug {seconds}")
        with pytest.raises(ConsoleError, match="finite number >= 0"):
            execute(board, f"delay {seconds}")
        assert board.plugged_in


@pytest.mark.parametrize("where", ["missing/board", "a-file", "a-dir"])
def test_sim_board_names_a_bad_path_without_a_traceback(tmp_path, capsys, where):
    (tmp_path / "a-file").write_text("mine")
    (tmp_path / "a-dir").mkdir()
    path = tmp_path / where
    args = parser().parse_args(["sim-board", "--path", str(path), "--duration", "0"])
    assert args.handler(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("railtable sim-board: cannot put the board's symlink at ")
    assert str(path) in err and "Traceback" not in err
    assert (tmp_path / "a-file").read_text() == "mine" and (tmp_path / "a-dir").is_dir()


def test_bench_counts_events_and_square_changes_apart():
    deliveries = bench._Deliveries()
    empty = Occupancy(2, 2, frozenset())
    full = Occupancy(2, 2, frozenset({Square(0, 0), Square(1, 1)}))
    deliveries(OccupancyChanged(full, empty, diff(empty, full), 1.0))
    deliveries(OccupancyChanged(full, full, (), 2.0))  # a repeated snapshot: no event
    assert deliveries.events == 1 and len(deliveries.seen) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["sim-board", "--corrupt", "2"],
            "railtable sim-board: --corrupt must be within 0..1, got 2.0",
        ),
        (
            ["sim-board", "--drop", "nan"],
            "railtable sim-board: --drop must be within 0..1, got nan",
        ),
        (
            ["sim-board", "--delay-ms", "-5"],
            "railtable sim-board: --delay-ms must be a finite number >= 0, got -5.0",
        ),
        (
            ["sim-board", "--duration", "-1"],
            "railtable sim-board: --duration must be a finite number of seconds >= 0, got -1.0",
        ),
        (["sim-board", "--rows", "17"], "railtable sim-board: --rows must be within 1..16, got 17"),
        (["sim-board", "--baud", "0"], "railtable sim-board: --baud must be positive, got 0"),
        (
            ["bench", "link", "--rows", "0"],
            "railtable bench link: --rows must be within 1..16, got 0",
        ),
        (
            ["bench", "link", "--cols", "99"],
            "railtable bench link: --cols must be within 1..16, got 99",
        ),
        (
            ["bench", "link", "--samples", "0"],
            "railtable bench link: --samples must be at least 1, got 0",
        ),
        (
            ["bench", "link", "--throughput-seconds", "0"],
            "railtable bench link: --throughput-seconds must be a finite number > 0, got 0.0",
        ),
    ],
)
def test_bad_flags_are_one_line_naming_the_flag_with_exit_code_2(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == message + "\n"
    assert captured.out == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("place a b", "'place a b': ROW must be a whole number, got 'a'"),
        ("lift 1 x", "'lift 1 x': COL must be a whole number, got 'x'"),
        ("corrupt lots", "'corrupt lots': RATE must be a number, got 'lots'"),
        ("corrupt 2", "'corrupt 2': RATE must be within 0..1"),
        ("delay -3", "'delay -3': MS must be a finite number >= 0"),
        ("unplug soon", "'unplug soon': SECONDS must be a number, got 'soon'"),
    ],
)
def test_console_names_the_argument_that_is_wrong_in_one_line(line, message):
    with VirtualBoard(4, 4, seed=3) as board:
        with pytest.raises(ConsoleError) as caught:
            execute(board, line)
        assert str(caught.value) == message
