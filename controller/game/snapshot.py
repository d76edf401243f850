"""Immutable snapshots of the live game, built by its owner after each commit, read by anyone.

A snapshot holds, for every audience (the host, a spectator, each seat), exactly what it may see:
the state's view, the mat and its pieces, the referee's verdict, the choices it may make now. The
API reads the latest snapshot and never touches the live `State`, so a reader sees only committed
states, never one the referee is trying out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.game.access import Asker, Role
from controller.game.live import LiveGame
from controller.game.phrasing import Phrasebook
from controller.game.players import COLOURS, colour_choice
from controller.game.privacy import audience, audiences, verdict_for
from controller.referee.judge import Referee
from controller.referee.tables import piece_text
from controller.referee.verdict import VerdictKind
from controller.words.book import Book
from controller.words.language import Language, tongue
from controller.words.verdicts import said
from rules.core import Action, Decision, State, Visibility
from rules.game import Game
from rules.physical import Location
from rules.said import Say

JsonDict = dict[str, Any]
DEMO_SEED = "demo seed: draws are predictable"  # a game started with a seed (tests, demos)
SECRET_DRAWS = "drawn from the game's secret: no one can tell a draw before it is made"


@dataclass(frozen=True)
class GameSnapshot:
    """The live game as it stood after one commit; `row` is the last log row it includes."""

    version: int
    row: int
    game_id: int | None = None
    game: str | None = None
    title: str | None = None
    players: int = 0
    current_player: int | None = None
    scores: tuple[float, ...] | None = None
    is_over: bool = False
    verdict_kind: str | None = None
    verdict_text: str | None = None
    store_problem: str | None = None  # why the event log cannot be written now, if it cannot
    players_json: tuple[JsonDict, ...] = ()  # each seat's player: name, colour, computer
    colour_choice: bool = False  # players pick their colour (the game gives seats none)
    hints: bool = True  # seats may ask for a hint (the host switches it)
    finished: JsonDict | None = None  # the game that ended last, until another starts
    book: Phrasebook = field(default_factory=lambda: Phrasebook(Book(), ()))
    by_audience: Mapping[Asker, JsonDict] = field(default_factory=lambda: MappingProxyType({}))
    encoded: dict[Any, bytes] = field(default_factory=dict, compare=False, repr=False)
    # each audience's stream line (per language), made once for all its phones (api/stream.py)
    reproducible_seed: bool = False  # started with a seed: its draws are predictable (a demo)
    in_languages: dict[tuple[Asker, Language], JsonDict] = field(
        default_factory=dict, compare=False, repr=False
    )  # an audience's view in another language than English, made when a phone first asks
    # each seat's score parts said in each other language (made with the snapshot: the state
    # they are said from changes after it)
    parts_said: Mapping[Language, list[list[dict[str, Any]]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    # the last game's end screen in each language (`finished` is the English one)
    finished_said: Mapping[Language, JsonDict] = field(
        default_factory=dict, compare=False, repr=False
    )
    # the verdict as a spectator may see it (`verdict_text` says it in English)
    verdict_public: JsonDict | None = field(default=None, compare=False, repr=False)

    def finished_in(self, language: Language = Language.EN) -> JsonDict | None:
        """The last game's end screen said in `language` (None while a game is open)."""
        if self.finished is None:
            return None
        return self.finished_said.get(language, self.finished)

    def for_asker(self, who: Asker, language: Language = Language.EN) -> JsonDict:
        """What `who` may see: {"state", "table", "verdict", "choices"} (None where no game),
        its lines in `language`."""
        empty: JsonDict = {"state": None, "table": None, "verdict": None, "choices": []}
        seen = audience(who, self.players)
        view = self.by_audience.get(seen, empty)
        if language is Language.EN or view is empty:
            return view
        key = (seen, language)
        said = self.in_languages.get(key)
        if said is None:  # made on a reader's thread, at most twice if two ask at once
            said = self.book.speaking(language).view(view)
            parts = self.parts_said.get(language)
            if parts is not None and isinstance(said.get("state"), dict):
                said["state"] = {**said["state"], "score_parts": parts}
            self.in_languages[key] = said
        return said

    def status(self, language: Language = Language.EN) -> JsonDict:
        """The game part of `/api/status`: what is played, whose turn, the scores, the verdict
        (in the words everyone may read, in `language`: a question's options stay with its
        seat)."""
        text = self.verdict_text
        seats = list(self.players_json)
        title = self.title
        if language is not Language.EN:
            spoken = self.book.speaking(language)
            title = spoken.words.title or title
            if self.verdict_public is not None:
                text = said(self.verdict_public, spoken.words)["text"]
            if len(spoken.players) == len(seats):  # a seat no one named: "Spieler 2"
                seats = [p.to_json() for p in spoken.players]
        return {
            "game": None
            if self.game_id is None
            else {
                "id": self.game_id,
                "name": self.game,
                "title": title,
                "players": self.players,
                "current_player": self.current_player,
                "scores": None if self.scores is None else list(self.scores),
                "seats": seats,
                "colour_choice": self.colour_choice,
                "colours": list(COLOURS) if self.colour_choice else [],
                "hints": self.hints,
                "reproducible_seed": self.reproducible_seed,
                "draws": DEMO_SEED if self.reproducible_seed else SECRET_DRAWS,
            },
            "finished": self.finished_in(language),
            "verdict": None
            if self.verdict_kind is None
            else {"kind": self.verdict_kind, "text": text},
            "store": {
                "state": "ok" if self.store_problem is None else "failing",
                "detail": self.store_problem or "",
            },
        }


def take(game: LiveGame, version: int, row: int) -> GameSnapshot:
    """A snapshot of the live game (called on the owner's thread, between commands)."""
    opened = game.open
    if opened is None:
        return GameSnapshot(
            version,
            row,
            store_problem=game.store_problem,
            finished=game.finished,
            finished_said=game.finished_said,
        )
    record, state, info = opened.record, opened.state, opened.info
    book = game.book
    players = int(state.options.get("players", 0))
    verdict = game.verdict
    table = table_json(
        info,
        state,
        opened.referee,
        book,
        marked=list(verdict.locations) if verdict is not None else [],
        alert=verdict is not None and verdict.kind is VerdictKind.ALERT,
        last_move=sorted(opened.last_move),
        felt=list(game.felt),
    )
    public = state.view(None)
    by_audience: dict[Asker, JsonDict] = {}
    verdict_json = None if verdict is None else verdict.to_json()
    asked: frozenset[Action] = frozenset()  # what the referee's question offers its asker
    if verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT:
        asked = frozenset(a for o in verdict.options for a in o.actions)
    for who in audiences(players):
        seat = who.seat if who.role is Role.SEAT else None
        view = public if seat is None else state.view(seat)
        host = who.role is Role.HOST
        mine = verdict is not None and (seat if not host else None) == verdict.seat
        seen = state_json(record.id, row, state, view, public)
        seen["private_words"] = {k: book.private(k, v) for k, v in seen["private"].items()}
        seen["phase_words"] = book.words.phase(seen["phase"])
        offered = choices(state, seat, host=host, asked=asked if mine else frozenset())
        by_audience[who] = {
            "state": seen,
            "table": table,
            "verdict": None
            if verdict_json is None
            else book.verdict(verdict_for(verdict_json, who)),
            "choices": [{**c, "text": book.words.action(c["action"])} for c in offered],
        }
    for seat in game.computers:  # no phone sees the computer's hand: its seat sees what all do
        if 0 <= seat < players:
            by_audience[Asker.at(seat)] = by_audience[Asker.spectator()]
    public_verdict = None if verdict_json is None else verdict_for(verdict_json, Asker.spectator())
    return GameSnapshot(
        version,
        row,
        record.id,
        record.game,
        info.title,
        players,
        state.current_player,
        tuple(state.scores()),
        state.is_over,
        None if verdict is None else verdict.kind.value,
        None if public_verdict is None else said(public_verdict, book.words)["text"],
        game.store_problem,
        tuple(p.to_json() for p in game.players),
        colour_choice(info),
        game.hints,
        None,
        book,
        MappingProxyType(by_audience),
        reproducible_seed=record.reproducible_seed,
        parts_said=parts_said(state),
        verdict_public=None
        if verdict_json is None
        else verdict_for(verdict_json, Asker.spectator()),
    )


def state_json(game_id: int, row: int, state: State, view: JsonDict, public: JsonDict) -> JsonDict:
    """`/api/state`: the view, what of it is private to the asker, phase, turn and scores;
    `at_row`: the last log row the state includes (it is the replay of the rows up to it)."""
    return {
        "game_id": game_id,
        "at_row": row,
        "view": view,
        "private": {k: v for k, v in view.items() if public.get(k) != v},
        "phase": view.get("phase"),
        "current_player": state.current_player,
        "scores": state.scores(),
        "score_parts": score_parts_json(state),
        "is_over": state.is_over,
    }


def choices(
    state: State, seat: int | None, host: bool = False, asked: frozenset[Action] = frozenset()
) -> list[JsonDict]:
    """What the asker may say now that no sensor sees: a seat, on its turn, all but the host's
    rulings (`Decision.HOST`); the host, the rulings the rules wait for; a spectator, nothing.
    What the referee's question to the asker already offers (`asked`) is answered there."""
    player = state.current_player
    if player is None or player < 0 or (not host and player != seat):
        return []
    return [
        {"text": a.words(), "action": a.to_json()}
        for a in state.legal_actions()
        if a.VISIBILITY is not Visibility.TABLE
        and (a.DECISION is Decision.HOST) == host
        and a not in asked
    ]


def table_json(
    info: Game[Any],
    state: State,
    referee: Referee,
    book: Phrasebook,
    *,
    marked: list[str],
    alert: bool,
    last_move: list[str],
    felt: list[str] | None = None,
) -> JsonDict:
    """The mat in millimetres and what lies on it for `state`, with squares to point out."""
    layout = info.layout(state.options)
    table = referee.table_of(state)
    goods = info.goods(state)  # what carries no marker: jewels, a speed die (all may see it)
    shown = set(table) | set(goods) | set(marked) | set(last_move) | set(felt or ())
    drawn = [loc for loc in layout.locations if loc.in_play or loc.name in shown]
    # a place the game leaves unused is drawn only while something there needs seeing
    return {
        "width_mm": layout.width_mm,
        "height_mm": layout.height_mm,
        "locations": [
            {
                "name": loc.name,
                "place": book.place(loc.name),
                "x": loc.x_mm,
                "y": loc.y_mm,
                "w": loc.w_mm,
                "h": loc.h_mm,
            }
            for loc in drawn
        ],
        "axes": axes(drawn, layout.width_mm, layout.height_mm),
        "pieces": {
            name: [
                {
                    "label": book.words.piece(piece_text(p)),
                    "kind": p.piece.kind,
                    "identity": p.piece.identity,
                    "face": p.piece.face,
                    "turn": p.rotation,
                }
                for p in pieces
            ]
            for name, pieces in table.items()
        },
        "goods": {
            name: {"items": [dataclasses.asdict(g) for g in here.items], "words": here.words}
            for name, here in goods.items()
        },
        "marked": marked,
        "alert": alert,
        "last_move": last_move,
        "felt": felt or [],  # the sensor board felt a piece come here; the camera is looking
    }


_GRID = re.compile(r"([A-Z]{1,2})(\d{1,2})")


def axes(locations: Sequence[Location], width_mm: float, height_mm: float) -> JsonDict:
    """The board's coordinates for its edges, from the rules' own square names ("C7": column C,
    row 7): each column's name and centre x, each row's name and centre y, in mm; empty where
    the mat's places are not named by column and row."""
    columns: dict[str, list[float]] = {}
    rows: dict[str, list[float]] = {}
    box = [width_mm, height_mm, 0.0, 0.0]
    for loc in locations:
        m = _GRID.fullmatch(loc.name)
        if m is None:
            continue
        columns.setdefault(m.group(1), []).append(loc.x_mm)
        rows.setdefault(m.group(2), []).append(loc.y_mm)
        box = [
            min(box[0], loc.x_mm - loc.w_mm / 2),
            min(box[1], loc.y_mm - loc.h_mm / 2),
            max(box[2], loc.x_mm + loc.w_mm / 2),
            max(box[3], loc.y_mm + loc.h_mm / 2),
        ]
    aligned = all(max(xs) - min(xs) < 1 for xs in columns.values()) and all(
        max(ys) - min(ys) < 1 for ys in rows.values()
    )
    if not columns or not aligned:
        return {"columns": [], "rows": [], "box": None}
    return {
        "columns": [{"name": c, "x": xs[0]} for c, xs in columns.items()],
        "rows": [{"name": r, "y": ys[0]} for r, ys in rows.items()],
        "box": box,
    }


def parts_said(state: State) -> dict[Language, list[list[dict[str, Any]]]]:
    """Each seat's score parts in each language but English (`score_parts_json`)."""
    said: dict[Language, list[list[dict[str, Any]]]] = {}
    for language in Language:
        if language is not Language.EN:
            said[language] = score_parts_json(state, tongue(language).tr)
    return said


def score_parts_json(state: State, say: Say | None = None) -> list[list[dict[str, Any]]]:
    """Each seat's score parts as JSON (said by `say`, else in English); a part only counted at
    the end has "provisional": true (the key is absent otherwise, so older readers and replays
    see the same parts)."""
    provisional = state.provisional_parts()  # by their English words
    english = state.score_parts()
    said = english if say is None else state.score_parts(say)
    out = []
    for seat, parts in enumerate(said):
        maybe = provisional[seat] if seat < len(provisional) else set()
        whats = [what for what, _ in english[seat]] if seat < len(english) else []
        out.append(
            [
                {
                    "what": what,
                    "points": points,
                    **({"provisional": True} if i < len(whats) and whats[i] in maybe else {}),
                }
                for i, (what, points) in enumerate(parts)
            ]
        )
    return out
