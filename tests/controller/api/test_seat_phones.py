"""Which phone holds a seat (issue 39, point 6): a second phone opening the same seat's link is
told whose phone holds it and is a spectator until it takes the seat over; then the first phone
is refused as that seat, reads as a spectator, and its live stream ends."""

from __future__ import annotations

import asyncio

from fastapi.testclient import TestClient

from controller.api.deps import TAKEN
from controller.api.phones import SeatPhones
from controller.game.owner import Subscriber
from tests.support.api import HOST, start_game

ANN = "a" * 16  # the first phone's own id
BOB = "b" * 16  # the second phone's


def _ann_at_seat_0(client: TestClient) -> str:
    start_game(client, players=2)
    named = client.post("/api/seats/0/player", json={"name": "Ann"}, headers=HOST)
    assert named.status_code == 200, named.text
    r = client.post("/api/seats/0/token", headers=HOST)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def _claim(client: TestClient, token: str, phone: str, take_over: bool = False) -> dict:  # type: ignore[type-arg]
    r = client.post(
        "/api/seats/claim",
        json={"take_over": take_over},
        headers={"X-Seat-Token": token, "X-Phone": phone},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _as(token: str, phone: str) -> dict[str, str]:
    return {"X-Seat-Token": token, "X-Phone": phone}


def test_a_second_phone_is_told_whose_the_seat_is_and_watches_until_it_takes_it_over(
    client: TestClient,
) -> None:
    token = _ann_at_seat_0(client)
    assert _claim(client, token, ANN) == {"seat": 0, "held": True, "took_over": False}
    assert _claim(client, token, ANN)["held"]  # a reload of the same phone: still its seat

    assert _claim(client, token, BOB) == {"seat": 0, "held": False, "by": "Ann"}
    renamed = client.post("/api/seats/0/player", json={"name": "Bob"}, headers=_as(token, BOB))
    assert renamed.status_code == 403 and renamed.json()["detail"] == TAKEN
    status = client.get("/api/status", headers=_as(token, BOB))
    assert status.status_code == 403 and status.json()["detail"] == TAKEN
    by_cookie = client.get(
        "/api/status", cookies={"railtable_seat": token, "railtable_phone": BOB}
    )  # a stream's way: it reads as a spectator
    assert by_cookie.json()["you"] == {"role": "spectator", "seat": None}
    mine = client.get("/api/status", headers=_as(token, ANN))
    assert mine.json()["you"] == {"role": "seat", "seat": 0}
    players = client.get("/api/status").json()["game"]["seats"]
    assert players[0]["name"] == "Ann"  # the first phone's player was not renamed


def test_a_phone_that_takes_the_seat_over_leaves_the_first_one_watching(
    client: TestClient,
) -> None:
    token = _ann_at_seat_0(client)
    _claim(client, token, ANN)
    assert _claim(client, token, BOB, take_over=True) == {
        "seat": 0,
        "held": True,
        "took_over": True,
    }
    first = client.get("/api/status", headers=_as(token, ANN))
    assert first.status_code == 403 and first.json()["detail"] == TAKEN
    by_cookie = client.get("/api/status", cookies={"railtable_seat": token, "railtable_phone": ANN})
    assert by_cookie.json()["you"]["role"] == "spectator"
    second = client.get("/api/status", headers=_as(token, BOB))
    assert second.json()["you"] == {"role": "seat", "seat": 0}
    assert _claim(client, token, ANN) == {"seat": 0, "held": False, "by": "Ann"}


def test_a_request_naming_no_phone_is_the_seats_as_before_and_bad_claims_are_refused(
    client: TestClient,
) -> None:
    token = _ann_at_seat_0(client)
    _claim(client, token, ANN)
    plain = client.get("/api/status", headers={"X-Seat-Token": token})  # an API client
    assert plain.json()["you"] == {"role": "seat", "seat": 0}
    bad_id = client.post(
        "/api/seats/claim", json={}, headers={"X-Seat-Token": token, "X-Phone": "no"}
    )
    assert bad_id.status_code == 422
    unknown = client.post(
        "/api/seats/claim", json={}, headers={"X-Seat-Token": "nothing", "X-Phone": BOB}
    )
    assert unknown.status_code == 403
    start_game(client, players=2)  # a new game: the old link is for an earlier game
    stale = client.post("/api/seats/claim", json={}, headers=_as(token, BOB))
    assert stale.status_code == 403 and "earlier game" in stale.json()["detail"]


def test_the_first_phones_stream_ends_when_another_phone_takes_its_seat() -> None:
    async def run() -> list[object]:
        loop = asyncio.get_running_loop()
        phones = SeatPhones()
        ann, bob, other_seat = Subscriber(loop), Subscriber(loop), Subscriber(loop)
        phones.hold(1, 0, ANN)
        phones.watch(1, 0, ANN, ann)
        phones.watch(1, 1, ANN, other_seat)
        phones.hold(1, 0, ANN)  # the same phone again: nothing ends
        await asyncio.sleep(0)
        assert ann.queue.empty()
        phones.hold(1, 0, BOB)
        phones.watch(1, 0, BOB, bob)
        got = await asyncio.wait_for(ann.queue.get(), 1)
        await asyncio.sleep(0)
        assert bob.queue.empty() and other_seat.queue.empty()
        phones.unwatch(1, 0, ann)
        phones.unwatch(1, 0, bob)
        assert phones.holder(1, 0) == BOB and phones.may(1, 0, None)
        return [got]

    assert asyncio.run(run()) == [None]  # None: the stream ends, the page asks who it is
