"""What lies on the mat with no marker (`Game.goods`): Off the Rails' jewels on its deposits and in
each minecart's hold, its speed die, in the table the phones draw, with their words."""

from __future__ import annotations

import random

from controller.game.phrasing import Phrasebook
from controller.game.snapshot import table_json
from controller.referee.judge import Referee
from rules.core import State
from rules.offtherails.goods import counted, jewels_said
from rules.registry import game_named, new_game

OFF = game_named("offtherails")


def _played(moves: int, seed: int = 1) -> State:
    state = new_game("offtherails", {"players": 3}, seed=3)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        if state.current_player == -1:
            outcomes = state.chance_outcomes()
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            action = OFF.bot(state, rng)
        state.apply(action)
    return state


def _carts_out(state: State) -> bool:
    return any(c["status"] == "on_board" for c in state.view(None)["carts"].values())


def _table(state: State) -> dict[str, object]:
    return table_json(
        OFF, state, Referee(OFF), Phrasebook.of(OFF, ()), marked=[], alert=False, last_move=[]
    )


def test_jewels_are_counted_as_players_say_them() -> None:
    assert [counted(1, "ruby"), counted(2, "ruby"), counted(1, "emerald"), counted(3, "gold")] == [
        "a ruby", "2 rubies", "an emerald", "3 gold"
    ]  # fmt: skip
    assert jewels_said({"rock": 1, "ruby": 2, "diamond": 1}) == "a diamond, 2 rubies and a rock"


def test_every_deposit_and_every_minecart_on_the_board_is_in_the_table() -> None:
    state = next(s for s in map(_played, range(150, 10, -10)) if _carts_out(s))  # some on board
    view = state.view(None)
    goods = _table(state)["goods"]
    assert isinstance(goods, dict)
    deposits = {
        sq: c["jewels"] for sq, c in view["board"].items() if any(c.get("jewels", {}).values())
    }
    assert deposits  # the bots' game has laid jewels
    for square, jewels in deposits.items():
        items = {i["identity"]: i["count"] for i in goods[square]["items"] if i["kind"] == "jewel"}
        assert items == {g: n for g, n in jewels.items() if n}
        assert goods[square]["words"].startswith("a deposit of ")
    carts = [c for c in view["carts"].values() if c["status"] == "on_board"]
    assert carts
    for cart in carts:
        here = goods[cart["square"]]
        dice = [i for i in here["items"] if i["kind"] == "die"]
        assert dice == [{"kind": "die", "identity": "speed", "count": cart["speed"]}]
        hold = {i["identity"]: i["count"] for i in here["items"] if i["kind"] == "hold"}
        assert hold == {g: n for g, n in cart["hold"].items() if n}
        assert "the minecart carries" in here["words"] and "_" not in here["words"]


def test_a_game_with_nothing_unmarked_sends_no_goods() -> None:
    derailed = game_named("derailed")
    state = new_game("derailed", {"players": 2}, seed=1)
    table = table_json(derailed, state, Referee(derailed), Phrasebook.of(derailed, ()),
                       marked=[], alert=False, last_move=[])  # fmt: skip
    assert table["goods"] == {}
