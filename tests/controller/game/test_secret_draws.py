"""Draws no one can predict: each game's secret keys every draw, stays in the log, reaches no one
but the host's record of a finished game, and draws the same after a restart (issue 37)."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.bench.crash import run
from controller.game.access import Asker, Refused
from controller.game.live import LiveGame
from controller.game.snapshot import DEMO_SEED
from controller.game.store import EventKind, EventLog, action_entry, moves
from controller.referee.deck import SecretDeck, SeededDeck, digital_draw
from controller.venue.contract import event_payload, table_state
from rules.core import CHANCE, Action, State
from rules.registry import new_game
from tests.support.api import HOST, BareTable

SECRET = hashlib.sha256(b"railtable test secret").digest()  # fixed: the figures are the same


def _one_bit_off(secret: bytes, bit: int) -> bytes:
    flipped = bytearray(secret)
    flipped[bit // 8] ^= 1 << (bit % 8)
    return bytes(flipped)


def _dealt(deck: SecretDeck) -> State:
    """A fresh Trick of the Rails game, its chance drawn by `deck` until a player acts."""
    state = new_game("trickoftherails", {"players": 4}, 0)
    while state.current_player == CHANCE:
        state.apply(deck(state))
    return state


def test_secrets_one_bit_apart_share_no_draws() -> None:
    deck = SecretDeck(SECRET, "trickoftherails")
    for bit in (0, 7, 100, 255):
        other = SecretDeck(_one_bit_off(SECRET, bit), "trickoftherails")
        mine = [deck.draw_seed(n) for n in range(200)]
        theirs = [other.draw_seed(n) for n in range(200)]
        assert set(mine).isdisjoint(theirs), bit  # no draw of one is any draw of the other
        a, b = _dealt(deck), _dealt(other)
        assert [a.view(s)["hand"] for s in range(4)] != [b.view(s)["hand"] for s in range(4)]
        assert a.history != b.history
    # the game's name is keyed too: the same secret draws otherwise in another game
    assert deck.draw_seed(5) != SecretDeck(SECRET, "derailed").draw_seed(5)


class _Drawn:
    """A chance with ten equal outcomes after `steps` steps: all a deck reads of a state."""

    def __init__(self, steps: int) -> None:
        self.history = [None] * steps

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(n, 0.1) for n in range(10)]


def test_the_secrets_draws_are_spread_evenly() -> None:
    deck = SecretDeck(SECRET, "offtherails")
    picks = Counter(deck(_Drawn(n)) for n in range(5000))  # type: ignore[arg-type]
    chi2 = sum((count - 500) ** 2 / 500 for count in picks.values())
    assert len(picks) == 10 and chi2 < 27.9  # 9 degrees of freedom, p = 0.001
    bits = "".join(f"{deck.draw_seed(n):064b}" for n in range(200))
    assert abs(bits.count("1") / len(bits) - 0.5) < 0.02


def test_a_secret_shorter_than_128_bits_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        SecretDeck(b"\x01" * 15, "derailed")
    assert SECRET.hex() not in repr(SecretDeck(SECRET, "derailed"))


def test_a_live_game_has_no_seed_and_draws_from_its_secret(tmp_path: Path) -> None:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    state = game.start("trickoftherails", {"players": 4})
    record = game.opened().record
    assert record is not None and record.seed is None and not record.reproducible_seed
    with sqlite3.connect(tmp_path / "log.sqlite3") as db:
        assert db.execute("SELECT seed FROM games").fetchall() == [(None,)]
    secret = game.log.secret(record.id)
    assert secret is not None and len(secret) == 32
    deck = SecretDeck(secret, "trickoftherails")
    replayed = new_game("trickoftherails", {"players": 4}, 0)
    seeded = 0
    for action in state.history:  # every draw is the secret's, none the seed's of old
        assert replayed.current_player == CHANCE and action == deck(replayed)
        seeded += action == digital_draw(replayed)
        replayed.apply(action)
    assert len(state.history) > 40 and seeded < len(state.history) // 2
    assert game.log.record_json(record.id)["seed"] is None


def _texts(secret: bytes) -> list[str]:
    """The secret as any code might spell it."""
    return [
        secret.hex(),
        secret.hex().upper(),
        base64.b64encode(secret).decode(),
        base64.urlsafe_b64encode(secret).decode().rstrip("="),
        str(int.from_bytes(secret, "big")),
        str(list(secret))[1:-1],
    ]


def _stream_snapshot(client: TestClient, headers: dict[str, str]) -> str:
    with client.stream("GET", "/api/stream", headers=headers) as r:
        lines = r.iter_lines()
        while next(lines) != "event: snapshot":
            pass
        return str(next(lines))


def test_no_audience_sees_the_secret_and_the_host_gets_it_once_the_game_is_over(
    control: BareTable,
) -> None:
    client = TestClient(create_app(control))
    r = client.post("/api/games", json={"game": "trickoftherails", "options": {"players": 3}},
                    headers=HOST)  # fmt: skip
    assert r.status_code == 200, r.text
    game = control.owner.game
    assert game.open is not None
    game_id = game.open.record.id
    secret = control.reader.secret(game_id)
    assert secret is not None
    audiences: dict[str, dict[str, str]] = {"host": HOST, "spectator": {}}
    for seat in range(3):
        token = client.post(f"/api/seats/{seat}/token", headers=HOST).json()["token"]
        audiences[f"seat {seat}"] = {"X-Seat-Token": token}
    seen: list[tuple[str, str]] = []
    for who, headers in audiences.items():
        for route in ("/api/status", "/api/state", "/api/events", "/api/choices", "/api/verdict",
                      "/api/table", f"/api/games/{game_id}/record"):  # fmt: skip
            seen.append((f"{who} {route}", client.get(route, headers=headers).text))
        seen.append((f"{who} stream", _stream_snapshot(client, headers)))
    status = client.get("/api/status").json()
    assert status["game"]["reproducible_seed"] is False
    record = client.get(f"/api/games/{game_id}/record", headers=HOST).json()
    assert record["seed"] is None and "secret" not in record  # the game is open: not even the host
    snapshot = control.owner.snapshot
    seen.append(("venue state", json.dumps(table_state(snapshot, {}, venue="v", table="t", at=0))))
    for event in control.reader.events(game_id):
        payload = event_payload(event, prev=0, table="t", game="trickoftherails",
                                viewer=game.open.state, players=3, sent=0.0)  # fmt: skip
        seen.append((f"venue event {event.id}", json.dumps(payload)))
    for where, text in seen:
        for spelt in _texts(secret):
            assert spelt not in text, where
    assert client.post("/api/games/current/end", headers=HOST).status_code == 200
    assert client.get(f"/api/games/{game_id}/record").status_code in (401, 403)
    record = client.get(f"/api/games/{game_id}/record", headers=HOST).json()
    assert record["secret"] == secret.hex() and record["reproducible_seed"] is False
    replay = client.get(f"/api/games/{game_id}/replay?step=0").text
    assert all(spelt not in replay for spelt in _texts(secret))


def test_the_computers_search_gets_no_secret(tmp_path: Path) -> None:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    game.start("trickoftherails", {"players": 3})
    assert game.open is not None
    secret = game.log.secret(game.open.record.id)
    assert secret is not None
    sent = pickle.dumps(
        (game.open.state.fork(history=True), game.open.deck.search_seed(game.moves))
    )
    assert secret not in sent and all(t.encode() not in sent for t in _texts(secret))
    assert game.open.state.seed == 0  # no seed: the engine draws nothing, the search samples


def test_a_game_started_with_a_seed_says_its_draws_are_predictable(control: BareTable) -> None:
    client = TestClient(create_app(control))
    r = client.post("/api/games", json={"game": "offtherails", "seed": 12}, headers=HOST)
    assert r.status_code == 200, r.text
    game = client.get("/api/status").json()["game"]
    assert game["reproducible_seed"] is True and game["draws"] == DEMO_SEED
    assert "12" not in json.dumps(game)
    assert client.get("/api/games/1/record", headers=HOST).json()["seed"] == 12
    assert control.reader.secret(1) is None


def _plug_pulled_before_the_draws(log: EventLog, game: LiveGame) -> State:
    """Off the Rails: the first move on disk, then the service killed before its draws."""
    state = game.opened().state
    assert state is not None
    state.apply({"type": "choose_side", "side": "north"})
    log.append(game.opened().record.id, [action_entry(0, state.history[-1])])
    assert state.current_player == CHANCE
    return state


def _drawn(deck: Any, state: State) -> list[Action]:
    draws = []
    while state.current_player == CHANCE:
        draws.append(deck(state))
        state.apply(draws[-1])
    return draws


def test_a_restart_draws_what_the_secret_says(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    game = LiveGame(log)
    game.start("offtherails", {"players": 2})
    state = _plug_pulled_before_the_draws(log, game)
    expected = _drawn(game.opened().deck, state.fork(history=True))
    again = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    assert again.resume()
    assert isinstance(again.opened().deck, SecretDeck) and again.opened().deck == game.opened().deck
    assert again.opened().state.history[-len(expected) :] == expected and len(expected) > 1
    logged = moves(again.log.events(game.open.record.id))  # type: ignore[union-attr]
    assert [m.action for m in logged[-len(expected) :]] == [a.to_json() for a in expected]


def test_kills_at_random_points_of_a_secret_game_lose_nothing(tmp_path: Path) -> None:
    report = run(4, tmp_path, seed=None, steps=200, rng_seed=11)
    assert report.restarts == 4 and report.lost == 0 and report.mismatches == 0
    assert report.steps_in_log >= report.acknowledged > 0


OLD_SCHEMA = """
CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    seed INTEGER NOT NULL, started_at REAL NOT NULL, ended_at REAL, scores TEXT);
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id), at REAL NOT NULL, seat INTEGER,
    kind TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX events_by_game ON events(game_id, id);
"""


def test_an_older_log_with_only_a_seed_is_migrated_and_draws_as_before(tmp_path: Path) -> None:
    made = LiveGame(EventLog(tmp_path / "new.sqlite3"))  # the rows the old code wrote
    made.start("offtherails", {"players": 2}, seed=7)
    state = _plug_pulled_before_the_draws(made.log, made)
    expected = _drawn(SeededDeck(7), state.fork(history=True))
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO games VALUES (1, 'offtherails', '{\"players\": 2}', 7, 1.0, NULL,"
                   " NULL)")  # fmt: skip
        for e in made.log.events(1):
            db.execute("INSERT INTO events VALUES (?, 1, ?, ?, ?, ?)",
                       (e.id, e.at, e.seat, e.kind.value, json.dumps(e.data)))  # fmt: skip
    again = LiveGame(EventLog(old))
    assert again.resume() and again.open is not None and again.open.record.seed == 7
    assert again.opened().deck == SeededDeck(7)
    assert again.opened().state.history[-len(expected) :] == expected
    with sqlite3.connect(old) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)
        seed = [c for c in db.execute("PRAGMA table_info(games)") if c[1] == "seed"]
        assert seed[0][3] == 0  # may be NULL now
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    again.start("offtherails", {"players": 2})  # the migrated log takes a secret game
    assert again.open.record.seed is None and again.log.secret(again.open.record.id) is not None


def test_a_finished_games_record_replays_and_its_draws_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli import main

    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    game.start("trickoftherails", {"players": 3})
    assert game.open is not None
    game_id = game.open.record.id
    game.end()
    record = game.log.record_json(game_id)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["rules", "replay", str(path)]) == 0
    capsys.readouterr()
    draws = [n for n, m in enumerate(record["actions"]) if m["seat"] == CHANCE]
    first, second = draws[0], next(n for n in draws if record["actions"][n]["action"]
                                    != record["actions"][draws[0]]["action"])  # fmt: skip
    swapped = json.loads(json.dumps(record))
    swapped["actions"][first], swapped["actions"][second] = (
        record["actions"][second],
        record["actions"][first],
    )
    path.write_text(json.dumps(swapped))
    assert main(["rules", "replay", str(path)]) == 1
    assert "not the draw the game's secret gives" in capsys.readouterr().out


# ---- refusals: the host acting for a seat hears no hand


def _digital_trick(tmp_path: Path) -> tuple[LiveGame, int, str]:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    state = game.start("trickoftherails", {"players": 3})
    seat = state.current_player
    assert seat is not None and seat >= 0
    held = set(state.view(seat)["hand"])
    elsewhere = next(
        c for s in range(3) if s != seat for c in state.view(s)["hand"] if c not in held
    )
    return game, seat, elsewhere


def test_a_refusal_to_the_host_says_only_that_the_move_is_not_legal(tmp_path: Path) -> None:
    game, seat, card = _digital_trick(tmp_path)
    with pytest.raises(Refused) as host:
        game.act(Asker.host(), {"type": "play", "card": card})
    # named as the players know the seat (no name given yet: "Player N", counted from 1)
    assert str(host.value) == f"not a legal move for Player {seat + 1} now"
    assert card not in str(host.value) and "hold" not in str(host.value)
    with pytest.raises(Refused) as own:
        game.act(Asker.at(seat), {"type": "play", "card": card})
    assert f"does not hold {card}" in str(own.value)  # the seat's own phone: the reason


def test_a_refusal_in_a_game_that_hides_nothing_keeps_its_reason(tmp_path: Path) -> None:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    game.start("offtherails", {"players": 2})
    game.act(Asker.at(0), {"type": "choose_side", "side": "north"})
    wrong = {"type": "place_tile", "square": "D9", "exits": "NS"}
    with pytest.raises(Refused) as host:
        game.act(Asker.host(), wrong)
    assert "centre square of a mine" in str(host.value)  # nothing hidden: the host hears why


def test_game_events_kinds_hold_no_secret_column(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    game_id, event = log.start_game("derailed", {"players": 2}, None, SECRET)
    assert event.kind is EventKind.START and "secret" not in json.dumps(event.to_json())
    assert SECRET.hex() not in repr(log.game(game_id))
    with pytest.raises(ValueError, match="one of them"):
        log.start_game("derailed", {"players": 2}, 3, SECRET)


def test_the_log_that_holds_the_secrets_is_the_service_users_alone(tmp_path: Path) -> None:
    path = tmp_path / "railtable.sqlite3"
    sqlite3.connect(path).close()  # made by someone else, readable by all
    path.chmod(0o644)
    game = LiveGame(EventLog(path))
    game.start("derailed", {"players": 2})
    for name in (path, Path(f"{path}-wal")):
        assert name.stat().st_mode & 0o777 == 0o600, name
