"""Routes of the game as it is played: status, the state and table, verdict, choices, actions.

Reads come from the owner's latest snapshot (never the live state); what changes the game is a
command handed to the owner and awaited, so no route blocks the event loop."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as FastPath
from starlette.concurrency import run_in_threadpool

from controller.api import looks
from controller.api.deps import TableDep, Who
from controller.api.models import MAX_ID, ActionRequest, AnswerRequest
from controller.game.access import Asker
from controller.game.privacy import event_for
from controller.game.store import Event, EventKind
from rules.registry import GAMES

router = APIRouter()


@router.get("/api/status", summary="The game, the inputs and their health, the pending verdict")
async def status(table: TableDep, who: Who) -> dict[str, Any]:
    return {
        **table.owner.status,
        **table.owner.snapshot.status(),
        "you": {"role": who.role.value, "seat": who.seat},
    }


@router.get("/api/games/available", summary="The games this table can referee")
async def available() -> list[dict[str, Any]]:
    return [
        {
            "name": info.name,
            "title": info.title,
            "min_players": info.min_players,
            "max_players": info.max_players,
            "options": [
                {"name": o.name, "default": o.default, "choices": o.choices, "doc": o.doc}
                for o in info.options
            ],
        }
        for info in GAMES.values()
    ]


@router.get(
    "/api/games/{name}/look",
    summary="How the page draws a game's pieces: per piece its form, colour, letter and exits",
)
async def look(name: Annotated[str, FastPath(max_length=64)]) -> dict[str, Any]:
    if name not in GAMES:
        raise HTTPException(404, f"no game {name!r}; known: {', '.join(sorted(GAMES))}")
    return looks.look(name)


@router.get("/api/state", summary="The open game as the asker may see it")
async def state(table: TableDep, who: Who) -> dict[str, Any]:
    seen = table.owner.snapshot.for_asker(who)["state"]
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
async def verdict(table: TableDep, who: Who) -> dict[str, Any] | None:
    seen: dict[str, Any] | None = table.owner.snapshot.for_asker(who)["verdict"]
    return seen


@router.get("/api/choices", summary="What the asking seat may say now that no sensor sees")
async def choices(table: TableDep, who: Who) -> list[dict[str, Any]]:
    return list(table.owner.snapshot.for_asker(who)["choices"])


@router.get("/api/events", summary="The log of the open game (or `game`), after a row id")
async def events(
    table: TableDep,
    who: Who,
    after: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    game: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> list[dict[str, Any]]:
    game_id = game or table.owner.snapshot.game_id
    if game_id is None:
        return []
    return await run_in_threadpool(rendered_rows, table, who, game_id, after, 1000)


@router.get("/api/events/kinds", summary="The kinds of log rows (the live stream's event names)")
async def event_kinds() -> list[str]:
    return [kind.value for kind in EventKind]


def rendered_rows(
    table: TableDep, who: Asker, game_id: int | None, after: int, limit: int
) -> list[dict[str, Any]]:
    """Log rows as `who` may see them, read and rendered on a worker thread."""
    rows: list[Event] = table.reader.events(game_id, after, limit)
    out = []
    records: dict[int, Any] = {}
    for row in rows:
        if row.game_id not in records:
            records[row.game_id] = table.reader.game(row.game_id)
        record = records[row.game_id]
        name = record.game if record is not None else None
        out.append(event_for(row, name, table.owner.viewers.of(record), who))
    return out


@router.post("/api/actions", summary="An action no sensor sees (a phone, a seat button)")
async def act(request: ActionRequest, table: TableDep, who: Who) -> list[dict[str, Any]]:
    done = await table.owner.call(lambda game: game.act(who, request.action))
    table.owner.wake()
    return [e.to_json() for e in done]


@router.post("/api/answer", summary="The seat's pick for the referee's question")
async def answer(request: AnswerRequest, table: TableDep, who: Who) -> list[dict[str, Any]]:
    done = await table.owner.call(lambda game: game.answer(who, request.option))
    table.owner.wake()
    return [e.to_json() for e in done]
