"""The `railtable rules ...` and `railtable bench rules` commands, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main


def test_rules_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "list"]) == 0
    assert "offtherails" in capsys.readouterr().out


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_rules_play_finishes_and_prints_scores(
    players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "play", "offtherails", "--players", str(players), "--seed", "9"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["players"] == players
    assert len(result["scores"]) == players


def test_rules_play_rejects_a_bad_player_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "play", "offtherails", "--players", "7"]) == 2
    assert "players" in capsys.readouterr().err


def test_rules_check_counts_passes_and_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"game": "offtherails", "rule": "r", "steps": [{"expect": {"phase": "choose_side"}}]}
    bad = {"game": "offtherails", "rule": "r", "steps": [{"expect": {"phase": "actions"}}]}
    (tmp_path / "good.json").write_text(json.dumps(good))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.json").write_text(json.dumps([good, bad]))
    (tmp_path / "broken.json").write_text("{not json")
    assert main(["rules", "check", str(tmp_path)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == "2 passed, 2 failed"
    assert any('bad.json[1] step 1: phase: expected "actions"' in line for line in out)
    assert any("broken.json step 0: unreadable" in line for line in out)
    assert main(["rules", "check", str(tmp_path / "good.json")]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_bench_rules_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "rules", "--json", "--seconds", "0.2"]) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    for key in ("playouts_per_s", "legal_actions_p99_ms", "apply_undo_per_s"):
        assert line[key] > 0
