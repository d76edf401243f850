"""The shared rules interface: action JSON, options, errors, atomic apply, the legality hook,
trying actions with `applied`."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rules
from rules.core import BadOptions, IllegalAction, MalformedAction
from rules.offtherails import actions as act
from rules.offtherails.components import Direction, Gem, Side
from rules.playout import play_out


def started(players: int = 2) -> rules.State:
    state = rules.new_game("offtherails", {"players": players}, 3)
    state.apply({"type": "choose_side", "side": "north"})
    from rules.scenario import resolve_chance

    resolve_chance(state, random.Random(3))
    return state


def test_registry_lists_offtherails() -> None:
    assert "offtherails" in rules.GAMES
    info = rules.game_named("offtherails")
    assert (info.min_players, info.max_players) == (1, 4)


def test_unknown_game_is_named() -> None:
    with pytest.raises(KeyError, match="unknown game 'chess'"):
        rules.new_game("chess")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 5}, "option .players. is 5"),
        ({"colour": "red"}, "unknown option"),
        ({"end_on_deposit": "three"}, '\'end_on_deposit\' is "three", not one of "two"'),
        ({"bumper_carts": "yes"}, "bumper_carts"),
    ],
)
def test_bad_options_name_what_is_wrong(options: dict[str, object], message: str) -> None:
    with pytest.raises(BadOptions, match=message):
        rules.new_game("offtherails", options)


def test_every_action_type_round_trips_through_json() -> None:
    samples = [
        act.ChooseSide(Side.EAST),
        act.PlaceTile("F6", "NS"),
        act.Upgrade("F6", "NES"),
        act.PlaceCart("red-white", "D12"),
        act.SetSpeed("red-white", 4),
        act.EndActions(),
        act.MoveFirst("red-black"),
        act.Route(Direction.W),
        act.TakeJewel(Gem.DIAMOND),
        act.Split((Gem.RUBY, Gem.ROCK)),
        act.DropPile(2),
    ]
    for action in samples:
        data = action.to_json()
        assert data["type"] == action.TYPE
        assert act.CODEC.parse(data) == action
    assert act.Route(Direction.W).to_json() == {"type": "route", "exit": "W"}
    assert act.Split((Gem.RUBY,)).to_json() == {"type": "split", "pile": ["ruby"]}
    assert set(act.CODEC.classes) >= {a.TYPE for a in samples}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"square": "F6"}, "unknown action type None"),
        ({"type": "place_tile", "square": "F6"}, "missing field 'exits'"),
        ({"type": "set_speed", "cart": "red-white", "speed": "4"}, "'speed' must be an integer"),
        ({"type": "route", "exit": "up"}, "'exit' is 'up', not one of N, E, S, W"),
        ({"type": "end_actions", "why": 1}, "unknown field"),
        (["place_tile"], "must be a JSON object"),
    ],
)
def test_malformed_action_json_is_named(data: object, message: str) -> None:
    with pytest.raises(MalformedAction, match=message):
        act.CODEC.parse(data)  # type: ignore[arg-type]


def test_illegal_action_is_a_value_error_naming_rule_and_input() -> None:
    state = started()
    before = state.to_json()
    with pytest.raises(ValueError) as info:
        state.apply({"type": "place_tile", "square": "D9", "exits": "NS"})
    assert isinstance(info.value, IllegalAction)
    text = str(info.value)
    assert "place_tile(square=D9, exits=NS)" in text
    assert "centre square of a mine" in text
    assert state.to_json() == before


def test_wrong_square_name_is_reported() -> None:
    state = started()
    with pytest.raises(IllegalAction, match="no square 'Z99'"):
        state.apply({"type": "place_tile", "square": "Z99", "exits": "NS"})


def test_chance_outcome_refused_while_a_player_acts() -> None:
    state = started()
    with pytest.raises(IllegalAction, match="chance outcome, but a player is to act"):
        state.apply({"type": "draw_gem", "gem": "ruby"})


def test_player_action_refused_while_chance_is_pending() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    state.apply({"type": "choose_side", "side": "west"})
    with pytest.raises(IllegalAction, match="chance is to be resolved"):
        state.apply({"type": "end_actions"})


def test_apply_is_atomic_when_the_engine_fails_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    state = started()
    before = state.to_json()
    history = state.history

    def boom(tabletop: object) -> None:
        raise RuntimeError("sensor fell off")

    from rules.offtherails import turns

    monkeypatch.setattr(turns, "action_used", boom)
    with pytest.raises(RuntimeError):
        state.apply({"type": "place_tile", "square": "F6", "exits": "NS"})
    assert state.to_json() == before
    assert state.history == history


def test_state_json_names_the_game() -> None:
    state = started()
    data = state.to_json()
    assert data["game"] == "offtherails"
    assert rules.state_from_json(data).to_json() == data
    with pytest.raises(ValueError, match="not 'offtherails'"):
        type(state).from_json({**data, "game": "derailed"})


def test_an_impossible_draw_says_what_chance_can_give() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    state.apply({"type": "choose_side", "side": "north"})
    while state.to_json()["phase"] != "starting_deposits":
        state.apply(state.legal_actions()[0])
    before = state.to_json()
    with pytest.raises(IllegalAction, match=r"chance cannot give that now \(possible: reveal_dep"):
        state.apply({"type": "reveal_deposit", "colour": "red", "number": 9})
    assert state.to_json() == before


def test_the_hidden_split_is_seen_only_by_its_owner() -> None:
    from rules.scenario import set_path

    state = started()
    data = state.to_json()
    for sq in ("F9", "F10", "F11"):
        set_path(
            data,
            f"board.{sq}",
            {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}},
        )
    for path, value in {
        "carts.red-white.status": "on_board",
        "carts.red-white.square": "F11",
        "carts.red-white.heading": "S",
        "carts.red-white.hold": {"ruby": 1},
        "carts.green-white.status": "on_board",
        "carts.green-white.square": "F9",
        "carts.green-white.heading": "S",
        "carts.green-white.hold": {"ruby": 2, "gold": 2},
    }.items():
        set_path(data, path, value)
    state = rules.state_from_json(data)
    state.apply({"type": "end_actions"})
    assert state.current_player == 1  # the hit cart's owner splits
    state.apply({"type": "split", "pile": ["ruby", "ruby"]})
    assert state.current_player == 0  # the mover picks a pile it cannot see into
    assert state.view(1)["move"]["pile"] == {
        "rock": 0,
        "ruby": 2,
        "emerald": 0,
        "gold": 0,
        "diamond": 0,
    }
    assert state.view(0)["move"]["pile"] == {"size_1": 2, "size_2": 2}
    assert state.view(None)["move"]["pile"] == {"size_1": 2, "size_2": 2}
    state.apply({"type": "drop_pile", "pile": 2})
    assert state.to_json()["board"]["F9"]["jewels"]["gold"] == 2


# ---- one legality hook, and trying actions with `applied`


def first_steps(state: rules.State, count: int) -> list[rules.Action]:
    """The first `count` legal actions of a copy of `state`, taken one after another."""
    probe = state.clone()
    steps = []
    for _ in range(count):
        action = probe.legal_actions()[0]
        probe.apply(action)
        steps.append(action)
    return steps


def test_is_legal_and_explain_illegal_ask_the_games_why_not() -> None:
    state = started()
    bad = act.PlaceTile("D9", "NS")
    why = state.why_not(bad)
    assert why is not None and "centre square of a mine" in why.rule
    assert not state.is_legal(bad)
    assert str(state.explain_illegal(bad)) == str(why.error(bad))
    good = state.legal_actions()[0]
    assert state.why_not(good) is None and state.is_legal(good)
    with pytest.raises(ValueError, match="is legal now"):
        state.explain_illegal(good)


def test_the_default_why_not_asks_legal_actions_and_chance_outcomes() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    state.apply({"type": "choose_side", "side": "north"})
    assert state.current_player == rules.CHANCE
    drawn = state.chance_outcomes()[0][0]
    assert rules.State.why_not(state, drawn) is None
    refused = rules.State.why_not(state, act.EndActions())
    assert refused is not None and refused.rule == "not a legal action at this point of the game"


def test_shared_checks_come_before_the_hook() -> None:
    state = started()
    assert not state.is_legal(state.parse_action({"type": "draw_gem", "gem": "ruby"}))
    over = rules.new_game("trickoftherails", {"players": 3}, 2)
    play_out(over, random.Random(2))
    assert over.is_over
    assert "the game is over" in str(over.explain_illegal(over.history[-1]))


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_applied_applies_all_inside_and_undoes_all_after(game: str) -> None:
    state = rules.new_game(game, {"players": 3}, 5)
    before, history = state.to_json(), state.history
    steps = first_steps(state, 3)
    with state.applied([steps[0], steps[1].to_json(), steps[2]]) as done:
        assert done == steps
        assert state.history == history + steps
    assert state.to_json() == before
    assert state.history == history


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_apply_legal_does_what_apply_does_and_is_undone_alike(game: str) -> None:
    """Every listed action (and chance outcome), applied unchecked, leaves the state `apply`
    leaves, and `undo` takes it back; over a few dozen steps of a bot game."""
    rng = random.Random(7)
    state = rules.new_game(game, {"players": 3}, 7)
    checked = rules.new_game(game, {"players": 3}, 7)
    for _ in range(40):
        if state.is_over:
            break
        before = state.to_json()
        listed = (
            [a for a, _ in state.chance_outcomes()]
            if state.current_player == rules.CHANCE
            else state.legal_actions()
        )
        for action in listed[:6]:
            state.apply_legal(action)
            checked.apply(action)
            assert state.to_json() == checked.to_json()
            assert state.undo() == checked.undo() == action
            assert state.to_json() == before
        action = rng.choice(listed)
        state.apply_legal(action)
        checked.apply(action)
    assert state.history == checked.history


def test_applied_refused_part_way_leaves_the_state_as_before_and_raises() -> None:
    state = started()
    before, history = state.to_json(), state.history
    good = first_steps(state, 2)
    bad = {"type": "place_tile", "square": "D9", "exits": "NS"}
    ran = False
    with pytest.raises(IllegalAction, match="centre square of a mine"), state.applied([*good, bad]):
        ran = True
    assert not ran
    assert state.to_json() == before
    assert state.history == history


def test_applied_undoes_when_the_block_raises() -> None:
    state = started()
    before, history = state.to_json(), state.history
    with pytest.raises(RuntimeError, match="thrown inside"), state.applied(first_steps(state, 2)):
        raise RuntimeError("thrown inside")
    assert state.to_json() == before
    assert state.history == history


def test_applied_takes_back_what_the_block_left_on_top() -> None:
    state = started()
    before = state.to_json()
    one, two = first_steps(state, 2)
    with state.applied([one]):
        state.apply(two)
    assert state.to_json() == before
    not_a_list: Any = one
    with pytest.raises(TypeError, match="a list of actions"), state.applied(not_a_list):
        pass
