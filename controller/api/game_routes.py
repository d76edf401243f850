"""Routes of the game as it is played: status, the state and table, verdict, choices, actions.

Reads come from the owner's latest snapshot (never the live state); what changes the game is a
command handed to the owner and awaited, so no route blocks the event loop."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as FastPath

from controller.api import looks
from controller.api.deps import Spoken, TableDep, Who
from controller.api.limits import Namer, Writer
from controller.api.models import MAX_ID, ActionRequest, AnswerRequest, PlayerRequest
from controller.api.workers import in_worker
from controller.game.access import Asker
from controller.game.computers import ComputerPlayers, Hint
from controller.game.phrasing import Phrasebook, book_for
from controller.game.privacy import event_for
from controller.game.store import MAX_ROWS, Event, EventKind
from controller.words.book import game_title
from controller.words.language import Language, tongue
from rules.core import Option
from rules.game import Game
from rules.registry import GAMES
from rules.said import Say, same

router = APIRouter()


@router.get("/api/status", summary="The game, the inputs and their health, the pending verdict")
async def status(table: TableDep, who: Who, language: Spoken) -> dict[str, Any]:
    return {
        "starting": False,  # True only in the starting app's (controller/api/starting.py)
        **table.owner.status,
        **table.owner.snapshot.status(language),
        "you": {"role": who.role.value, "seat": who.seat},
    }


@router.get("/api/games/available", summary="The games this table can referee")
async def available(language: Spoken) -> list[dict[str, Any]]:
    say = tongue(language).tr
    return [
        {
            "name": info.name,
            "title": game_title(info, language),
            "min_players": info.min_players,
            "max_players": info.max_players,
            "options": [option_json(info, o, say) for o in info.options],
        }
        for info in GAMES.values()
    ]


def option_json(info: Game[Any], option: Option, say: Say = same) -> dict[str, Any]:
    """An option as a player chooses it: its label and help in players' words, and each value
    with its words (`choices_words`, in the order of `choices`, else of `offered`: the values a
    host picks from where any is taken); `doc` is the rules' own note; `players`, the player
    counts it applies to (null: all); `main`, in the host's short form (the rest folded); `needs`,
    the other option and its value this one means anything with (null: none); `say`, the
    words in the asking phone's language."""
    said = info.words.options.get(option.name)
    label = say(said.label) if said is not None else option.name.replace("_", " ").capitalize()
    values = option.choices if option.choices is not None else option.offered
    choices_words = None
    if values is not None:
        named = [said.choices.get(json.dumps(c)) if said is not None else None for c in values]
        choices_words = [
            say(given) if given else say("yes") if c is True else say("no") if c is False
            else str(c).replace("_", " ")
            for given, c in zip(named, values, strict=True)
        ]  # fmt: skip
    return {
        "name": option.name,
        "default": option.default,
        "choices": option.choices,
        "offered": option.offered,
        "doc": option.doc,
        "label": label,
        "help": say(said.help) if said is not None and said.help else "",
        "choices_words": choices_words,
        "players": option.players,
        "needs": None
        if option.needs is None
        else {"option": option.needs[0], "value": option.needs[1]},
        "main": option.main or option.name == "players",
    }


@router.get(
    "/api/games/{name}/look",
    summary="How the page draws a game's pieces: per piece its form, colour, letter and exits",
)
async def look(name: Annotated[str, FastPath(max_length=64)], language: Spoken) -> dict[str, Any]:
    if name not in GAMES:
        raise HTTPException(404, f"no game {name!r}; known: {', '.join(sorted(GAMES))}")
    return looks.look(name, language)


@router.get("/api/state", summary="The open game as the asker may see it")
async def state(table: TableDep, who: Who, language: Spoken) -> dict[str, Any]:
    seen = table.owner.snapshot.for_asker(who, language)["state"]
    if seen is None:
        raise HTTPException(404, "no game is open")
    return dict(seen)


@router.get("/api/table", summary="The mat in millimetres and what should lie on it now")
async def mat(table: TableDep, who: Who) -> dict[str, Any]:
    seen = table.owner.snapshot.for_asker(who)["table"]
    if seen is None:
        raise HTTPException(404, "no game with a table is open")
    return dict(seen)


@router.get("/api/verdict", summary="What the referee last said, while it stands")
async def verdict(table: TableDep, who: Who, language: Spoken) -> dict[str, Any] | None:
    seen: dict[str, Any] | None = table.owner.snapshot.for_asker(who, language)["verdict"]
    return seen


@router.get("/api/choices", summary="What the asking seat may say now that no sensor sees")
async def choices(table: TableDep, who: Who, language: Spoken) -> list[dict[str, Any]]:
    return list(table.owner.snapshot.for_asker(who, language)["choices"])


@router.get("/api/events", summary="The log of the open game (or `game`), after a row id")
async def events(
    table: TableDep,
    who: Who,
    language: Spoken,
    after: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    game: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> list[dict[str, Any]]:
    game_id = game or table.owner.snapshot.game_id
    if game_id is None:
        return []
    return await in_worker(rendered_rows, table, who, game_id, after, 1000, language)


@router.get("/api/events/kinds", summary="The kinds of log rows (the live stream's event names)")
async def event_kinds() -> list[str]:
    return [kind.value for kind in EventKind]


def rendered_rows(
    table: TableDep,
    who: Asker,
    game_id: int | None,
    after: int,
    limit: int,
    language: Language = Language.EN,
) -> list[dict[str, Any]]:
    """Log rows as `who` may see them, read and rendered on a worker thread."""
    rows: list[Event] = table.reader.events(game_id, after, limit)
    out = []
    records: dict[int, Any] = {}
    books: dict[int, Phrasebook] = {}
    snap = table.owner.snapshot
    for row in rows:
        if row.game_id not in records:
            records[row.game_id] = record = table.reader.game(row.game_id)
            books[row.game_id] = (
                snap.book
                if row.game_id == snap.game_id
                else book_for(record, table.reader.events(row.game_id, 0, MAX_ROWS))
            ).speaking(language)
        record = records[row.game_id]
        name = record.game if record is not None else None
        shown = event_for(row, name, table.owner.viewers.of(record), who)
        out.append(books[row.game_id].event(shown))
    return out


@router.post("/api/actions", summary="An action no sensor sees (a phone, a seat button)")
async def act(request: ActionRequest, table: TableDep, who: Writer) -> list[dict[str, Any]]:
    done = await table.owner.call(lambda game: game.act(who, request.action))
    table.owner.wake()
    return [e.to_json() for e in done]


@router.post("/api/answer", summary="The seat's pick for the referee's question")
async def answer(request: AnswerRequest, table: TableDep, who: Writer) -> list[dict[str, Any]]:
    done = await table.owner.call(lambda game: game.answer(who, request.option))
    table.owner.wake()
    return [e.to_json() for e in done]


@router.post(
    "/api/hint",
    summary="What would the computer do? The normal level's move for the asking seat, on its "
    "turn, with one line of why (that seat's phone alone)",
)
async def hint(table: TableDep, who: Writer) -> dict[str, Any]:
    computers: ComputerPlayers | None = getattr(table, "computers", None)
    if computers is None:
        raise HTTPException(409, "this table has no computer player to ask")
    found: Hint = await asyncio.wrap_future(computers.hint(who))
    return found.to_json()


@router.post(
    "/api/seats/{seat}/player",
    summary="Name a seat's player and, where the game leaves it open, their colour (that seat "
    "or the host)",
)
async def name_player(
    seat: Annotated[int, FastPath(ge=0, le=15)],
    request: PlayerRequest,
    table: TableDep,
    who: Namer,
) -> dict[str, Any]:
    player = await table.owner.call(
        lambda game: game.name_player(who, seat, request.name, request.colour)
    )
    return player.to_json()
