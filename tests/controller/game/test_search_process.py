"""The computer's searches in a process of their own: the same decisions as in the service's own
interpreter, and a child that dies, hangs or garbles its answer is replaced, never waited on."""

from __future__ import annotations

import io
import json
import random
import sys
from collections.abc import Iterator

import pytest

from controller.cli import main
from controller.game import search_process
from controller.game.computers import ComputerPlayers, _Job
from controller.game.search_process import SearchFailed, SearchProcess, read_frame, write_frame
from rules.ai.player import Level, decide
from rules.ai.search import Budget
from rules.core import CHANCE, State
from rules.playout import chance_step
from rules.registry import new_game

BUDGET = Budget(iterations=60)


def _state(game: str, players: int, moves: int = 6) -> State:
    """A game some random moves in, a player to act."""
    state = new_game(game, {"players": players}, 7)
    rng = random.Random(7)
    while moves or state.current_player == CHANCE:
        if state.current_player == CHANCE:
            state.apply(chance_step(state, rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
            moves -= 1
    return state


@pytest.fixture
def searcher() -> Iterator[SearchProcess]:
    process = SearchProcess()
    yield process
    process.close()


@pytest.mark.parametrize(
    ("game", "players"), [("trickoftherails", 3), ("offtherails", 2), ("minewagons", 2)]
)
def test_the_child_decides_as_this_interpreter_does(
    searcher: SearchProcess, game: str, players: int
) -> None:
    state = _state(game, players)
    here = decide(state, Level.NORMAL, 11, BUDGET)
    there = searcher.decide(state.fork(history=True), Level.NORMAL, 11, BUDGET)
    assert there.action == here.action and there.why == here.why
    assert searcher.started == 1  # one child serves every search


def test_a_search_that_fails_is_one_line_and_the_child_serves_on(searcher: SearchProcess) -> None:
    over = _state("trickoftherails", 3)
    while not over.is_over:
        chance = over.current_player == CHANCE
        over.apply(chance_step(over, random.Random(1)) if chance else over.legal_actions()[0])
    with pytest.raises(SearchFailed, match=r"^the search failed: ValueError: no player is to act"):
        searcher.decide(over, Level.NORMAL, 1, BUDGET)
    searcher.decide(_state("trickoftherails", 3), Level.NORMAL, 1, BUDGET)
    assert searcher.started == 1


def test_a_child_that_died_is_replaced(searcher: SearchProcess) -> None:
    state = _state("offtherails", 2)
    searcher.decide(state, Level.NORMAL, 1, BUDGET)
    assert searcher._child is not None
    searcher._child.kill()
    searcher._child.wait()  # died between searches: the next search starts a new child
    here = decide(state, Level.NORMAL, 1, BUDGET)
    assert searcher.decide(state, Level.NORMAL, 1, BUDGET).action == here.action
    assert searcher.started == 2


def test_a_child_that_dies_in_a_search_fails_it_in_one_line() -> None:
    dying = SearchProcess([sys.executable, "-c", "import sys; sys.stdin.buffer.read(4)"])
    with pytest.raises(SearchFailed, match=r"^the search process stopped: "):
        dying.decide(_state("offtherails", 2), Level.NORMAL, 1, BUDGET)  # the pipe ended or
        # broke, as the child went before or after the state was written
    assert dying._child is None


def test_a_garbled_answer_ends_the_child() -> None:
    garbler = SearchProcess([sys.executable, "-c", "import sys; sys.stdout.write('garbage!')"])
    with pytest.raises(SearchFailed, match="the search process stopped"):
        garbler.decide(_state("offtherails", 2), Level.NORMAL, 1, BUDGET)
    assert garbler._child is None


def test_a_hung_child_is_killed_at_its_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_process, "ITERATIONS_LIMIT_S", 0.5)
    sleeper = SearchProcess([sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(SearchFailed, match="the search process stopped"):
        sleeper.decide(_state("offtherails", 2), Level.NORMAL, 1, BUDGET)
    assert search_process.time_limit(Level.STRONG, None) == 3.0 + search_process.GRACE_S


def test_frames_round_trip_and_refuse_a_monstrous_length() -> None:
    pipe = io.BytesIO()
    write_frame(pipe, ("decision", [1, 2, 3]))
    pipe.seek(0)
    assert read_frame(pipe) == ("decision", [1, 2, 3])
    with pytest.raises(EOFError):
        read_frame(pipe)
    with pytest.raises(ValueError, match="a frame of"):
        read_frame(io.BytesIO(search_process.HEADER.pack(search_process.MAX_FRAME + 1)))


def test_the_worker_searches_itself_when_no_child_will_start() -> None:
    computers = ComputerPlayers(owner=None, iterations=60)  # type: ignore[arg-type]  # no game
    computers.searcher = SearchProcess([sys.executable, "-c", "pass"])  # ends at once
    state = _state("minewagons", 2)
    job = _Job(state, Level.NORMAL, 5, BUDGET, lambda decision: None)
    assert computers._search(job).action == decide(state, Level.NORMAL, 5, BUDGET).action
    assert computers.stats.searched_here == 1 and computers.stats.search_processes == 1


def test_bench_referee_with_a_computer_thinking_in_its_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "referee", "--game", "minewagons", "--seeds", "1", "--players", "2"]
    assert main([*argv, "--computer", "process", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["computer"] == "process" and figures["computer_decisions"] >= 1
    assert figures["false_applied"] == 0 and figures["infer_p99_ms"] > 0
