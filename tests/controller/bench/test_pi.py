"""`railtable bench pi` on tiny settings: the JSON's shape (each figure, its budget, the Pi 4 and
Pi 5 estimates with their factors' source), not its speeds."""

from __future__ import annotations

import json

import pytest

from controller.bench.pi import PI4, PI5, Figure, Kind, PiSettings, lines, run
from controller.cli import main

NAMES = {
    "infer_cpu_p99_ms", "merged_infer_cpu_p99_ms", "recovered_fraction", "false_applied",
    "decisions_taken_for_player", "change_read_cpu_ms_p99", "full_read_cpu_ms_p99", "startup_s",
    "ready_s", "work_per_move_p99_ms", "camera_work_per_move_p99_ms",
}  # fmt: skip


def test_a_time_is_estimated_on_each_pi_and_a_count_is_not_scaled() -> None:
    row = Figure("referee", "merged_infer_cpu_p99_ms", 10.0, 12, "ms").to_json()
    assert row["fits_here"] is True
    assert row["pi4"] == {
        "estimate": 70.0, "low": 60.0, "high": 100.0, "target": 84.0, "fits": True,
        "fits_worst": False,
    }  # fmt: skip
    assert row["pi5"]["estimate"] == 35.0 and row["pi5"]["fits_worst"] is True
    wrong = Figure("referee", "false_applied", 1, 0, "", Kind.ATMOST).to_json()
    assert wrong["fits_here"] is False and wrong["pi4"] == {"estimate": 1, "fits": False}
    assert (PI4.factor, PI4.low, PI4.high) == (7.0, 6.0, 10.0)
    assert (PI5.factor, PI5.low, PI5.high) == (3.5, 2.5, 4.5)


def test_bench_pi_runs_every_bench_and_prints_each_figure(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny = PiSettings(
        referee_games=("derailed",), vision_moves=2, vision_width=640, vision_height=360,
        e2e_samples=2, e2e_run_s=0.0, table_games=("derailed",),
    )  # fmt: skip
    report = run(tiny)
    names = {r["name"] for r in report["figures"]}
    assert names == NAMES
    assert {r["bench"] for r in report["figures"]} == {"referee", "vision", "e2e", "table derailed"}
    for row in report["figures"]:
        assert {"value", "budget", "unit", "fits_here", "pi4", "pi5"} <= set(row)
        assert {"estimate", "fits"} <= set(row["pi4"]) and {"estimate", "fits"} <= set(row["pi5"])
    for board in ("pi4", "pi5"):
        assert "raspberry-pi.md" in report["factors"][board]["source"]
    assert isinstance(report["fits_pi4"], bool) and report["machine"]
    said = lines(report)
    assert any("startup_s" in line for line in said) and said[-1].startswith("fits here")
    json.dumps(report)  # JSON as it is printed

    monkeypatch.setattr("controller.bench.pi.run", lambda settings: report)
    assert main(["bench", "pi", "--json", "--game", "derailed"]) == 0
    assert json.loads(capsys.readouterr().out)["figures"] == report["figures"]
