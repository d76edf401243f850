"""Writes a second (issue 37): a seat or a spectator flooding renames, actions, answers or hints
is answered 429 with Retry-After and logs nothing more; the host's limit is more generous; the
same name and colour again is not logged again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.api.app import create_app
from controller.api.limits import HOST_WRITES, MAX_WRITERS, NAME_WRITES, SEAT_WRITES, WriteLimits
from controller.game.access import Asker
from controller.game.store import EventKind
from tests.support.api import HOST, BareTable, seat_headers


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TestClient, BareTable, Clock]]:
    control = BareTable(tmp_path / "log.sqlite3")
    app = create_app(control)
    clock = Clock()
    app.state.write_limits = WriteLimits(clock, refused_after_s=0.0)
    client = TestClient(app)
    r = client.post(
        "/api/games", json={"game": "trickoftherails", "options": {"players": 3}}, headers=HOST
    )
    assert r.status_code == 200, r.text
    yield client, control, clock
    control.owner.stop()


def _player_rows(control: BareTable) -> int:
    return sum(1 for e in control.reader.events(None, 0, 10_000) if e.kind is EventKind.PLAYER)


def test_a_seat_renaming_itself_in_a_flood_is_held_to_its_rate_and_logs_nothing_more(
    table: tuple[TestClient, BareTable, Clock],
) -> None:
    client, control, clock = table
    seat = seat_headers(client, 0)
    before = _player_rows(control)
    codes = []
    for n in range(40):
        r = client.post("/api/seats/0/player", json={"name": f"Ann {n % 2}"}, headers=seat)
        codes.append(r.status_code)
        if r.status_code == 429:
            assert r.headers["Retry-After"] == "1" and "try again in 1 s" in r.json()["detail"]
    burst = int(NAME_WRITES.burst)  # names have a bucket of their own, below the seat's
    assert codes == [200] * burst + [429] * (40 - burst), codes
    assert _player_rows(control) - before == burst
    clock.now += 1.0  # a second later: its rate's worth again
    again = [
        client.post("/api/seats/0/player", json={"name": f"Bo {n}"}, headers=seat).status_code
        for n in range(10)
    ]
    assert again.count(200) == int(NAME_WRITES.per_s), again


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/actions", {"action": {"type": "play", "card": "nothing"}}),
        ("/api/answer", {"option": 0}),
        ("/api/hint", None),
        ("/api/seats/0/player", {"name": "Ann"}),
    ],
)
def test_every_write_of_a_seat_is_limited(
    table: tuple[TestClient, BareTable, Clock], path: str, body: dict[str, object] | None
) -> None:
    client, _, _ = table
    seat = seat_headers(client, 0)
    codes = [client.post(path, json=body, headers=seat).status_code for _ in range(12)]
    burst = int(NAME_WRITES.burst if path.endswith("/player") else SEAT_WRITES.burst)
    assert 429 not in codes[:burst] and codes[burst:] == [429] * (12 - burst), codes
    other = seat_headers(client, 1)  # another seat has its own bucket
    assert client.post(path, json=body, headers=other).status_code != 429


def test_a_spectators_writes_are_limited_by_its_address(
    table: tuple[TestClient, BareTable, Clock],
) -> None:
    client, _, _ = table
    body = {"action": {"type": "play", "card": "nothing"}}
    codes = [client.post("/api/actions", json=body).status_code for _ in range(12)]
    burst = int(SEAT_WRITES.burst)
    assert codes == [403] * burst + [429] * (12 - burst), codes


def test_the_host_has_a_more_generous_limit(table: tuple[TestClient, BareTable, Clock]) -> None:
    client, _, _ = table
    assert HOST_WRITES.burst > SEAT_WRITES.burst and HOST_WRITES.per_s > SEAT_WRITES.per_s
    names = [f"Host {n}" for n in range(int(HOST_WRITES.burst) + 5)]
    codes = [
        client.post("/api/seats/1/player", json={"name": n}, headers=HOST).status_code
        for n in names
    ]
    assert codes == [200] * int(HOST_WRITES.burst) + [429] * 5, codes


def test_the_same_name_and_colour_again_is_not_logged_again(
    table: tuple[TestClient, BareTable, Clock],
) -> None:
    client, control, clock = table
    seat = seat_headers(client, 0)
    body = {"name": "Ann", "colour": "pink"}
    first = client.post("/api/seats/0/player", json=body, headers=seat)
    rows = _player_rows(control)
    for again in (body, {"name": "Ann"}, {"name": " Ann ", "colour": "pink"}):
        r = client.post("/api/seats/0/player", json=again, headers=seat)
        assert r.status_code == 200 and r.json() == first.json()
    assert _player_rows(control) == rows
    player = control.owner.call_sync(lambda g: g.name_player(Asker.at(0), 0, "Ann", "pink"))
    assert player.name == "Ann" and _player_rows(control) == rows
    clock.now += 1.0  # the name's bucket: four names were asked for
    client.post("/api/seats/0/player", json={"name": "Ann B"}, headers=seat)
    assert _player_rows(control) == rows + 1


def test_a_flood_waits_for_its_refusals(table: tuple[TestClient, BareTable, Clock]) -> None:
    client, _, _ = table
    client.app.state.write_limits.refused_after_s = 0.2  # type: ignore[attr-defined]
    seat = seat_headers(client, 0)
    for n in range(int(SEAT_WRITES.burst)):
        client.post("/api/seats/0/player", json={"name": f"Ann {n}"}, headers=seat)
    started = time.monotonic()
    r = client.post("/api/seats/0/player", json={"name": "Ann"}, headers=seat)
    assert r.status_code == 429 and time.monotonic() - started >= 0.2


def test_the_write_limiter_forgets_and_stays_small() -> None:
    clock = Clock()
    limits = WriteLimits(clock)
    for n in range(3 * MAX_WRITERS):
        assert limits.take(("address", str(n)), SEAT_WRITES) == 0.0
        clock.now += 0.001
    assert len(limits.buckets) <= MAX_WRITERS
    for _ in range(int(SEAT_WRITES.burst)):
        limits.take(("seat", 0), SEAT_WRITES)
    assert limits.take(("seat", 0), SEAT_WRITES) == pytest.approx(1 / SEAT_WRITES.per_s)
