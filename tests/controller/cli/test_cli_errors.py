"""No traceback reaches a user: each mistake is one line `railtable <cmd>: ...`, exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse: a flag's value refused, with the usage line
        code = int(stop.code or 0)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    # argparse's usage block (its first line and the indented ones after it) stands above
    lines = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--game", "chess"], "railtable serve: --game 'chess': not a game of this"),
        (["serve", "--players", "9"], "--players 9: Off the Rails takes 1 to 4 players"),
        (["serve", "--players", "0"], "--players 0: Off the Rails takes 1 to 4 players"),
        (["serve", "--bot-pace", "0"], "railtable serve: --bot-pace 0: must be 0.05 to 60 seconds"),
        (["markers", "offtherails", "--out", "/etc/passwd"], "/etc/passwd is a file"),
        (["markers", "offtherails", "--out", "/etc/passwd/x"], "/etc/passwd is a file"),
        (["markers", "offtherails", "--out", ""], "not an empty path"),
        (["markers", "offtherails", "--out", "x", "--dpi", "0"], "0 is not from 72 to 1200"),
        (["markers", "offtherails", "--out", "x", "--dpi", "-5"], "-5 is not from 72 to 1200"),
        (["bench", "rules", "--players", "9"], "option 'players' is 9"),
        (["rules", "play", "offtherails", "--option", "foo"], "--option 'foo': expected"),
        (
            ["rules", "play", "offtherails", "--option", "bumper_carts=1"],
            "option 'bumper_carts' is 1, not one of false, true",
        ),
        (["rules", "play", "chess"], "railtable rules play: unknown game 'chess'"),
        (["bench", "referee", "--game", "chess"], "unknown game 'chess'"),
        (["bench", "referee", "--busy", "9"], "argument --busy: 9 is not from 0 to 8"),
        (["bench", "vision", "--harsh-moves", "-3"], "-3 is not at least 0"),
        (["bench", "vision", "--moves", "x"], "'x' is not a whole number"),
        (["camera", "calibrate", "--source", " "], "give the camera: 0, /dev/video0"),
        (["camera", "calibrate", "--source", "0", "--seconds", "0"], "not within 1 to 3600"),
        (["camera", "calibrate", "--source", "0", "--data", "/etc/passwd"], "is a file"),
        (["markers", "charuco", "--out", "x", "--dpi", "20"], "20 is not from 72 to 1200"),
    ],
)
def test_each_mistake_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert says in _fails(argv, capsys)


def test_rules_check_refuses_an_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "no scenario files" in _fails(["rules", "check", str(tmp_path)], capsys)


@pytest.mark.parametrize(
    ("content", "says"), [("{}", "has no 'game'"), ("[]", "holds no scenario")]
)
def test_rules_check_fails_a_file_without_scenarios(
    tmp_path: Path, content: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.json"
    path.write_text(content)
    assert main(["rules", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert says in out and "0 passed, 1 failed" in out


def test_a_yes_no_option_takes_json_true(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rules", "play", "offtherails", "--players", "2", "--option", "bumper_carts=true"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["players"] == 2


def test_serve_help_says_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "simulated table" in capsys.readouterr().out
