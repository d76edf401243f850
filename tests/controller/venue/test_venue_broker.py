"""Tables and the venue through a real Mosquitto: every row once, reconnection, retained state,
the ACL (a table publishes under its own topic only)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.venue.broker import Mosquitto
from controller.venue.contract import Leaf, table_topic
from controller.venue.evening import Evening
from controller.venue.listener import VenueListener
from controller.venue.table import PlayingTable
from tests.controller.venue.venue_testkit import PASSWORDS, VENUE, settings
from tests.support.waiting import wait_until


def _venue(broker: Mosquitto, path: Path | str = ":memory:", cid: str = "") -> VenueListener:
    listener = VenueListener(settings(broker), Evening(path), client_id=cid or None).start()
    wait_until(listener.connected.is_set, what="the venue connects")
    return listener


def _caught_up(venue: VenueListener, table: PlayingTable) -> bool:
    line = venue.evening.tables.get(table.name)
    rows = table.rows()
    return line is not None and bool(rows) and line.seen >= set(rows) and line.upto == rows[-1]


def _counted(venue: VenueListener, rows: int) -> None:
    """The venue counted `rows` rows taken, no more: a row is seen (`_caught_up`) a moment
    before it is counted, on the listener's thread, once it is written to the venue's file."""
    wait_until(lambda: venue.evening.received >= rows, what=f"{rows} rows counted")
    assert venue.evening.received == rows


def test_every_row_reaches_the_venue_once_with_the_tables_state(
    broker: Mosquitto, tmp_path: Path
) -> None:
    venue = _venue(broker)
    table = PlayingTable(tmp_path / "t1", settings(broker, "table-1"), seed=3).start()
    try:
        for _ in range(25):
            table.move()
        wait_until(lambda: _caught_up(venue, table), what="every row at the venue")
        line = venue.evening.tables["table-1"]
        assert line.seen == set(table.rows()) and venue.evening.duplicates == 0
        wait_until(lambda: line.state is not None and line.state["published_to"] == line.upto)
        assert line.online is True
        game = line.state["game"]  # type: ignore[index]
        assert game["name"] == "offtherails" and len(game["players"]) == 3
        assert game["scores"] == list(table.owner.snapshot.scores or ())
    finally:
        table.stop()
        venue.stop()
    assert venue.evening.tables["table-1"].online is False  # said goodbye


def test_a_broker_killed_mid_game_loses_nothing_and_doubles_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    venue = _venue(broker)
    table = PlayingTable(tmp_path / "t1", settings(broker, "table-1"), seed=4).start()
    try:
        for _ in range(10):
            table.move()
        wait_until(lambda: _caught_up(venue, table), what="the first rows")
        broker.kill()
        for _ in range(15):  # the table plays on while the broker is away
            table.move()
        time.sleep(0.5)
        broker.start()
        for _ in range(5):
            table.move()
        wait_until(lambda: _caught_up(venue, table), 30, "every row after the broker's return")
        assert venue.evening.tables["table-1"].seen == set(table.rows())
        _counted(venue, len(table.rows()))  # each taken once
        assert table.publisher.health().state == "connected"
    finally:
        table.stop()
        venue.stop()


def test_a_restarted_venue_has_the_retained_state_and_asks_for_what_it_missed(
    broker: Mosquitto, tmp_path: Path
) -> None:
    first = _venue(broker, tmp_path / "venue.sqlite3")
    one = PlayingTable(tmp_path / "t1", settings(broker, "table-1"), seed=5).start()
    two = PlayingTable(tmp_path / "t2", settings(broker, "table-2"), seed=6).start()
    try:
        for _ in range(8):
            one.move()
            two.move()
        wait_until(lambda: _caught_up(first, one) and _caught_up(first, two))
        first.stop()
        two.stop()  # table 2 goes home: its last state stays retained, marked offline
        for _ in range(6):
            one.move()  # while the venue is down
        # The same venue again (its file and its session): what it held, then what it missed.
        again = _venue(broker, tmp_path / "venue.sqlite3")
        try:
            wait_until(lambda: _caught_up(again, one), what="the rows played while it was down")
            two_line = again.evening.tables["table-2"]
            assert two_line.online is False and two_line.state is not None
            assert two_line.seen == set(two.rows())
        finally:
            again.stop()
        # A new venue, nothing kept: the broker's retained messages at once, then every row
        # of table 1's evening, asked for again.
        fresh = _venue(broker, cid="railtable-venue-fresh")
        try:
            wait_until(lambda: {"table-1", "table-2"} <= set(fresh.evening.tables))
            wait_until(lambda: fresh.evening.tables["table-2"].state is not None)
            assert fresh.evening.tables["table-2"].state["game"]["name"] == "offtherails"  # type: ignore[index]
            # its retained offline mark comes on a topic of its own: after the state, or before
            wait_until(lambda: fresh.evening.tables["table-2"].online is not None)
            assert fresh.evening.tables["table-2"].online is False
            wait_until(lambda: _caught_up(fresh, one), 20, "table 1's evening, resent")
            _counted(fresh, len(one.rows()))  # each row taken once
        finally:
            fresh.stop()
    finally:
        one.stop()


def _client(user: str) -> paho.Client:
    client = paho.Client(
        CallbackAPIVersion.VERSION2, client_id=f"test-{user}", protocol=MQTTProtocolVersion.MQTTv5
    )
    client.username_pw_set(user, PASSWORDS[user])
    return client


def test_a_table_cannot_publish_under_another_tables_topic(
    broker: Mosquitto, tmp_path: Path
) -> None:
    venue = _venue(broker)
    intruder = _client("table-1")
    answers: dict[int, object] = {}
    intruder.on_publish = lambda _c, _u, mid, reason, _p: answers.__setitem__(mid, reason)
    intruder.connect("127.0.0.1", broker.port)
    intruder.loop_start()
    try:
        forged = {"v": 1, "id": 1, "prev": 0, "game_id": 1, "kind": "end", "game": "offtherails",
                  "data": {"scores": [99, 0]}}  # fmt: skip
        theirs = [
            intruder.publish(table_topic(VENUE, "table-2", leaf), json.dumps(forged), qos=1)
            for leaf in (Leaf.EVENTS, Leaf.STATE, Leaf.ONLINE)
        ]
        resend = intruder.publish(table_topic(VENUE, "table-2", Leaf.RESEND), "{}", qos=1)
        # its own state last: the broker hands the venue one client's messages in order, so
        # once the venue holds this one, it would hold any forged one let through before it
        mine = intruder.publish(table_topic(VENUE, "table-1", Leaf.STATE), "{}", qos=1, retain=True)
        wait_until(lambda: len(answers) == 5, what="the broker answers every publish")
        assert not answers[mine.mid].is_failure  # type: ignore[attr-defined]
        for info in (*theirs, resend):
            assert str(answers[info.mid]) == "Not authorized"
        wait_until(lambda: "table-1" in venue.evening.tables, what="the intruder's own state")
        assert "table-2" not in venue.evening.tables and not venue.evening.finished
    finally:
        intruder.loop_stop()
        intruder.disconnect()
    # A table configured with another's name is refused too, and says so in its health.
    posing = PlayingTable(tmp_path / "t", settings(broker, "table-2", user="table-1")).start()
    try:
        posing.move()
        wait_until(lambda: posing.publisher.health().state == "refused", what="refused")
        assert "ACL" in posing.publisher.health().detail
        assert posing.publisher.health().published_to == posing.publisher.origin
        assert "table-2" not in venue.evening.tables
    finally:
        posing.stop()
        venue.stop()


def test_a_wrong_password_is_refused_in_words(broker: Mosquitto, tmp_path: Path) -> None:
    wrong = settings(broker, "table-3")
    wrong = type(wrong)(wrong.broker, VENUE, "table-3", password="not-it")
    table = PlayingTable(tmp_path / "t3", wrong).start()
    try:
        wait_until(lambda: table.publisher.health().state == "refused")
        assert "Not authorized" in table.publisher.health().detail
    finally:
        table.stop()
