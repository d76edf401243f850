"""Off the Rails board files: the standard board's shape, and clear errors for broken files."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import rules
from rules.core import BadOptions
from rules.offtherails.components import Colour, Side, board_from_json, load_board

STANDARD: dict[str, Any] = json.loads(
    (resources.files("rules.offtherails") / "data" / "standard_board.json").read_text()
)


def test_standard_board() -> None:
    board = load_board()
    assert (board.columns, board.rows) == (12, 12)
    assert len(board.surface) == 44
    assert board.names[board.mines[Colour.RED].centre] == "D9"
    assert [board.names[s] for s in board.mines[Colour.RED].squares] == [
        "C10", "D10", "E10", "E9", "E8", "D8", "C8", "C9",
    ]  # fmt: skip
    assert board.side_for_colour(Colour.YELLOW) is Side.EAST
    assert len(board.placeable) == 100 - 4


def broken(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(STANDARD)
    node = data
    *parents, last = path.split(".")
    for p in parents:
        node = node[p]
    if value is None:
        del node[last]
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("sides.west", None, "missing \\['west'\\]"),
        ("sides.west.colour", "red", "each colour on exactly one side"),
        ("sides.north.starting_tracks", ["D12"], "at least 2 starting tracks"),
        ("sides.north.starting_tracks", ["D12", "A5"], "A5 is not on the north edge"),
        ("mines.blue", None, "missing \\['blue'\\]"),
        ("mines.yellow.centre", "E9", "E9 is already part of the red mine"),
        ("mines.red.centre", "A1", "off the mine area"),
        ("mines.red.centre", "Z9", "no square 'Z9'"),
        ("columns", 40, "columns must be 4-26"),
        ("sides.north.starting_tracks", ["D12", "F12", "D12"], "D12 named more than once"),
        ("rows", None, "missing field 'rows'"),
        ("sides.east", [], "wrong kind of value"),
    ],
)
def test_a_broken_board_file_is_named(path: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        board_from_json(broken(path, value))


def test_a_bad_board_option_is_a_bad_option(tmp_path: Path) -> None:
    with pytest.raises(BadOptions, match="option 'board' is 'moon': no board named 'moon'"):
        rules.new_game("offtherails", {"board": "moon"})
    path = tmp_path / "twice_board.json"
    path.write_text(json.dumps(broken("sides.west.starting_tracks", ["A4", "A4", "A6"])))
    with pytest.raises(BadOptions, match="A4 named more than once"):
        rules.new_game("offtherails", {"board": str(path)})
    path.write_text("{not json")
    with pytest.raises(BadOptions, match="option 'board'"):
        rules.new_game("offtherails", {"board": str(path)})
