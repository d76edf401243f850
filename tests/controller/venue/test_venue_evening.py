"""The venue's model without a broker: rows once, holes asked for, standings, the tournament,
the CSV, and the page's HTTP routes."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.venue.app import create_venue_app
from controller.venue.evening import Evening
from controller.venue.standings import Finished, standings
from controller.venue.tournament import Tournament, TournamentError, table_sizes


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _row(row: int, prev: int, kind: str = "action", **more: Any) -> dict[str, Any]:
    return {"v": 1, "id": row, "prev": prev, "game_id": 1, "game": "offtherails", "at": 1.0,
            "sent": 999.9, "seat": 0, "kind": kind, "data": {"text": f"move {row}"},
            **more}  # fmt: skip


def _end(row: int, prev: int, scores: list[float], game_id: int = 1) -> dict[str, Any]:
    players = [{"seat": s, "name": None, "colour": None} for s in range(len(scores))]
    return _row(row, prev, "end", data={"scores": scores, "reason": "over"}, players=players,
                game_id=game_id)  # fmt: skip


def test_a_row_is_taken_once_and_a_hole_is_asked_for_after_a_wait(tmp_path: Path) -> None:
    clock = Clock()
    evening = Evening(tmp_path / "v.sqlite3", clock=clock)
    evening.take_state("t1", {"from": 4, "published_to": 4, "game": None, "help": []})
    assert evening.take_event("t1", _row(5, 4)) and not evening.take_event("t1", _row(5, 4))
    assert evening.take_event("t1", _row(8, 7))  # 6 and 7 went missing
    assert evening.tables["t1"].upto == 5 and evening.resend_requests() == []
    clock.now += 2.5
    assert evening.resend_requests() == [("t1", 5)]
    clock.now += 1
    assert evening.resend_requests() == []  # asked lately: not again yet
    for row in (6, 7, 8):
        evening.take_event("t1", _row(row, row - 1))
    assert evening.tables["t1"].upto == 8 and not evening.tables["t1"].behind
    assert (evening.received, evening.duplicates) == (4, 2)
    evening.close()
    again = Evening(tmp_path / "v.sqlite3", clock=clock)  # a restart keeps what it held
    assert again.tables["t1"].upto == 8 and not again.take_event("t1", _row(7, 6))


def test_a_table_offline_is_not_asked_and_needs_help(tmp_path: Path) -> None:
    clock = Clock()
    evening = Evening(clock=clock)
    evening.take_state("t2", {"from": 0, "published_to": 9, "game": None, "help": []})
    evening.take_online("t2", {"online": False})
    clock.now += 10
    assert evening.resend_requests() == []
    view = evening.view()
    assert view["needing_help"] == ["t2"] and view["tables"][0]["help"][0] == "the table is offline"


def test_standings_per_game_and_per_player_with_ties() -> None:
    games = [
        Finished("t1", 1, "offtherails", "Off the Rails", 1, ("Ann", "Bo", "Cy"), (10, 7, 7)),
        Finished("t2", 2, "offtherails", "Off the Rails", 2, ("Bo", "Di"), (5, 5)),
        Finished("t1", 3, "derailed", "Derailed!", 3, ("Ann", "Di"), (1, 4)),
    ]
    assert games[0].places() == [1, 2, 2]
    table = standings(games)
    lines = {line["player"]: line for line in table["players"]}
    assert (lines["Ann"]["wins"], lines["Ann"]["beaten"], lines["Ann"]["games"]) == (1, 2, 2)
    assert (lines["Di"]["wins"], lines["Bo"]["wins"]) == (2, 1)  # a tie shares first place
    assert table["players"][0]["player"] == "Di"
    assert [g["game"] for g in table["games"]] == ["derailed", "offtherails"]


def test_table_sizes_fit_the_games_player_counts() -> None:
    assert table_sizes(8, 3, 4) == ([4, 4], 0)
    assert table_sizes(10, 3, 4) == ([4, 3, 3], 0)
    assert table_sizes(5, 3, 4) == ([4], 1)  # no split fits: one sits out
    assert table_sizes(7, 2, 6) == ([4, 3], 0)
    with pytest.raises(TournamentError, match="2 players cannot make a table of 3 to 5"):
        table_sizes(2, 3, 5)


def test_a_tournament_seats_rounds_and_takes_results_from_the_tables() -> None:
    players = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus")
    t = Tournament("club", players)
    t = t.seat_round("trickoftherails", "Trick of the Rails", 3, 5, ["t1", "t2", "t3"], at=100)
    first = t.current
    assert first is not None and [len(s.players) for s in first.seatings] == [4, 3]
    assert sorted(p for s in first.seatings for p in s.players) == sorted(players)
    with pytest.raises(TournamentError, match="round 1 is not over: waiting for t1, t2"):
        t.seat_round("trickoftherails", "Trick of the Rails", 3, 5, ["t1", "t2"], at=200)
    early = Finished("t1", 9, "trickoftherails", "T", 150, ("a", "b", "c", "d"), (1, 2, 3, 4))
    t, named = t.record(early, started_at=90)  # begun before the round: not its result
    assert named.round is None and not t.results()
    for table, seating in (("t1", first.seatings[0]), ("t2", first.seatings[1])):
        n = len(seating.players)
        done = Finished(table, 1, "trickoftherails", "T", 300, ("x",) * n, tuple(range(n)))
        t, named = t.record(done, started_at=120)
        assert named.players == seating.players and named.round == 1
    assert t.current is not None and t.current.complete
    t = t.seat_round("trickoftherails", "Trick of the Rails", 3, 5, ["t1", "t2"], at=400)
    leaders = [line["player"] for line in t.standings()["players"][:2]]
    assert set(leaders) <= set(t.rounds[1].seatings[0].players)  # Swiss: the leaders meet


def test_the_page_routes_csv_and_the_organisers_pin(tmp_path: Path) -> None:
    evening = Evening()
    evening.take_state("t1", {"from": 0, "published_to": 0, "game": None, "help": []})
    evening.take_event("t1", _end(1, 0, [3, 9]))
    client = TestClient(create_venue_app(evening, "4321", "club"))
    assert "club" in client.get("/").text
    view = client.get("/api/venue").json()
    assert view["finished"][0]["results"][1] == {"seat": 1, "player": "t1 seat 2", "score": 9,
                                                 "place": 1}  # fmt: skip
    rows = list(csv.reader(io.StringIO(client.get("/api/venue/games.csv").text)))
    assert rows[0][:3] == ["finished_at", "table", "game"] and len(rows) == 3
    assert "t1 seat 2" in client.get("/api/venue/standings.csv").text
    body = {"players": ["Ann", "Bo", "Cy"]}
    assert client.post("/api/tournament", json=body).status_code == 403
    r = client.post("/api/tournament", json=body, headers={"X-Organiser-PIN": "4321"})
    assert r.status_code == 200 and r.json()["players"] == ["Ann", "Bo", "Cy"]
    pin = {"X-Organiser-PIN": "4321"}
    r = client.post("/api/tournament/rounds", json={"game": "chess"}, headers=pin)
    assert r.status_code == 409 and "unknown game 'chess'" in r.json()["detail"]
    r = client.post("/api/tournament/rounds", json={"game": "offtherails"}, headers=pin)
    assert r.status_code == 200 and r.json()["tables"][0]["table"] == "t1"
    r = client.post("/api/tournament", json={"players": "Ann"}, headers=pin)
    assert r.status_code == 422 and "\n" not in r.json()["detail"]


def test_a_name_that_looks_like_a_formula_is_not_one_in_the_csv() -> None:
    evening = Evening()
    payload = _end(1, 0, [1, 2])
    payload["players"][0]["name"] = "=HYPERLINK(1)"
    evening.take_event("t1", payload)
    assert "'=HYPERLINK(1)" in evening.games_csv()
