"""The venue's topics and payloads: the contract between tables and venue pages (docs/venue.md).

Pure functions, no network: what a table says about itself is built here from what the phone
page shows a spectator (the owner's snapshot and `privacy.event_for` as a spectator), so nothing
a spectator may not see ever leaves the Pi.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.game.access import Asker
from controller.game.privacy import event_for, verdict_for
from controller.game.snapshot import GameSnapshot
from controller.game.store import Event, EventKind
from controller.words.book import Book, game_title
from controller.words.language import Language, Tongue, tongue
from controller.words.verdicts import said
from rules.core import State
from rules.registry import GAMES, game_named

VERSION = 1
ROOT = "railtable"
JsonDict = dict[str, Any]


class Leaf(StrEnum):
    """The topics under one table's own topic."""

    STATE = "state"  # retained: the table as it stands now
    ONLINE = "online"  # retained: online or not (the last will says "not")
    EVENTS = "events"  # QoS 1: each log row as a spectator sees it, once per id
    RESEND = "resend"  # written by the venue: "publish again after row N"
    DOCTOR = "doctor"  # `railtable doctor` tries a write here; the venue ignores it


PUBLISHED = (Leaf.STATE, Leaf.ONLINE, Leaf.EVENTS)  # what a venue page subscribes to


def table_topic(venue: str, table: str, leaf: Leaf) -> str:
    """`railtable/<venue>/tables/<table>/<leaf>`."""
    return f"{ROOT}/{venue}/tables/{table}/{leaf.value}"


def venue_filter(venue: str, leaf: Leaf) -> str:
    """Every table's `leaf` at the venue: `railtable/<venue>/tables/+/<leaf>`."""
    return f"{ROOT}/{venue}/tables/+/{leaf.value}"


@dataclass(frozen=True)
class TopicName:
    """A table topic taken apart."""

    venue: str
    table: str
    leaf: Leaf


def parse_topic(topic: str) -> TopicName | None:
    """The venue, table and leaf of a table topic; None for any other topic."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "tables":
        return None
    try:
        leaf = Leaf(parts[4])
    except ValueError:
        return None
    return TopicName(parts[1], parts[3], leaf)


def seats(players: int) -> list[JsonDict]:
    """The players as a venue shows them. The table knows seats, not people, so far: a name of
    None means "seat N at this table" (the venue names them so, or from a tournament's
    seating); a colour of None means none was chosen."""
    return [{"seat": seat, "name": None, "colour": None} for seat in range(players)]


HELP_VERDICTS = ("alert", "needs_input", "take_back")  # a verdict a person must answer
HELP_INPUTS = ("disconnected", "failed", "lost", "uncalibrated")


def table_state(
    snapshot: GameSnapshot, status: JsonDict, *, venue: str, table: str, at: float
) -> JsonDict:
    """The retained state: the game, whose turn, scores, health and what needs a person, as a
    spectator may see it (the verdict's words are the spectator's)."""
    game: JsonDict | None = None
    if snapshot.game_id is not None:
        game = {
            "id": snapshot.game_id,
            "name": snapshot.game,
            "title": snapshot.title,
            "players": seats(snapshot.players),
            "current_player": snapshot.current_player,
            "scores": None if snapshot.scores is None else list(snapshot.scores),
            "is_over": snapshot.is_over,
        }
    health = {
        "camera": _state_of(status.get("camera")),
        "board": _state_of(status.get("board")),
        "store": "ok" if snapshot.store_problem is None else "failing",
    }
    alert: JsonDict | None = None
    if snapshot.verdict_kind in HELP_VERDICTS:
        alert = {"kind": snapshot.verdict_kind, "text": snapshot.verdict_text or ""}
        if snapshot.verdict_public is not None:  # the spectator's verdict, to say it again
            alert["verdict"] = snapshot.verdict_public
    return {
        "v": VERSION,
        "venue": venue,
        "table": table,
        "at": at,
        "game": game,
        "health": health,
        "alert": alert,
        "help": help_reasons(health, alert),
    }


def _state_of(health: Any) -> str:
    if isinstance(health, dict):
        return str(health.get("state", "unknown"))
    return "unknown"


def help_reasons(
    health: JsonDict, alert: JsonDict | None, say: Tongue | None = None, game: str | None = None
) -> list[str]:
    """Why a person should go to the table, in words (empty: all is well), in `say`'s language
    (English by default: what the table publishes); the alert's own line said again in that
    language from the spectator's verdict where the table sent it."""
    say = say or tongue()
    reasons = []
    if alert is not None and alert.get("kind") in HELP_VERDICTS:
        text = str(alert.get("text", ""))
        verdict = alert.get("verdict")
        if isinstance(verdict, dict) and say.language is not Language.EN:
            text = str(said(verdict, _book(game, say.language))["text"])
        why = {
            "alert": say.tr("a change on the table is not a legal move: {text}", text=text),
            "needs_input": say.tr("the table asks a person what it cannot see: {text}", text=text),
            "take_back": say.tr("the table offers to take moves back: {text}", text=text),
        }
        reasons.append(why[str(alert["kind"])])
    if health.get("store", "ok") != "ok":
        reasons.append(say.tr("the table cannot write its event log"))
    for part in ("camera", "board"):
        state = health.get(part)
        if state in HELP_INPUTS:
            reasons.append(_input_trouble(say, part, str(state)))
    return reasons


def _input_trouble(say: Tongue, part: str, state: str) -> str:
    lines = {
        ("camera", "disconnected"): say.tr("the camera is disconnected"),
        ("camera", "failed"): say.tr("the camera has failed"),
        ("camera", "lost"): say.tr("the camera has lost its view of the mat"),
        ("camera", "uncalibrated"): say.tr("the camera is not calibrated"),
        ("board", "disconnected"): say.tr("the sensor board is disconnected"),
        ("board", "failed"): say.tr("the sensor board has failed"),
        ("board", "lost"): say.tr("the sensor board is lost"),
        ("board", "uncalibrated"): say.tr("the sensor board is not calibrated"),
    }
    return lines.get((part, state), f"{part}: {state}")


def _book(game: str | None, language: Language = Language.EN, plain: bool = False) -> Book:
    book = Book.of(game_named(game) if game is not None and game in GAMES else None, plain=plain)
    return book.speaking(language)


def event_payload(
    event: Event,
    *,
    prev: int,
    table: str,
    game: str | None,
    viewer: State | None,
    players: int,
    sent: float,
) -> JsonDict:
    """One log row as a spectator sees it (`privacy.event_for`), with `prev` (the row published
    before it: a gap shows the venue what it missed) and `sent` (when it went to the broker)."""
    seen = event_for(event, game, viewer, Asker.spectator())
    data = seen["data"]
    if event.kind in (EventKind.ALERT, EventKind.INSTRUCTION):
        data = verdict_for(data, Asker.spectator())  # a verdict too: the spectator's words
    book = _book(game, plain=True)
    if event.kind in (EventKind.VERDICT, EventKind.ALERT, EventKind.INSTRUCTION):
        data = said(data, book)
    elif event.kind is EventKind.ACTION and isinstance(data.get("action"), dict):
        data = {**data, "text": book.seen_action(data["action"])}
    out: JsonDict = {
        "v": VERSION,
        "table": table,
        "id": event.id,
        "prev": prev,
        "game_id": event.game_id,
        "game": game,
        "at": event.at,
        "sent": sent,
        "seat": event.seat,
        "kind": event.kind.value,
        "data": data,
    }
    if event.kind in (EventKind.START, EventKind.END):
        out["players"] = seats(players)
    return out


def online_payload(online: bool, at: float) -> JsonDict:
    return {"v": VERSION, "online": online, "at": at}


def event_words(payload: JsonDict, say: Tongue | None = None) -> str:
    """A published event in a few words, for the venue page's ticker, in `say`'s language (a
    move and a verdict said again from their data; English by default)."""
    say = say or tongue()
    kind, data = payload.get("kind"), payload.get("data") or {}
    game = payload.get("game")
    game = str(game) if game is not None else None
    if kind == EventKind.START.value:
        info = GAMES.get(str(game))
        title = game_title(info, say.language) if info else game
        return say.tr("a game of {title} began", title=title)
    if kind == EventKind.END.value:
        scores = ", ".join(f"{s:g}" for s in data.get("scores", []))
        return say.tr("game over ({scores})", scores=scores)
    if kind == EventKind.UNDO.value:
        count = int(data.get("count", 1))
        return say.ntr("{count} move taken back", "{count} moves taken back", count)
    if not isinstance(data, dict):
        return str(kind)
    verdicts = (EventKind.VERDICT.value, EventKind.ALERT.value, EventKind.INSTRUCTION.value)
    try:  # said again from the row's data; a row the venue cannot read keeps the table's words
        if kind == EventKind.ACTION.value and isinstance(data.get("action"), dict):
            return _book(game, say.language).seen_action(data["action"])
        if kind in verdicts and "reason" in data:
            return str(said(data, _book(game, say.language))["text"])
    except (KeyError, TypeError, ValueError):
        pass
    return str(data.get("text") or kind)
