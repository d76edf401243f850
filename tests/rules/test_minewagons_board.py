"""The race's board as data: the standard file, and clear errors for a board file that is wrong."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

import rules
from rules.core import IllegalAction
from rules.minewagons.components import Colour, Side, board_from_data, exits_mask, load_board


def _data() -> dict[str, Any]:
    text = resources.files("rules.minewagons").joinpath("data/board.json").read_text()
    return dict(json.loads(text))


def test_the_standard_board() -> None:
    board = load_board()
    assert len(board.names) == 49 and board.names[board.centre] == "D4"
    assert len(board.printed) == 13 and len(board.tile_squares) == 36
    assert board.neighbour[board.square("G2")][Side.E] == -1
    assert board.names[board.wrap[board.square("G2")][Side.E]] == "A2"
    assert board.names[board.wrap[board.square("C7")][Side.N]] == "C1"
    assert [board.names[sq] for sq in board.first_line(Colour.YELLOW)][:2] == ["G1", "G2"]
    assert board.printed[board.centre][Side.S] == Side.N.bit  # straight through, no turning


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["printed"].update({"H9": ["NS"]}), "'H9', not a square"),
        (lambda d: d["printed"].update({"A1": ["NN"]}), "must join two different sides"),
        (lambda d: d["printed"].update({"A1": ["NX"]}), "'X' is not one of N, E, S, W"),
        (lambda d: d["by_players"]["2"]["green"].update({"L": 8}), "2 players use 37 tiles"),
        (lambda d: d.update({"centre": "A1"}), "the centre must be a printed square"),
    ],
)
def test_a_wrong_board_file_says_what_is_wrong(change: Any, message: str) -> None:
    data = copy.deepcopy(_data())
    change(data)
    with pytest.raises(ValueError, match=message):
        board_from_data(data)


def test_bad_input_is_refused_in_one_clear_line() -> None:
    state = rules.new_game("minewagons", {"players": 2}, 1)
    with pytest.raises(IllegalAction, match="'Z9' is not a square of the board"):
        state.apply({"type": "lay_green", "square": "Z9"})
    with pytest.raises(rules.MalformedAction, match="unknown action type 'jump'"):
        state.apply({"type": "jump"})
    with pytest.raises(rules.BadOptions, match="players"):
        rules.new_game("minewagons", {"players": 5}, 1)
    assert exits_mask("sn") == exits_mask("NS")
