"""`railtable bench ai`: its figures as JSON, and a one-line error for a mistyped flag."""

from __future__ import annotations

import json

import pytest

from controller.cli import main


def test_bench_ai_prints_the_figures_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "ai", "--game", "trickoftherails", "--players", "3", "--games", "1"]
    assert main([*argv, "--iterations", "3", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    for key in ("win_share", "score_margin", "decision_p50_ms", "decision_p95_ms"):
        assert key in figures
    assert figures["playouts_per_s"] > 0


def test_bench_ai_on_the_cpu_clock_with_the_strong_level_searching_longer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "ai", "--game", "trickoftherails", "--players", "3", "--games", "1"]
    argv += ["--level", "strong", "--opponents", "normal", "--cpu-seconds", "0.01", "--json"]
    assert main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["budget"] == {"iterations": None, "seconds": 0.03, "cpu": True}
    # the normal level still stops at its set size (rules.ai.player.NORMAL_ITERATIONS)
    assert figures["opponent_budget"] == {"iterations": 100, "seconds": 0.01, "cpu": True}
    assert 0 < figures["decision_cpu_p50_ms"] <= figures["decision_cpu_p95_ms"]
    assert figures["playouts_per_cpu_s"] > 0


def test_bench_ai_duplicate_plays_each_deal_again_at_the_opponents_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same level on both sides with an iteration budget: every decision is the same in
    both plays of a deal, so the gain is nothing on every deal (the deals really are the same)."""
    argv = ["bench", "ai", "--game", "offtherails", "--players", "2", "--games", "2"]
    argv += ["--opponents", "normal", "--iterations", "4", "--duplicate", "--json"]
    assert main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["duplicate_gains"] == [0.0, 0.0]
    assert figures["duplicate_margin_gain"] == 0.0 and figures["duplicate_better"] == 0.5


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--game", "chess", "--players", "2"], "--game 'chess': not a game"),
        (["--game", "trickoftherails", "--players", "2"], "takes 3 to 5 players"),
    ],
)
def test_bench_ai_names_what_is_wrong(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "ai", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
