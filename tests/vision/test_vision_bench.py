"""A short run of the vision bench: every figure is there and the functional bars hold."""

import json

from controller.cli import main
from vision.bench import FULL_REPEATS, HARSH_CONDITIONS, run_bench, run_harsh


def test_short_bench_reads_every_settled_square_and_every_change() -> None:
    result = run_bench(moves=3, seed=11)
    assert result.frames > 50 and result.moves == 3
    assert result.square_accuracy == 1.0 and result.settled_frames > 0
    assert (result.false_changes, result.missed_changes) == (0, 0)
    assert result.report_latency_frames_p99 <= 5
    assert result.full_decodes == 1
    assert result.steady_ms_p50 > 0 and result.naive_ms_p50 > 0
    # both timed on exactly the same frames: every frame after the opening full decode
    assert 0 < result.timed_frames < result.frames
    assert result.naive_ms_mean > 0 and result.steady_ms_mean > 0
    assert abs(result.speedup_mean - result.naive_ms_mean / result.steady_ms_mean) <= 0.15
    # the CPU time of each read: the opening and the repeats asked for after the game are full
    # reads; every other settle is a read after a change (a comparison, a decode of what changed)
    assert result.full_reads == 1 + FULL_REPEATS
    assert result.change_reads >= result.moves
    assert result.full_read_cpu_ms_p99 > result.change_read_cpu_ms_p99 > 0


def test_bench_vision_command_prints_json(capsys) -> None:  # type: ignore[no-untyped-def]
    assert (
        main(["bench", "vision", "--json", "--moves", "1", "--seed", "3", "--harsh-moves", "1"])
        == 0
    )
    figures = json.loads(capsys.readouterr().out)
    for key in (
        "steady_ms_p50",
        "naive_ms_p50",
        "speedup",
        "steady_ms_mean",
        "naive_ms_mean",
        "speedup_mean",
        "timed_frames",
        "square_accuracy",
        "false_changes",
        "missed_changes",
        "report_latency_frames_p99",
        "full_read_cpu_ms_p99",
        "change_read_cpu_ms_p99",
    ):
        assert key in figures
    # the harsh conditions of issue 8, each a short game of its own
    assert set(figures["harsh"]) == set(HARSH_CONDITIONS)
    for harsh in figures["harsh"].values():
        assert {"square_accuracy", "false_changes", "missed_changes"} <= set(harsh)


def test_harsh_conditions_read_a_game_without_a_false_or_missed_change() -> None:
    """Issue 23's bars, each condition: 99 % of settled squares right, none wrong, no false and
    no missed change, reported within 8 frames of the hands leaving."""
    figures = run_harsh(moves=2, seed=5, opening_pieces=12)
    assert set(figures) == set(HARSH_CONDITIONS)
    for name, harsh in figures.items():
        assert harsh["square_accuracy"] >= 0.99, (name, harsh)
        assert (harsh["wrong"], harsh["false_changes"], harsh["missed_changes"]) == (0, 0, 0), (
            name,
            harsh,
        )
        assert harsh["latency_max"] <= 8, (name, harsh)
    assert figures["strong_glare"]["glare_unknown"] > 0
