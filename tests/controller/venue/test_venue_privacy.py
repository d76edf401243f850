"""Nothing private leaves the table: every message the broker carries, checked as the phone
page's spectator view is checked (no hand, no hidden split, no seed; a question's options stay
with its seat)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.game.live import LiveGame
from controller.game.store import Event, EventKind
from controller.referee.verdict import VerdictKind
from controller.venue.broker import Mosquitto
from controller.venue.contract import PUBLISHED, event_payload, venue_filter
from controller.venue.table import PlayingTable
from rules.core import State
from tests.controller.venue.venue_testkit import PASSWORDS, VENUE, settings
from tests.support.waiting import wait_until

SEED = 918_273_645  # distinctive: found in a message, it is the seed


def _strings(data: Any) -> set[str]:
    if isinstance(data, dict):
        return {k for k in data} | {s for v in data.values() for s in _strings(v)}
    if isinstance(data, list):
        return {s for v in data for s in _strings(v)}
    return {data} if isinstance(data, str) else set()


def _private(state: State | None) -> set[str]:
    """What some seat holds that no spectator has seen: its hand, a hidden split."""
    if state is None:
        return set()
    players = int(state.options.get("players", 0))
    public = _strings(state.view(None)) | _strings(state.history_view(None))
    mine = set().union(*(_strings(state.view(seat)) for seat in range(players)))
    return mine - public


def _collector(broker: Mosquitto, got: list[tuple[str, dict[str, Any]]]) -> paho.Client:
    client = paho.Client(
        CallbackAPIVersion.VERSION2, client_id="test-spy", protocol=MQTTProtocolVersion.MQTTv5
    )
    client.username_pw_set("venue", PASSWORDS["venue"])
    client.on_message = lambda _c, _u, m: got.append((m.topic, json.loads(m.payload)))
    client.connect("127.0.0.1", broker.port)
    client.subscribe([(venue_filter(VENUE, leaf), 1) for leaf in PUBLISHED])
    client.loop_start()
    return client


@pytest.mark.parametrize(("game", "moves"), [("trickoftherails", 70), ("derailed", 60)])
def test_no_message_holds_a_hand_or_the_seed(
    broker: Mosquitto, tmp_path: Path, game: str, moves: int
) -> None:
    got: list[tuple[str, dict[str, Any]]] = []
    spy = _collector(broker, got)
    table = PlayingTable(tmp_path / game, settings(broker, "table-1"), game, 3, SEED - 1)
    table.start()
    private_after: list[tuple[int, set[str]]] = []

    def note(live: LiveGame) -> None:
        private_after.append((live.log.last_id(), _private(live.opened().state)))

    try:
        table.owner.call_sync(note)
        for _ in range(moves):
            table.move()
            table.owner.call_sync(note)
        rows = table.rows()
        wait_until(
            lambda: {p["id"] for t, p in got if t.endswith("/events")} >= set(rows),
            what="every row published",
        )
    finally:
        table.stop()
        spy.loop_stop()
        spy.disconnect()
    assert any(secret for _, secret in private_after), "the game dealt nobody a secret"
    for topic, payload in got:
        text = json.dumps(payload)
        assert str(SEED) not in text and "seed" not in _strings(payload), topic
        if topic.endswith("/events"):
            held = next(s for row, s in private_after if row >= payload["id"])
            leaked = held & _strings(payload)
            assert not leaked, (payload["id"], payload["kind"], sorted(leaked))
        else:
            leaked = private_after[-1][1] & _strings(payload)
            assert not leaked, (topic, sorted(leaked))
    states = [p for t, p in got if t.endswith("/state")]
    assert states and all(
        set(p) == {"v", "venue", "table", "at", "game", "health", "alert", "help", "from",
                   "published_to"}
        for p in states
    )  # fmt: skip


def test_a_hidden_question_and_a_draw_are_published_as_a_spectator_sees_them() -> None:
    hidden = {
        "kind": VerdictKind.CHOICE.value,
        "text": "seat 1: which jewels go where?",
        "seat": 1,
        "hidden": True,
        "options": [{"actions": [{"type": "split", "left": ["ruby"]}], "text": "ruby left"}],
        "actions": [{"type": "draw", "card": "ruby-3", "chance": True}],
    }
    for kind in (EventKind.VERDICT, EventKind.ALERT, EventKind.INSTRUCTION):
        out = event_payload(
            Event(7, 1, 0.0, 1, kind, hidden),
            prev=6, table="t", game="minewagons", viewer=None, players=2, sent=0.0,
        )  # fmt: skip
        assert out["data"]["options"] == [] and out["data"]["actions"] == []
        assert "ruby" not in json.dumps(out["data"]), kind
        assert out["data"]["text"] == "seat 1 makes a hidden choice on their own phone"
