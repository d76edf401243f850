"""Routes of games already played: the finished games and their replays, move by move."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as FastPath

from controller.api.deps import Spoken, TableDep
from controller.api.models import MAX_ID
from controller.api.workers import in_worker
from controller.game.phrasing import book_for
from controller.game.replay import Replays, StepBeyond
from controller.game.store import MAX_ROWS
from controller.words.book import game_title
from rules.registry import GAMES, game_named

router = APIRouter()
REPLAYS = Replays()


@router.get("/api/games", summary="Finished games with their final scores")
async def finished(table: TableDep, language: Spoken) -> list[dict[str, Any]]:
    def read() -> list[tuple[Any, list[str]]]:
        return [
            (
                g,
                [
                    p.name
                    for p in book_for(g, table.reader.player_rows(g.id)).speaking(language).players
                ],
            )
            for g in table.reader.games(True)
        ]

    games = await in_worker(read)
    return [
        {
            "id": g.id,
            "game": g.game,
            "title": game_title(game_named(g.game), language) if g.game in GAMES else g.game,
            "players": g.options.get("players"),
            "started_at": g.started_at,
            "ended_at": g.ended_at,
            "scores": g.scores,
            "names": names,
        }
        for g, names in games
    ]


@router.get(
    "/api/games/{game_id}/replay",
    summary="A game's table after its `step`th players' move (0: the start), as all may see",
)
async def replay(
    game_id: Annotated[int, FastPath(ge=1, le=MAX_ID)],
    table: TableDep,
    language: Spoken,
    step: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> dict[str, Any]:
    def show() -> dict[str, Any]:
        record = table.reader.game(game_id)
        if record is None or record.game not in GAMES:
            raise HTTPException(404, f"no game {game_id}")
        if record.is_open:
            raise HTTPException(
                409, f"game {game_id} is still being played: replays are of ended games"
            )
        try:
            return REPLAYS.step(
                record, table.reader.events(game_id, limit=MAX_ROWS), step, language
            )
        except StepBeyond as error:
            raise HTTPException(404, str(error)) from None

    return await in_worker(show)
