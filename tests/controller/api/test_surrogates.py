"""No 500 on any input (issue 37): lone surrogates (`\\ud800`, which JSON may carry but UTF-8
cannot) in every path parameter, query parameter and string of a JSON body of every route the API
describes, as the host, the current seat and a spectator, against a real uvicorn; each answer is
a 4xx or 2xx and the same connection serves the next request."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.api import limits
from controller.api.app import create_app
from controller.api.limits import Rate
from tests.support.api import HOST, BareTable
from tests.support.serving import serving

LONE = "\ud800"
LONE_IN_URL = "%ED%A0%80"  # its bytes as a lenient encoder writes them: not UTF-8
GAME = {"game": "trickoftherails", "options": {"players": 3}}
SAMPLES: dict[str, dict[str, Any]] = {  # a valid body of each model whose strings matter
    "StartRequest": GAME,
    "PlayerRequest": {"name": "Ann", "colour": "pink"},
    "ComputerRequest": {"level": "easy"},
}


class Connection:
    """One keep-alive HTTP/1.1 connection, read and written by hand."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""

    def ask(
        self, method: str, target: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, dict[str, str], bytes]:
        lines = [f"{method} {target} HTTP/1.1", "Host: table", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        if body:
            lines.append("Content-Type: application/json")
        self.sock.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + body)
        head = self._until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        fields = {k.lower(): v.strip() for k, v in (h.split(":", 1) for h in head[1:] if h)}
        if "content-length" in fields:
            content = self._take(int(fields["content-length"]))
        elif fields.get("transfer-encoding") == "chunked":
            content = self._until(b"0\r\n\r\n")
        else:
            content = b""
        return status, fields, content

    def _until(self, end: bytes) -> bytes:
        while end not in self.buffer:
            self._more()
        found, self.buffer = self.buffer.split(end, 1)
        return found

    def _take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self._more()
        found, self.buffer = self.buffer[:count], self.buffer[count:]
        return found

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        found: dict[str, Any] = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        return found
    return schema


def _filled(spec: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A value of `schema` with a lone surrogate for every string (and every free key)."""
    schema = _resolve(spec, schema)
    if "anyOf" in schema:
        return _filled(spec, next(s for s in schema["anyOf"] if s.get("type") != "null"))
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        return {name: _filled(spec, s) for name, s in schema["properties"].items()}
    if kind == "object":
        return {LONE: LONE}
    if kind == "array":
        return [LONE]
    return {"string": LONE, "integer": 0, "number": 0, "boolean": True}.get(str(kind), LONE)


def _surrogated(value: Any) -> Iterator[Any]:
    """`value` with one string (a value or a key) a lone surrogate at a time, and with a key
    more that is one."""
    if isinstance(value, str):
        yield LONE
    elif isinstance(value, dict):
        yield {**value, LONE: LONE}
        for key, item in value.items():
            yield {(LONE if k == key else k): v for k, v in value.items()}
            for changed in _surrogated(item):
                yield {**value, key: changed}
    elif isinstance(value, list):
        for n, item in enumerate(value):
            for changed in _surrogated(item):
                yield [*value[:n], changed, *value[n + 1 :]]


def _bodies(spec: dict[str, Any], schema: dict[str, Any], actions: list[Any]) -> list[Any]:
    name = schema.get("$ref", "").rsplit("/", 1)[-1]
    bodies = [_filled(spec, schema)]
    samples = [{"action": a} for a in actions] if name == "ActionRequest" else []
    samples += [SAMPLES[name]] if name in SAMPLES else []
    for sample in samples:
        bodies += list(_surrogated(sample))
    return bodies


def _requests(spec: dict[str, Any], actions: list[Any]) -> Iterator[tuple[str, str, bytes]]:
    """(method, target, body) for every operation, a lone surrogate somewhere in each."""
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            params = [p for p in op.get("parameters", []) if p["in"] in ("path", "query")]
            filled = path
            for p in params:
                if p["in"] == "path":
                    filled = filled.replace("{" + p["name"] + "}", "0")
            for p in params:
                if p["in"] == "path":
                    yield method, path.replace("{" + p["name"] + "}", LONE_IN_URL), b""
                    yield method, filled.replace("/0", f"/0{LONE_IN_URL}", 1), b""
                else:
                    yield method, f"{filled}?{p['name']}={LONE_IN_URL}", b""
            schema = op.get("requestBody", {}).get("content", {}).get("application/json")
            if schema is not None:
                for body in _bodies(spec, schema["schema"], actions):
                    yield method, filled, json.dumps(body).encode()  # "\ud800" as JSON escapes


def _game(conn: Connection, control: BareTable) -> dict[str, str]:
    """A new game of Trick of the Rails, every seat a person's; the current seat's token."""
    conn.ask("POST", "/api/games/current/end", HOST)
    code, _, _ = conn.ask("POST", "/api/games", HOST, json.dumps(GAME).encode())
    assert code == 200
    for seat in range(3):
        conn.ask("POST", f"/api/seats/{seat}/computer", HOST, b'{"level": null}')
    turn = control.owner.call_sync(lambda g: g.open.state.current_player if g.open else 0)
    code, _, token = conn.ask("POST", f"/api/seats/{max(turn or 0, 0)}/token", HOST)
    assert code == 200, token
    return {"X-Seat-Token": json.loads(token)["token"]}


def test_lone_surrogates_anywhere_get_no_500_and_the_connection_serves_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unlimited = Rate(per_s=1e6, burst=1e6)  # every request reaches the route
    for name in ("SEAT_WRITES", "SPECTATOR_WRITES", "HOST_WRITES"):
        monkeypatch.setattr(limits, name, unlimited)
    control = BareTable(tmp_path / "log.sqlite3")
    spec = create_app(control).openapi()
    answered: dict[int, int] = {}
    with serving(control) as url:
        conn = Connection(int(url.rsplit(":", 1)[1]))
        seat = _game(conn, control)
        actions = control.owner.call_sync(
            lambda g: [a.to_json() for a in g.open.state.legal_actions()] if g.open else []
        )
        actions.append({"type": "play", "card": "bo-3"})  # issue 37's: a card's name quoted back
        for method, target, body in _requests(spec, actions):
            for who in (HOST, seat, {}):
                code, fields, content = conn.ask(method.upper(), target, who, body)
                answered[code] = answered.get(code, 0) + 1
                assert code < 500 or code == 503, (method, target, body, who, code, content)
                assert fields.get("connection") != "close", (method, target, body, code)
                code, _, _ = conn.ask("GET", "/api/status", {})
                assert code == 200, (method, target, body, who)
            seat = _game(conn, control)
    assert sum(answered.values()) > 200, answered
