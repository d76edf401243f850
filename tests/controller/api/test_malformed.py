"""Malformed requests (issue 22): every header and body is checked before code that can raise,
ids are bounded, and the answer is a 4xx naming the problem in one short line, never a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.api.models import MAX_DETAIL
from rules.registry import GAMES
from tests.support.api import HOST, api_client, start_game

pytestmark = pytest.mark.xdist_group("malformed")  # the module on one worker: its fixtures once
JSON = {"Content-Type": "application/json", **HOST}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with api_client(tmp_path_factory.mktemp("log"), raise_server_exceptions=False) as client:
        start_game(client)
        yield client


def _one_short_line(r: Any) -> None:
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and len(detail) <= MAX_DETAIL, detail


NESTED = b"[" * 900 + b"]" * 900
OTR = b'{"game": "offtherails", "options": {"players": '


@pytest.mark.parametrize(
    ("method", "path", "body", "headers"),
    [
        ("POST", "/api/actions", b"{", JSON),
        ("POST", "/api/actions", b"\xff\xfe", JSON),
        ("POST", "/api/actions", b"[" * 30000 + b"]" * 30000, JSON),  # too deep for json
        ("POST", "/api/actions", b'{"action": ' + NESTED + b"}", JSON),
        ("POST", "/api/actions", b'{"action": {"type": ' + NESTED + b"}}", JSON),
        ("POST", "/api/actions", b'{"action": {"type": "\\ud800"}}', JSON),
        ("POST", "/api/actions", b'{"action": {}}', {"Content-Type": "text/plain", **HOST}),
        ("POST", "/api/games", OTR + NESTED + b"}}", JSON),
        ("POST", "/api/games", b'{"game": "' + b"x" * 5000 + b'"}', JSON),
        ("POST", "/api/games", OTR + b"1e400}}", JSON),
        ("POST", "/api/games", OTR + b"NaN}}", JSON),
        ("POST", "/api/games", OTR + b"1" + b"0" * 40 + b"}}", JSON),
        ("POST", "/api/games", b'{"game": "derailed", "options": {"card_file": "\\u0000"}}', JSON),
        ("POST", "/api/undo", b'{"count": 1e400}', JSON),
        ("POST", "/api/answer", b'{"option": 1' + b"0" * 30 + b"}", JSON),
        ("GET", "/api/events?after=1e3", b"", {}),
        ("GET", "/api/events?game=-1", b"", {}),
        ("GET", "/api/events?after=" + "9" * 40, b"", {}),
        ("GET", "/api/games/1%00/replay", b"", {}),
        ("GET", "/api/games/" + "9" * 5000 + "/replay", b"", {}),
        ("GET", "/api/games/1/replay?step=-1", b"", {}),
        ("GET", "/api/games/%ff/look", b"", {}),
        ("GET", "/api/seats/99/qr", b"", HOST),
        ("GET", "/api/status", b"", {"X-Table-Pin": "1" * 8000}),
        ("GET", "/api/status", b"", {"X-Seat-Token": "\xe9\xff"}),
        ("GET", "/api/stream", b"", {"Last-Event-ID": "9" * 40}),
        ("GET", "/api/stream", b"", {"Last-Event-ID": "-1"}),
        ("GET", "/api/stream", b"", {"Last-Event-ID": "\xff"}),
    ],
)  # fmt: skip
def test_a_malformed_request_is_a_short_4xx(
    client: TestClient, method: str, path: str, body: bytes, headers: dict[str, str]
) -> None:
    encoded = {k: v.encode("latin-1") for k, v in headers.items()}
    _one_short_line(client.request(method, path, content=body, headers=encoded))


def test_odd_cookies_and_paths_are_no_crash(client: TestClient) -> None:
    r = client.get(
        "/api/status", headers={"Cookie": 'railtable_seat=\xe9; x="\\'.encode("latin-1")}
    )
    assert r.status_code == 200 and r.json()["you"]["role"] == "spectator"
    assert client.get("/static/%2e%2e/%2e%2e/config.py").status_code == 404


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
KEYS = st.sampled_from(["type", "square", "exits", "side", "seat", "card", "company", "players"])


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    game=st.sampled_from([*sorted(GAMES), "chess"]),
    options=st.dictionaries(KEYS | st.text(max_size=8), JSON_VALUES, max_size=4),
    action=st.dictionaries(KEYS | st.text(max_size=8), JSON_VALUES, max_size=4),
)
def test_any_json_for_a_game_or_an_action_is_answered_in_words(
    client: TestClient, game: str, options: dict[str, Any], action: dict[str, Any]
) -> None:
    r = client.post("/api/games", json={"game": game, "options": options}, headers=HOST)
    assert r.status_code < 500, r.text[:300]
    if r.status_code != 200:
        _one_short_line(r)
    r = client.post("/api/actions", json={"action": action}, headers=HOST)
    assert r.status_code < 500, r.text[:300]
    if r.status_code != 200:
        _one_short_line(r)
    for path in ("/api/status", "/api/state", "/api/table", "/api/choices"):
        assert client.get(path, headers=HOST).status_code < 500
    json.dumps(client.get("/api/verdict").json())
