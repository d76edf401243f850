"""The venue page in the reader's language (issue 41): its page, the tables' help reasons and
ticker, and the CSV headings, by `?language=`, the page's cookie or Accept-Language."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from controller.venue.app import create_venue_app
from controller.venue.evening import Evening
from controller.words.language import Language
from tests.support.english import english_in


def _evening() -> Evening:
    evening = Evening()
    health = {"camera": "lost", "board": "ok", "store": "ok"}
    game = {"id": 1, "name": "offtherails", "title": "Off the Rails", "players": [],
            "current_player": 0, "scores": [0, 0], "is_over": False}  # fmt: skip
    evening.take_state("t1", {"from": 0, "published_to": 0, "game": game, "health": health,
                              "alert": None, "help": ["the camera is lost"]})  # fmt: skip
    start: dict[str, Any] = {"v": 1, "id": 1, "prev": 0, "game_id": 1, "game": "offtherails",
                             "at": 1.0, "sent": 1.0, "seat": None, "kind": "start",
                             "data": {}}  # fmt: skip
    undo = {**start, "id": 2, "prev": 1, "kind": "undo", "data": {"count": 2}}
    evening.take_event("t1", start)
    evening.take_event("t1", undo)
    evening.take_online("t2", {"online": False})
    return evening


def test_the_evening_is_said_in_each_language() -> None:
    evening = _evening()
    english = evening.view()
    table = english["tables"][0]
    assert table["help"] == ["the camera has lost its view of the mat"]
    assert [r["text"] for r in table["recent"]] == [
        "2 moves taken back",
        "a game of Off the Rails began",
    ]
    german = evening.view(Language.DE)
    table = german["tables"][0]
    assert table["help"] == ["die Kamera sieht den Spielplan nicht mehr"]
    assert [r["text"] for r in table["recent"]] == [
        "2 Züge zurückgenommen",
        "eine Partie Off the Rails hat begonnen",
    ]
    assert german["tables"][1]["help"] == ["der Tisch ist nicht erreichbar"]
    assert evening.view() is english  # each language's view kept until the evening changes


def test_the_page_and_the_csv_speak_the_asker_language() -> None:
    client = TestClient(create_venue_app(_evening(), "1234", "Café Zug"))
    page = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert '<html lang="fr">' in page.text and "Classement" in page.text and "Café Zug" in page.text
    chosen = client.get("/?language=es")
    assert '<html lang="es">' in chosen.text and "Clasificación" in chosen.text
    assert client.cookies.get("railtable-language") == "es"  # kept for the page's next visits
    client.cookies.clear()
    words = client.get("/static/words.js")
    assert words.status_code == 200 and "export function tr" in words.text
    german = client.get("/api/venue/standings.csv", headers={"Accept-Language": "de"})
    assert german.text.splitlines()[0] == "Spiel,Rang,Spieler,Partien,Siege,geschlagen,Punkte"
    plain = client.get("/api/venue/games.csv")  # a script with no language: English headings
    assert plain.text.startswith("finished_at,table,game,game_id,round,seat,player,score,place")
    view = client.get("/api/venue", headers={"Accept-Language": "de"}).json()
    said = " ".join(view["tables"][0]["help"] + [r["text"] for r in view["tables"][0]["recent"]])
    assert english_in(said, ("Off the Rails",)) == [], said


def test_the_venue_says_the_race_by_its_title_in_the_readers_language() -> None:
    """The title we gave the race in the tables, the games list, the finished games, the
    standings and the ticker; a published title as printed."""
    evening = Evening()
    game = {"id": 3, "name": "minewagons", "title": "Dwarf Mine-Wagon Race", "players": [],
            "current_player": 0, "scores": [0, 0], "is_over": False}  # fmt: skip
    evening.take_state("t1", {"from": 0, "published_to": 0, "game": game, "health": None,
                              "alert": None, "help": []})  # fmt: skip
    start: dict[str, Any] = {"v": 1, "id": 1, "prev": 0, "game_id": 3, "game": "minewagons",
                             "at": 1.0, "sent": 1.0, "seat": None, "kind": "start",
                             "data": {}}  # fmt: skip
    evening.take_event("t1", start)
    spanish = evening.view(Language.ES)
    race = "Carrera de vagonetas de enanos"
    assert spanish["tables"][0]["game"]["title"] == race
    assert spanish["tables"][0]["recent"][0]["text"] == f"empezó una partida de {race}"
    assert {g["name"]: g["title"] for g in spanish["games"]}["derailed"] == "Derailed!"
    assert {g["name"]: g["title"] for g in spanish["games"]}["minewagons"] == race
    assert evening.view()["tables"][0]["game"]["title"] == "Dwarf Mine-Wagon Race"
