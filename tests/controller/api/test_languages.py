"""The referee's lines in the asking phone's language (issue 41): the verdict, the log rows and
the live stream said in German, French or Spanish by the phone's choice (its cookie) or its
browser's Accept-Language; English for everyone else; nothing but the words differs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.game.live import LiveGame
from controller.referee.observe import Observation
from rules.physical import PlacedPiece, TableObservation
from tests.support.api import HOST, BareTable, seat_headers, start_game

NOT_LEGAL = {
    "en": "not a legal move: ",
    "de": "kein erlaubter Zug: ",
    "fr": "coup non autorisé : ",
    "es": "jugada no permitida: ",
}


def _wrong_minecart(table: BareTable) -> None:
    """A minecart laid on F6, where none may go: the referee's alert names the square."""

    def lay(game: LiveGame) -> None:
        opened = game.opened()
        wrong = dict(opened.referee.table_of(opened.state))
        cart = next(e.piece for e in opened.info.catalogue().entries if e.piece.kind == "minecart")
        wrong["F6"] = (PlacedPiece(cart),)
        names = [loc.name for loc in opened.info.layout(opened.state.options).locations]
        verdict = game.observe(Observation.exact(TableObservation.of(wrong), names))
        assert verdict is not None and verdict.kind.value == "alert"

    table.owner.call_sync(lay)


# the keys of what is said, in each language its own (a score part's "what", a hand's words, a
# player no one named)
WORD_KEYS = {"text", "words", "who", "places", "place", "label", "help", "choices_words",
             "what", "private_words", "phase_words", "name", "title"}  # fmt: skip


def _without_words(value: Any) -> Any:
    """A JSON value with its words left out: what must be the same in every language."""
    if isinstance(value, dict):
        return {k: _without_words(v) for k, v in value.items() if k not in WORD_KEYS}
    if isinstance(value, list):
        return [_without_words(v) for v in value]
    return value


@pytest.mark.parametrize("code", ["en", "de", "fr", "es"])
def test_a_spectator_reads_the_verdict_in_its_language(
    control: BareTable, client: TestClient, code: str
) -> None:
    start_game(client, seed=1)
    _wrong_minecart(control)
    by_header = client.get("/api/verdict", headers={"Accept-Language": f"{code},en;q=0.5"}).json()
    assert by_header["text"].startswith(NOT_LEGAL[code]) and "F6" in by_header["text"]
    client.cookies.set("railtable-language", code)
    chosen = client.get("/api/verdict", headers={"Accept-Language": "ja"}).json()
    assert chosen == by_header
    client.cookies.set("railtable-language", "en")
    english = client.get("/api/verdict").json()
    assert _without_words(chosen) == _without_words(english)


def test_the_log_and_the_stream_speak_the_phones_language(
    control: BareTable, client: TestClient
) -> None:
    start_game(client, seed=1)
    seat0 = seat_headers(client, 0)
    moved = client.post(
        "/api/actions",
        json={"action": {"type": "choose_side", "side": "north"}},
        headers=seat0,
    )
    assert moved.status_code == 200, moved.text
    _wrong_minecart(control)
    german = {"Accept-Language": "de-DE"}
    rows = client.get("/api/events", headers=german).json()
    english_rows = client.get("/api/events").json()
    assert _without_words(rows) == _without_words(english_rows)
    said = [r["data"]["text"] for r in rows if r["kind"] == "alert"]
    assert said and all(line.startswith("kein erlaubter Zug: ") for line in said), said
    with client.stream("GET", "/api/stream", headers=german) as r:
        lines = r.iter_lines()
        while next(lines) != "event: snapshot":
            pass
        view = json.loads(next(lines).removeprefix("data: "))
    assert view["verdict"] == client.get("/api/verdict", headers=german).json()
    with client.stream("GET", "/api/stream") as r:
        lines = r.iter_lines()
        while next(lines) != "event: snapshot":
            pass
        english = json.loads(next(lines).removeprefix("data: "))
    assert english["verdict"] == client.get("/api/verdict").json()
    assert view["verdict"]["text"].startswith("kein erlaubter Zug: ")
    assert english["verdict"]["text"].startswith("not a legal move: ")
    assert _without_words(view) == _without_words(english)


def test_the_host_form_names_each_option_in_the_phones_language(client: TestClient) -> None:
    english = {g["name"]: g for g in client.get("/api/games/available").json()}
    german = {
        g["name"]: g
        for g in client.get("/api/games/available", headers={"Accept-Language": "de"}).json()
    }
    assert _without_words(german) == _without_words(english)
    options = {o["name"]: o for o in german["offtherails"]["options"]}
    assert options["cart_bonus"]["label"] == "Schlussbonus"
    assert options["bumper_carts"]["label"] == "Autoscooter-Loren"
    assert options["chasm_die"]["help"].startswith("Ein Achtseiter")
    for game in german.values():  # every label and choice said in German, none left English
        for option, said in zip(game["options"], english[game["name"]]["options"], strict=True):
            assert option["label"] != said["label"] or option["label"] in ("Teams",), option


@pytest.mark.parametrize(
    ("code", "unnamed", "computer"),
    [
        ("en", "Player 1", "the computer (purple)"),
        ("de", "Spieler 1", "der Computer (lila)"),
        ("fr", "Joueur 1", "l'ordinateur (violet)"),
        ("es", "Jugador 1", "el ordenador (morado)"),
    ],
)
def test_a_player_no_one_named_is_named_in_the_phones_language(
    client: TestClient, code: str, unnamed: str, computer: str
) -> None:
    """The table's own names ("Player 1", "the computer (purple)") in each language, in the
    seats, the turn's verdict and the log; a name a person chose stays as it is."""
    start_game(client, seed=1)
    named = client.post("/api/seats/1/player", json={"name": "Ann"}, headers=HOST)
    assert named.status_code == 200, named.text
    assert (
        client.post("/api/seats/1/computer", json={"level": "easy"}, headers=HOST).status_code
        == 200
    )
    language = {"Accept-Language": code}
    seats = client.get("/api/status", headers=language).json()["game"]["seats"]
    assert [s["name"] for s in seats] == [unnamed, computer]
    client.post("/api/seats/1/computer", json={"level": None}, headers=HOST)
    seats = client.get("/api/status", headers=language).json()["game"]["seats"]
    assert [s["name"] for s in seats] == [unnamed, "Ann"]


def test_the_title_we_gave_a_game_is_said_in_the_phones_language(client: TestClient) -> None:
    """The race's seed names no title, so ours is said in each language; the three published
    titles stay as printed: in the host's list, the status, the finished games and the replay."""
    german = {"Accept-Language": "de"}
    titles = {
        g["name"]: g["title"] for g in client.get("/api/games/available", headers=german).json()
    }
    assert titles == {
        "offtherails": "Off the Rails",
        "trickoftherails": "Trick of the Rails",
        "derailed": "Derailed!",
        "minewagons": "Zwergen-Grubenwagenrennen",
    }
    start_game(client, "minewagons", seed=1)
    assert client.get("/api/status", headers=german).json()["game"]["title"] == titles["minewagons"]
    assert client.get("/api/status").json()["game"]["title"] == "Dwarf Mine-Wagon Race"
    assert client.post("/api/games/current/end", headers=HOST).status_code == 200
    (finished,) = client.get("/api/games", headers={"Accept-Language": "fr"}).json()
    assert finished["title"] == "Course de wagonnets des nains"
    assert finished["names"] == ["Joueur 1", "Joueur 2"]  # no one named them
    replay = client.get(f"/api/games/{finished['id']}/replay?step=0", headers=german).json()
    assert (replay["title"], replay["text"]) == ("Zwergen-Grubenwagenrennen", "der Anfang")
