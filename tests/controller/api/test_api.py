"""The HTTP API: who may do what, 4xx for bad requests, the live stream resumes by event id."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.game.live import LiveGame
from tests.support.api import HOST, BareTable, api_client, seat_headers, start_game

JPEG = b"\xff\xd8 a jpeg"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with api_client(tmp_path, JPEG) as client:
        yield client


def test_only_the_host_starts_a_game_and_a_wrong_pin_is_refused(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "offtherails"})
    assert r.status_code == 403 and "PIN" in r.json()["detail"]
    r = client.post("/api/games", json={"game": "offtherails"}, headers={"X-Table-Pin": "0000"})
    assert r.status_code == 403 and r.json()["detail"] == "wrong table PIN"
    r = client.post("/api/games", json={"game": "chess"}, headers=HOST)
    assert r.status_code == 422 and "unknown game 'chess'" in r.json()["detail"]
    start_game(client, seed=1)
    assert client.get("/api/status").json()["game"]["name"] == "offtherails"


def test_seats_act_for_themselves_only_and_spectators_not_at_all(client: TestClient) -> None:
    start_game(client, seed=1)
    choose = {"action": {"type": "choose_side", "side": "north"}}
    assert client.post("/api/actions", json=choose).status_code == 403
    r = client.post("/api/actions", json=choose, headers=seat_headers(client, 1))
    assert r.status_code == 403 and "not seat 1's turn" in r.json()["detail"]
    r = client.post("/api/actions", json=choose, headers=seat_headers(client, 0))
    assert r.status_code == 200, r.text
    assert (
        client.post("/api/undo", json={"count": 1}, headers=seat_headers(client, 0)).status_code
        == 403
    )


def test_malformed_requests_get_a_4xx_naming_the_problem(client: TestClient) -> None:
    start_game(client, seed=1)
    seat = seat_headers(client, 0)
    r = client.post("/api/actions", json={"action": {"type": "fly"}}, headers=seat)
    assert r.status_code == 422 and "unknown action type 'fly'" in r.json()["detail"]
    r = client.post("/api/actions", json={"nothing": 1}, headers=seat)
    assert r.status_code == 422 and "action" in r.json()["detail"]
    r = client.post(
        "/api/actions", content=b"{not json", headers={**seat, "Content-Type": "application/json"}
    )
    assert r.status_code == 422
    r = client.post("/api/undo", json={"count": -3}, headers=HOST)
    assert r.status_code == 422
    assert client.get("/api/events?after=-1").status_code == 422
    assert client.post("/api/seats/7/token", headers=HOST).status_code == 422
    assert client.post("/api/answer", json={"option": 0}, headers=seat).status_code == 409


def test_no_view_or_event_gives_away_the_seed(client: TestClient) -> None:
    start_game(client, seed=1)
    state = client.get("/api/state").json()
    assert "seed" not in state["view"]
    assert client.get("/api/games/1/record").status_code == 403
    assert client.get("/api/games/1/record", headers=HOST).json()["seed"] == 1


def test_the_stream_resumes_after_the_last_event_id(client: TestClient) -> None:
    start_game(client, seed=1)
    client.post(
        "/api/actions",
        json={"action": {"type": "choose_side", "side": "north"}},
        headers=seat_headers(client, 0),
    )
    events = client.get("/api/events").json()
    assert len(events) > 3
    middle = events[2]["id"]
    with client.stream("GET", "/api/stream", headers={"Last-Event-ID": str(middle)}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        ids = []
        for line in r.iter_lines():
            if line.startswith("id: "):
                ids.append(int(line[4:]))
            if ids and ids[-1] == events[-1]["id"]:
                break
    assert ids == [e["id"] for e in events if e["id"] > middle]


def test_the_openapi_description_lists_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for route in (
        "/api/status",
        "/api/state",
        "/api/stream",
        "/api/actions",
        "/api/answer",
        "/api/games",
        "/api/undo",
    ):
        assert route in paths


def test_the_page_is_served_whole_from_the_pi(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    # no script inline: the modules from the Pi, and the page's lines as data (never run)
    shell = r.text.replace('<script type="module" src=', "")
    shell = shell.replace('<script type="application/json" id="lines">', "")
    assert "<svg" in r.text and "<script" not in shell
    fetched = re.findall(r"""(?:src|href)=["']([^"']+)""", r.text)
    assert all(not u.startswith(("http:", "https:", "//")) for u in fetched), fetched
    # the style and every module the page imports, from the Pi, with the type a browser needs
    todo, seen, scripts = list(fetched), set(), ""
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        r = client.get(url)
        assert r.status_code == 200, url
        if url.endswith(".js"):
            assert r.headers["content-type"].startswith("text/javascript"), url
            scripts += r.text
            for module in re.findall(
                r"""^\s*(?:import|export)[^;]*?from\s+["']([^"']+)""", r.text, re.M
            ):
                assert module.startswith("./"), (url, module)
                todo.append(url.rsplit("/", 1)[0] + "/" + module[2:])
        elif url == "/favicon.ico":
            assert r.headers["content-type"].startswith("image/svg+xml"), url
        else:
            assert r.headers["content-type"].startswith("text/css"), url
    assert {"/static/app.css", "/static/js/main.js", "/static/js/stream.js"} <= seen
    modules = Path(__file__).resolve().parents[3] / "controller" / "web" / "js"
    assert {f"/static/js/{m.name}" for m in modules.glob("*.js")} == {
        u for u in fetched if u.endswith(".js")
    }  # each module is named in the page (main, or preloaded): none is fetched late, none unused
    assert "EventSource" in scripts and "http://" not in scripts.replace(
        '"http://www.w3.org/2000/svg"', ""
    )


def test_each_games_look_draws_every_piece_it_prints_without_colour_alone(
    client: TestClient,
) -> None:
    from rules.registry import GAMES

    forms = {"tile", "token", "chasm", "station", "rail", "card"}
    for name, info in GAMES.items():
        look = client.get(f"/api/games/{name}/look").json()
        assert look["game"] == name
        pieces = look["pieces"]
        assert set(pieces) == {str(e.piece) for e in info.catalogue().entries}, name
        for key, piece in pieces.items():
            assert piece["form"] in forms, key
            if piece.get("colour"):  # a colour always comes with a letter or words
                assert re.fullmatch(r"#[0-9a-f]{3,6}", piece["colour"]), key
                assert piece.get("letter") or piece.get("words"), key
            for exit in piece.get("exits", []) + piece.get("stubs", []):
                assert exit in (0, 1, 2, 3), key
    tiles = client.get("/api/games/offtherails/look").json()["pieces"]
    assert tiles["tile:corner_t:corner"]["exits"] == [0, 1]  # north and east, at turn 0
    assert tiles["minecart:red-black"] == {
        "form": "token", "colour": "#c62828", "ink": "#fff", "letter": "Rk", "cap": "black",
        "heading": True,
    }  # fmt: skip
    bridge = client.get("/api/games/derailed/look").json()["pieces"]["rail:bridge"]
    assert bridge["tracks"] == [{"exits": [3, 1], "over": False}, {"exits": [0, 2], "over": True}]
    r = client.get("/api/games/chess/look")
    assert r.status_code == 404 and "no game 'chess'" in r.json()["detail"]


def test_the_event_kinds_are_the_logs_own(client: TestClient) -> None:
    from controller.game.store import EventKind

    assert client.get("/api/events/kinds").json() == [k.value for k in EventKind]


def test_the_stream_sends_the_askers_whole_view_on_connecting(client: TestClient) -> None:
    start_game(client, seed=1)
    seat0 = seat_headers(client, 0)
    client.cookies.set("railtable_seat", seat0["X-Seat-Token"])
    with client.stream("GET", "/api/stream") as r:
        lines = r.iter_lines()
        while next(lines) != "event: snapshot":
            pass
        view = json.loads(next(lines).removeprefix("data: "))
    assert set(view) == {
        "version",
        "row",
        "game",
        "finished",
        "store",
        "state",
        "table",
        "verdict",
        "choices",
    }
    assert view["game"] == client.get("/api/status").json()["game"]
    assert view["store"] == client.get("/api/status").json()["store"]
    for part in ("state", "table", "verdict", "choices"):
        assert view[part] == client.get(f"/api/{part}", headers=seat0).json(), part
    assert view["choices"]  # seat 0 chooses its side: the stream reads the seat's view


def test_the_table_route_gives_the_mat_and_its_pieces(client: TestClient) -> None:
    assert client.get("/api/table").status_code == 404
    start_game(client, seed=1)
    client.post(
        "/api/actions",
        json={"action": {"type": "choose_side", "side": "north"}},
        headers=seat_headers(client, 0),
    )
    client.post(
        "/api/actions",
        json={"action": {"type": "place_tile", "square": "F11", "exits": "NS"}},
        headers=seat_headers(client, 0),
    )
    table = client.get("/api/table").json()
    assert table["width_mm"] > 0 and any(loc["name"] == "F11" for loc in table["locations"])
    assert table["pieces"]["F11"][0]["kind"] == "tile"


def test_a_seat_qr_code_is_drawn_on_the_pi_for_the_host_only(client: TestClient) -> None:
    start_game(client, seed=1)
    assert client.get("/api/seats/0/qr").status_code == 403
    r = client.get("/api/seats/1/qr", headers=HOST)
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in r.text and "<path" in r.text
    assert client.get("/api/seats/5/qr", headers=HOST).status_code == 422


def test_wrong_pins_are_rate_limited(client: TestClient) -> None:
    start_game(client, seed=1)
    for _ in range(5):
        assert client.get("/api/state", headers={"X-Table-Pin": "0000"}).status_code == 403
    r = client.get("/api/state", headers=HOST)
    assert r.status_code == 429 and "too many wrong PINs" in r.json()["detail"]


def test_a_seat_token_cannot_act_for_another_seat(client: TestClient) -> None:
    start_game(client, seed=1)
    other = seat_headers(client, 1)
    r = client.post(
        "/api/actions", json={"action": {"type": "choose_side", "side": "north"}}, headers=other
    )
    assert r.status_code == 403
    assert client.get("/api/state", headers={"X-Seat-Token": "made-up"}).status_code == 403


def test_the_camera_view_is_for_the_host_only(client: TestClient) -> None:
    assert client.get("/api/camera.jpg").status_code == 403
    r = client.get("/api/camera.jpg", headers=HOST)
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"


def _trick(client: TestClient) -> None:
    r = client.post(
        "/api/games",
        json={"game": "trickoftherails", "options": {"players": 3}, "seed": 2},
        headers=HOST,
    )
    assert r.status_code == 200, r.text


def test_a_seat_sees_its_hand_as_private_and_nobody_else_does(client: TestClient) -> None:
    _trick(client)
    seat0, seat1 = seat_headers(client, 0), seat_headers(client, 1)
    mine = client.get("/api/state", headers=seat0).json()
    theirs = client.get("/api/state", headers=seat1).json()
    public = client.get("/api/state").json()
    assert mine["private"]["hand"] and mine["private"]["hand"] != theirs["private"]["hand"]
    assert public["private"] == {} and "hand" not in public["view"]
    assert "hand" not in str(client.get("/api/table").json())
    seen = json.dumps(public)
    for cards in (mine["private"]["hand"], theirs["private"]["hand"]):
        assert not [card for card in cards if f'"{card}"' in seen]


def test_the_seat_cookie_reads_the_seats_view_but_never_acts(client: TestClient) -> None:
    start_game(client, seed=1)
    token = seat_headers(client, 0)["X-Seat-Token"]
    client.cookies.set("railtable_seat", token)
    assert client.get("/api/status").json()["you"] == {"role": "seat", "seat": 0}
    choose = {"action": {"type": "choose_side", "side": "north"}}
    r = client.post("/api/actions", json=choose)
    assert r.status_code == 403 and "spectator" in r.json()["detail"]
    client.cookies.set("railtable_seat", "stale")
    assert client.get("/api/status").json()["you"] == {"role": "spectator", "seat": None}


def test_scores_say_what_they_are_made_of(client: TestClient) -> None:
    start_game(client, seed=1)
    choose = {"action": {"type": "choose_side", "side": "north"}}
    client.post("/api/actions", json=choose, headers=seat_headers(client, 0))
    state = client.get("/api/state").json()
    assert [sum(p["points"] for p in parts) for parts in state["score_parts"]] == state["scores"]
    assert state["score_parts"][0][0]["what"] == "2 minecarts not derailed"


def test_the_last_move_is_pointed_out_on_the_table_and_events_are_in_words(
    client: TestClient,
) -> None:
    start_game(client, seed=1)
    seat0 = seat_headers(client, 0)
    client.post(
        "/api/actions", json={"action": {"type": "choose_side", "side": "north"}}, headers=seat0
    )
    r = client.post(
        "/api/actions",
        json={"action": {"type": "place_cart", "cart": "red-white", "square": "F12"}},
        headers=seat0,
    )
    assert r.status_code == 200, r.text
    assert client.get("/api/table").json()["last_move"] == ["F12"]
    texts = [
        e["data"].get("text") for e in client.get("/api/events").json() if e["kind"] == "action"
    ]
    assert any(t and "F12" in t for t in texts), texts
    client.post("/api/undo", json={"count": 1}, headers=HOST)
    assert client.get("/api/table").json()["last_move"] == []


def test_a_finished_game_replays_step_by_step_without_its_seed(client: TestClient) -> None:
    start_game(client, seed=1)
    seat0 = seat_headers(client, 0)
    client.post(
        "/api/actions", json={"action": {"type": "choose_side", "side": "north"}}, headers=seat0
    )
    client.post(
        "/api/actions",
        json={"action": {"type": "place_cart", "cart": "red-white", "square": "F12"}},
        headers=seat0,
    )
    assert client.post("/api/games/current/end", headers=HOST).status_code == 200
    (finished,) = client.get("/api/games").json()
    start = client.get(f"/api/games/{finished['id']}/replay?step=0").json()
    assert (
        start["steps"] == 2 and start["text"] == "the start" and start["table"]["last_move"] == []
    )
    last = client.get(f"/api/games/{finished['id']}/replay?step=2").json()
    assert last["seat"] == 0 and "F12" in last["text"] and last["table"]["last_move"] == ["F12"]
    assert [p["kind"] for p in last["table"]["pieces"]["F12"]] == ["minecart"]
    assert "seed" not in str(last) and "seed" not in str(start)
    r = client.get(f"/api/games/{finished['id']}/replay?step=3")
    assert r.status_code == 404 and "beyond the game's 2 moves" in r.json()["detail"]
    assert client.get("/api/games/99/replay").status_code == 404


def test_only_the_host_recalibrates_the_camera(client: TestClient) -> None:
    assert client.post("/api/camera/calibrate").status_code == 403
    r = client.post("/api/camera/calibrate", headers=HOST)
    assert r.status_code == 409 and "no camera" in r.json()["detail"]


def test_the_referees_question_reaches_its_seat_and_the_host_only(tmp_path: Path) -> None:
    from controller.referee.verdict import Alternative, Reason, Verdict, VerdictKind
    from rules.offtherails.actions import PlaceCart

    control = BareTable(tmp_path / "log.sqlite3")
    client = TestClient(create_app(control))
    start_game(client, seed=1)
    seat0, seat1 = seat_headers(client, 0), seat_headers(client, 1)
    options = tuple(Alternative((PlaceCart(cart, "F12"),)) for cart in ("red-white", "red-black"))
    question = Verdict(
        VerdictKind.CHOICE,
        Reason.MANY_READINGS,
        options=options,
        seat=0,
    )

    def ask(game: LiveGame) -> None:  # as the referee does, on the owner's thread
        game.verdict = question
        game.changes += 1

    control.owner.call_sync(ask)
    mine = client.get("/api/verdict", headers=seat0).json()
    assert [o["words"] for o in mine["options"]] == [
        "place the red minecart with the white die on F12",
        "place the red minecart with the black die on F12",
    ]
    assert client.get("/api/verdict", headers=HOST).json()["options"] == mine["options"]
    for who in ({}, seat1):
        other = client.get("/api/verdict", headers=who).json()
        assert other["options"] == [] and "red-white" not in json.dumps(other)
        assert other["text"] == other["words"] == "Player 1 is asked how the table came about"


def _first_view(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    """The whole view the stream sends right after connecting (`event: snapshot`)."""
    with client.stream("GET", "/api/stream", headers=headers) as r:
        kind = ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "snapshot":
                data: dict[str, Any] = json.loads(line[6:])
                return data
    raise AssertionError("no snapshot on the stream")


def test_the_stream_carries_each_askers_whole_view_and_no_one_elses(client: TestClient) -> None:
    _trick(client)
    seat0 = seat_headers(client, 0)
    mine = _first_view(client, seat0)
    public = _first_view(client, {})
    assert mine["state"] == client.get("/api/state", headers=seat0).json()
    assert mine["table"] == client.get("/api/table").json()
    assert mine["choices"] == client.get("/api/choices", headers=seat0).json()
    assert public["state"] == client.get("/api/state").json()
    hand = mine["state"]["private"]["hand"]
    assert hand and public["state"]["private"] == {} and public["choices"] == []
    seen = json.dumps(public)
    assert not [card for card in hand if f'"{card}"' in seen]


def test_two_tables_in_one_process_stream_their_own_views(tmp_path: Path) -> None:
    def first_view(path: Path, game: str) -> dict[str, object]:
        control = BareTable(path)
        try:
            client = TestClient(create_app(control))
            r = client.post(
                "/api/games",
                json={"game": game, "options": {"players": 3}, "seed": 1},
                headers=HOST,
            )
            assert r.status_code == 200, r.text
            with client.stream("GET", "/api/stream") as r:
                lines = r.iter_lines()
                while next(lines) != "event: snapshot":
                    pass
                view: dict[str, object] = json.loads(next(lines).removeprefix("data: "))
            return view
        finally:
            control.owner.stop()

    a = first_view(tmp_path / "a.sqlite3", "derailed")
    b = first_view(tmp_path / "b.sqlite3", "trickoftherails")
    assert a["game"]["name"] == "derailed" and b["game"]["name"] == "trickoftherails"  # type: ignore[index]
