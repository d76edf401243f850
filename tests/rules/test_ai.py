"""The computer player: legal, deterministic for a seed, never peeking, better than random."""

from __future__ import annotations

import random

import pytest

import rules
from rules.ai import Budget
from rules.ai.bench import Seats, bench, share
from rules.ai.player import Level, decide
from rules.core import CHANCE, State
from rules.hidden import deal
from rules.playout import chance_step

GAMES = [("offtherails", 2), ("trickoftherails", 3), ("derailed", 3), ("minewagons", 2)]
QUICK = Budget(iterations=25)


def _advance(state: State, rng: random.Random, decisions: int) -> State:
    """Play on at random (chance by chance) until `decisions` player actions are taken."""
    while not state.is_over and decisions > 0:
        if state.current_player == CHANCE:
            state.apply(chance_step(state, rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
            decisions -= 1
    while state.current_player == CHANCE:
        state.apply(chance_step(state, rng))
    return state


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.parametrize("level", [Level.EASY, Level.NORMAL])
def test_every_decision_is_legal(game: str, players: int, level: Level) -> None:
    state = rules.new_game(game, {"players": players}, 11)
    rng = random.Random(2)
    for n in range(8):
        state = _advance(state, rng, rng.randrange(0, 6))
        if state.is_over:
            break
        chosen = decide(state, level, seed=n, budget=QUICK)
        assert state.is_legal(chosen.action), chosen.action.describe()
        assert chosen.why
        state.apply(chosen.action)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_same_seed_gives_the_same_decision(game: str, players: int) -> None:
    state = _advance(rules.new_game(game, {"players": players}, 4), random.Random(4), 3)
    first = decide(state, Level.NORMAL, seed=9, budget=QUICK)
    again = decide(state, Level.NORMAL, seed=9, budget=QUICK)
    assert first.action == again.action
    assert first.result is not None and again.result is not None
    assert first.result.options == again.result.options
    assert (
        state.to_json()
        == _advance(rules.new_game(game, {"players": players}, 4), random.Random(4), 3).to_json()
    )  # the search left the real state as it was


def _other_world(state: State, seat: int, rng: random.Random) -> State:
    """The same game as `seat` knows it, with what it cannot see drawn afresh: the history
    (what was played in the open) kept."""
    twin = state.determinise(seat, rng)
    twin._undo = list(state._undo)
    twin._actors = list(state._actors)
    return twin


@pytest.mark.parametrize(
    ("game", "players", "decisions"),
    [("trickoftherails", 3, 5), ("trickoftherails", 4, 9), ("derailed", 3, 4)],
)
def test_what_the_seat_cannot_see_never_changes_its_decision(
    game: str, players: int, decisions: int
) -> None:
    state = _advance(rules.new_game(game, {"players": players}, 21), random.Random(5), decisions)
    seat = state.current_player
    assert seat is not None and seat >= 0
    twin = _other_world(state, seat, random.Random(77))
    assert twin.to_json() != state.to_json()  # the other hands differ ...
    assert twin.view(seat) == state.view(seat)  # ... and the seat cannot tell
    for level in (Level.EASY, Level.NORMAL):
        mine = decide(state, level, seed=3, budget=QUICK)
        theirs = decide(twin, level, seed=3, budget=QUICK)
        assert mine.action == theirs.action
        if mine.result is not None and theirs.result is not None:
            assert mine.result.options == theirs.result.options


def _hidden_split() -> State:
    """Off the Rails: red-white runs into green-white, whose owner has split 2 rubies, 2 gold."""
    from rules.scenario import resolve_chance, set_path

    state = rules.new_game("offtherails", {"players": 2}, 3)
    state.apply({"type": "choose_side", "side": "north"})
    resolve_chance(state, random.Random(3))
    data = state.to_json()
    for sq in ("F9", "F10", "F11"):
        tile = {"tile": {"exits": "NS", "shape": "straight", "kind": "straight_t"}}
        set_path(data, f"board.{sq}", tile)
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
    state.apply({"type": "split", "pile": ["ruby", "ruby"]})
    return state


def test_a_hidden_split_never_changes_the_movers_decision() -> None:
    """The mover picks a pile to drop without seeing how the hit cart's owner split its
    jewels: every split gives the same decision, and the search draws splits afresh."""
    state = _hidden_split()
    seat = state.current_player
    assert seat == 0 and {a.TYPE for a in state.legal_actions()} == {"drop_pile"}
    worlds = [_other_world(state, seat, random.Random(k)) for k in range(12)]
    assert len({str(w.to_json()["move"]["pile"]) for w in worlds}) > 1
    assert all(w.view(seat) == state.view(seat) for w in worlds)
    found = [decide(w, seed=1, budget=QUICK).result for w in [state, *worlds[:4]]]
    assert len({r.options for r in found if r is not None}) == 1


def test_determinise_keeps_what_the_seat_sees_and_draws_the_rest() -> None:
    state = _advance(rules.new_game("trickoftherails", {"players": 4}, 8), random.Random(8), 6)
    seat = state.current_player
    assert seat is not None and seat >= 0
    worlds = [state.determinise(seat, random.Random(k)) for k in range(10)]
    assert all(w.view(seat) == state.view(seat) for w in worlds)
    assert all(not w.invariants() for w in worlds)
    assert len({str(w.to_json()["hands"]) for w in worlds}) > 1
    same = [state.determinise(seat, random.Random(3)).to_json() for _ in range(2)]
    assert same[0] == same[1]


def test_a_dealt_hand_holds_nothing_its_seat_cannot_hold() -> None:
    pool = ["a1", "a2", "b1", "b2", "b3", "c1"]
    for k in range(30):
        hands = deal(pool, [2, 2, 2], random.Random(k), lambda i, c: not (i == 0 and c[0] == "b"))
        assert sorted(c for h in hands for c in h) == sorted(pool)
        assert [len(h) for h in hands] == [2, 2, 2]
        assert not any(c.startswith("b") for c in hands[0])
    with pytest.raises(ValueError):
        deal(pool, [2, 2, 2], random.Random(0), lambda i, c: c[0] != "b" or i == 0)


def test_the_search_beats_random_players() -> None:
    """Trick of the Rails, three players: the search with a small budget against two seats
    playing at random (the bench measures it against the simple bots)."""
    won = 0.0
    for game in range(6):
        state = rules.new_game("trickoftherails", {"players": 3}, 100 + game)
        rng = random.Random(game)
        seat = game % 3
        while not state.is_over:
            turn = state.current_player
            if turn == CHANCE:
                state.apply(chance_step(state, rng))
            elif turn == seat:
                state.apply(decide(state, seed=game, budget=Budget(iterations=80)).action)
            else:
                state.apply(rng.choice(state.legal_actions()))
        won += share(state.scores(), seat)
    assert won >= 4  # random play would win about 2 of 6


def test_the_bench_prints_its_figures() -> None:
    figures = bench("trickoftherails", 3, 1, Seats(Level.NORMAL, Budget(iterations=5)), seed=2)
    for key in ("win_share", "score_margin", "decision_p50_ms", "decision_p95_ms"):
        assert isinstance(figures[key], float)
    assert figures["playouts_per_s"] > 0
    assert 0.0 <= figures["pairwise"] <= 1.0


def test_the_duplicate_compares_the_computer_with_the_opponents_level_on_the_same_deal() -> None:
    seats = Seats(Level.NORMAL, Budget(iterations=30))  # against the simple bots
    figures = bench("trickoftherails", 3, 3, seats, seed=4, duplicate=True)
    gains = figures["duplicate_gains"]
    assert len(gains) == 3 and figures["duplicate_gain_se"] >= 0
    assert figures["duplicate_margin_gain"] == pytest.approx(sum(gains) / 3, abs=0.01)
    assert 0.0 <= figures["duplicate_better"] <= 1.0
    assert "duplicate_gains" not in bench("trickoftherails", 3, 1, seats, seed=4)


def test_the_pairwise_share_counts_each_other_seat_a_tie_half() -> None:
    from rules.ai.bench import pairwise

    assert pairwise([10.0, 4.0, 10.0, 12.0], 0) == [1.0, 0.5, 0.0]
    assert pairwise([3.0, 3.0, 3.0], 2) == [0.5, 0.5]


def test_no_decision_for_chance_or_a_finished_game() -> None:
    state = rules.new_game("offtherails", {"players": 2}, 1)
    while state.current_player != CHANCE:
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="chance"):
        decide(state, budget=QUICK)


def test_the_strong_level_weighs_as_many_actions_each_searched_longer() -> None:
    """Strong searches 3 times as long as normal, widens its tree as much more slowly and explores
    less: with 3 times the iterations its root weighs about as many actions as normal's, its best
    searched more than twice as often, not more actions searched little more each."""
    import math

    from rules.ai.player import STRONG_EXPLORATION, level_settings
    from rules.ai.search import DEFAULT, Settings

    assert level_settings(DEFAULT, Level.NORMAL) == DEFAULT
    strong = level_settings(DEFAULT, Level.STRONG)
    assert strong.widen == pytest.approx(DEFAULT.widen / math.sqrt(3))
    assert strong.exploration == pytest.approx(STRONG_EXPLORATION)
    assert strong.exploration < DEFAULT.exploration
    custom = level_settings(Settings(exploration=1.4), Level.STRONG)
    assert custom.exploration == pytest.approx(1.4 * STRONG_EXPLORATION / DEFAULT.exploration)
    state = _advance(rules.new_game("derailed", {"players": 4}, 3), random.Random(1), 2)
    normal_root = decide(state, Level.NORMAL, 1, Budget(iterations=100)).result
    strong_root = decide(state, Level.STRONG, 1, Budget(iterations=300)).result
    assert normal_root is not None and strong_root is not None
    assert abs(len(strong_root.options) - len(normal_root.options)) <= 1
    assert strong_root.options[0].visits > 2 * normal_root.options[0].visits


def test_the_root_grows_in_the_heuristics_order() -> None:
    from rules.ai import Heuristic, search

    state = _advance(rules.new_game("offtherails", {"players": 2}, 3), random.Random(1), 2)
    wanted = list(reversed(state.legal_actions()))
    heuristic = Heuristic(order=lambda s: list(reversed(s.legal_actions())))
    result = search(state, Budget(iterations=3), 1, heuristic)
    assert {o.action for o in result.options} == set(wanted[:3])


def test_the_mine_wagon_ranking_puts_the_bots_judgement_first() -> None:
    from rules.minewagons.bot import bot_action
    from rules.minewagons.heuristic import ranked
    from rules.minewagons.position import Phase

    state = rules.new_game("minewagons", {"players": 2}, 5)
    rng = random.Random(5)
    assert ranked(state) == []  # the setup: nothing to rank, the search expands with its racer
    races = 0
    while not state.is_over and races < 12:
        if state.current_player == CHANCE:
            state.apply(chance_step(state, rng))
            continue
        if state.pos.phase is Phase.PLAY:  # type: ignore[attr-defined]
            races += 1
            order = ranked(state)
            assert sorted(map(repr, order)) == sorted(map(repr, state.legal_actions()))
            assert decide(state, seed=races, budget=QUICK).action in state.legal_actions()
        state.apply(bot_action(state, rng))
    assert races == 12


def test_a_mine_wagon_road_counts_the_tiles_to_turn_and_stops_at_a_rivals() -> None:
    """In the setup the search judges each colour by its roads across the board: a tile it may
    turn (green, its own) costs a turn, a rival's tile that does not lead on is a wall."""
    from rules.minewagons.components import Colour, Shape, Tile, exits_mask, load_board
    from rules.minewagons.heuristic import NO_ROAD, ROTATE, SQUARE, road, roads

    board = load_board()
    d1 = board.square("D1")  # red's first line; column D is printed but for D3 and D5

    def every(colour: Colour, exits: str) -> list[Tile | None]:
        tile = Tile(colour, Shape.I, exits_mask(exits))
        return [None if sq in board.printed else tile for sq in range(len(board.names))]

    straight = 7 * SQUARE  # seven squares from the first line to the far end
    assert road(board, every(Colour.GREEN, "NS"), Colour.RED, d1) == pytest.approx(straight)
    across = road(board, every(Colour.GREEN, "EW"), Colour.RED, d1)
    assert across == pytest.approx(straight + 2 * ROTATE)  # D3 and D5 turned
    assert road(board, every(Colour.RED, "EW"), Colour.RED, d1) == pytest.approx(across)
    assert road(board, every(Colour.BLUE, "EW"), Colour.RED, d1) == NO_ROAD
    assert roads(board, every(Colour.GREEN, "NS"), Colour.BLUE, 4) == pytest.approx(straight)


def test_the_derailed_ranking_puts_the_bots_best_play_first() -> None:
    from rules.derailed import actions as act
    from rules.derailed.bot import _value
    from rules.derailed.heuristic import ranked

    state = rules.new_game("derailed", {"players": 4}, 3)
    rng = random.Random(1)
    ranked_plays = 0
    for _ in range(30):
        state = _advance(state, rng, 1)
        order = ranked(state)
        assert sorted(map(repr, order)) == sorted(map(repr, state.legal_actions()))
        plays = [a for a in order if isinstance(a, act.Play)]
        if plays:
            ranked_plays += 1
            seat = state.current_player
            assert isinstance(seat, int)
            d, table = state.d, state.rules  # type: ignore[attr-defined]
            values = [_value(table, d, seat, a) for a in plays]
            assert values == sorted(values, reverse=True) and order[: len(plays)] == plays
    assert ranked_plays > 10


def test_the_derailed_playout_is_the_bots_choice_worked_out_faster() -> None:
    """The search's playouts play the simple bot: the same values and the same choice drawn with
    the same random numbers, with one search of the network per slot (`play_values`)."""
    from rules.derailed import actions as act
    from rules.derailed.bot import _value, bot_action
    from rules.derailed.heuristic import play_values, playout
    from rules.derailed.state import Derailed

    valued = 0
    for players, seed in [(2, 1), (4, 2), (6, 3)]:
        state = rules.new_game("derailed", {"players": players}, seed)
        assert isinstance(state, Derailed)
        rng = random.Random(seed)
        while not state.is_over:
            if state.current_player == CHANCE:
                state.apply(chance_step(state, rng))
                continue
            seat = state.current_player
            assert isinstance(seat, int)
            d, table = state.d, state.rules
            plays = [a for a in state.legal_actions() if isinstance(a, act.Play)]
            expected = [_value(table, d, seat, a) for a in plays]
            assert play_values(table, d, seat, plays) == pytest.approx(expected)
            valued += len(plays)
            draws = len(state.history)
            action = bot_action(state, random.Random(draws))
            assert playout(state, random.Random(draws)) == action
            state.apply(action)
    assert valued > 1000


def _offtherails_action_phases(seed: int, wanted: int) -> list[State]:
    """Copies of an Off the Rails game (4 players, the simple bots) at `wanted` action phases."""
    from rules.offtherails.bot import bot_action
    from rules.offtherails.state import OffTheRails, Phase

    state = rules.new_game("offtherails", {"players": 4}, seed)
    assert isinstance(state, OffTheRails)
    rng = random.Random(seed)
    seen: list[State] = []
    while not state.is_over and len(seen) < wanted:
        if state.current_player == CHANCE:
            state.apply(chance_step(state, rng))
            continue
        if state.phase is Phase.ACTIONS:
            seen.append(state.fork())
        state.apply(bot_action(state, rng))
    return seen


def test_the_off_the_rails_action_groups_are_the_legal_actions() -> None:
    from rules.offtherails import actions as act
    from rules.offtherails.state import OffTheRails

    for state in _offtherails_action_phases(2, 60):
        assert isinstance(state, OffTheRails)
        groups = state.action_groups()
        kinds = [groups.placings, groups.upgrades, groups.speeds, groups.carts]
        assert [a for group in kinds for a in group] + [act.EndActions()] == state.legal_actions()
        for square, name in enumerate(state.board.names):
            on_it = [
                a for a in groups.placings if isinstance(a, act.PlaceTile) and a.square == name
            ]
            assert list(state.placings_at(square)) == on_it


def test_the_off_the_rails_ranking_puts_track_ahead_of_the_carts_first() -> None:
    from rules.offtherails import actions as act
    from rules.offtherails.bot import fitting_tiles, track_ends
    from rules.offtherails.heuristic import ranked
    from rules.offtherails.state import OffTheRails

    assert ranked(rules.new_game("offtherails", {"players": 4}, 2)) == []  # choosing sides
    laying = 0
    for state in _offtherails_action_phases(2, 60):
        assert isinstance(state, OffTheRails)
        order = ranked(state)
        assert order == ranked(state.fork())  # judged from the state alone: the same each time
        legal = state.legal_actions()
        assert len(set(order)) == len(order) and set(order) <= set(legal)
        groups = state.action_groups()
        ahead = {
            a
            for square, entry in track_ends(state)
            for a in fitting_tiles(state.placings_at(square), entry)
        }
        rest = [*groups.carts, *groups.speeds, act.EndActions(), *groups.upgrades]
        assert set(order[: len(ahead)]) == ahead and order[len(ahead) :] == rest
        if ahead:
            laying += 1
            assert isinstance(order[0], act.PlaceTile)
            assert all(isinstance(a, act.PlaceTile) for a in order[: len(ahead)])
        other = [a for a in groups.placings if a not in ahead]
        assert not set(other) & set(order)  # placements elsewhere: left to the bot's picks
    assert laying > 10


def test_the_normal_level_is_a_set_search_size_and_strong_the_clock() -> None:
    """The normal level searches its game's `NORMAL_ITERATIONS` (within its second), so it plays
    the same on any machine; iterations given replace it; the strong level searches its 3 s."""
    from rules.ai.player import DEFAULT_NORMAL_ITERATIONS, NORMAL_ITERATIONS, level_budget

    assert set(NORMAL_ITERATIONS) == set(rules.GAMES)
    cap = NORMAL_ITERATIONS["offtherails"]
    assert level_budget("offtherails", Level.NORMAL) == Budget(iterations=cap, seconds=1.0)
    assert level_budget("offtherails", Level.NORMAL, Budget(seconds=0.5, cpu=True)) == Budget(
        iterations=cap, seconds=0.5, cpu=True
    )
    assert level_budget("offtherails", Level.NORMAL, QUICK) == QUICK
    assert level_budget("no such game", Level.NORMAL).iterations == DEFAULT_NORMAL_ITERATIONS
    assert level_budget("offtherails", Level.STRONG) == Budget(seconds=3.0)
    state = _advance(rules.new_game("trickoftherails", {"players": 3}, 5), random.Random(4), 3)
    # The level's own second is a ceiling a slow machine (arm64 under qemu, 52 of 100) can meet
    # first; a longer clock shows the search stops at its set size, the same for a seed.
    roomy = Budget(seconds=60.0)
    first = decide(state, Level.NORMAL, 9, roomy)
    assert first.result is not None
    assert first.result.iterations == NORMAL_ITERATIONS["trickoftherails"]
    assert decide(state, Level.NORMAL, 9, roomy).action == first.action  # the same for a seed
