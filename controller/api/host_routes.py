"""The host's routes (the table PIN): start and end games, undo, correct the board, seats."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Annotated, Any

import segno
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi import Path as FastPath

from controller.api.deps import Host, TableDep
from controller.api.models import (
    MAX_ID,
    ComputerRequest,
    HintsRequest,
    SeatToken,
    StartRequest,
    UndoRequest,
)
from controller.api.workers import in_worker
from controller.game.live import LiveGame

router = APIRouter()


CARD_FILE_MAX_BYTES = 256 * 1024
CARD_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.json")


def card_file(folder: Path | None, name: Any) -> str:
    """A card file the host names from a phone: a file name in the table's card folder (`cards/`
    in its data folder), a regular JSON file under 256 KB; nothing else is read."""
    if name == "":
        return ""
    if not isinstance(name, str) or not CARD_FILE_NAME.fullmatch(name):
        raise HTTPException(422, "option 'card_file': a file name like my-cards.json, no folders")
    if folder is None:
        raise HTTPException(422, "option 'card_file': this table has no card folder")
    path = folder / name
    if not path.is_file() or path.is_symlink():
        raise HTTPException(422, f"option 'card_file': no card file {name!r} in {folder}")
    if path.stat().st_size > CARD_FILE_MAX_BYTES:
        raise HTTPException(422, f"option 'card_file': {name!r} is over 256 KB")
    return str(path)


@router.post("/api/games", summary="Start a game (host)")
async def start(request: StartRequest, table: TableDep, who: Host) -> dict[str, Any]:
    options = dict(request.options)
    if "card_file" in options:
        folder: Path | None = getattr(table, "card_folder", None)
        options["card_file"] = await in_worker(card_file, folder, options["card_file"])

    def begin(game: LiveGame) -> int | None:
        game.start(request.game, options, request.seed)
        return game.open.record.id if game.open is not None else None

    game_id = await table.owner.call(begin)
    table.owner.wake()
    return {"game_id": game_id}


@router.post("/api/games/current/end", summary="End the open game (host)")
async def end(table: TableDep, who: Host) -> dict[str, Any]:
    await table.owner.call(lambda game: game.end())
    return {"ended": True}


@router.post("/api/undo", summary="Take back the last players' actions (host)")
async def undo(request: UndoRequest, table: TableDep, who: Host) -> list[dict[str, Any]]:
    done = await table.owner.call(lambda game: game.undo(who, request.count))
    table.owner.wake()
    return [e.to_json() for e in done]


@router.post("/api/table/accept", summary="The table as it lies now is right (host)")
async def accept(table: TableDep, who: Host) -> dict[str, Any]:
    await table.owner.call(lambda game: game.accept_table(who))
    table.owner.wake()
    return {"accepted": True}


@router.post(
    "/api/seats/{seat}/computer",
    summary="Make a seat a computer player (level easy, normal or strong), or take it back "
    "(level null) (host)",
)
async def computer(
    seat: Annotated[int, FastPath(ge=0, le=15)],
    request: ComputerRequest,
    table: TableDep,
    who: Host,
) -> dict[str, Any]:
    player = await table.owner.call(lambda game: game.set_computer(who, seat, request.level))
    table.owner.wake()
    return player.to_json()


@router.post("/api/hints", summary="Let seats ask for a hint, or not (host)")
async def hints(request: HintsRequest, table: TableDep, who: Host) -> dict[str, Any]:
    await table.owner.call(lambda game: game.set_hints(who, request.on))
    return {"hints": request.on}


@router.post("/api/seats/{seat}/token", summary="A token for a seat's phone (host)")
async def seat_token(
    seat: Annotated[int, FastPath(ge=0, le=15)], table: TableDep, who: Host
) -> SeatToken:
    snap = table.owner.snapshot
    if snap.game_id is None:
        raise HTTPException(409, "no game is open")
    if not 0 <= seat < snap.players:
        raise HTTPException(422, f"seat {seat} is not one of 0..{snap.players - 1}")
    if snap.players_json[seat].get("computer"):
        raise HTTPException(409, f"seat {seat} is the computer's: no phone joins it")
    return SeatToken(seat=seat, token=table.tokens.issue(seat, snap.game_id))


@router.get("/api/seats/{seat}/qr", summary="A QR code that joins a phone to a seat (host)")
async def seat_qr(
    seat: Annotated[int, FastPath(ge=0, le=15)], request: Request, table: TableDep, who: Host
) -> Response:
    token = (await seat_token(seat, table, who)).token
    link = (request.app.state.address() or str(request.base_url)).rstrip("/") + f"/?seat={token}"

    def draw() -> bytes:
        picture = io.BytesIO()
        segno.make(link, error="m").save(picture, kind="svg", scale=6, xmldecl=False)
        return picture.getvalue()

    return Response(await in_worker(draw), media_type="image/svg+xml")


@router.get(
    "/api/camera.jpg",
    summary="The camera's view, annotated with what it read (host)",
    response_class=Response,
)
async def camera(table: TableDep, who: Host) -> Response:
    picture = await in_worker(table.camera_jpeg)  # drawn off the owner: verdicts go on
    if picture is None:
        raise HTTPException(404, "no camera picture yet (no camera, or not one frame read)")
    return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.post("/api/camera/calibrate", summary="Find the mat's corner markers afresh (host)")
async def calibrate(table: TableDep, who: Host) -> dict[str, Any]:
    if not await table.owner.call(lambda _: table.recalibrate()):
        raise HTTPException(409, "no camera to calibrate (none configured, or not started)")
    table.owner.wake()
    return {"calibrating": True}


@router.get(
    "/api/games/{game_id}/record",
    summary="The JSON game record (host: a finished game's secret, a demo game's seed)",
)
async def record(
    game_id: Annotated[int, FastPath(ge=1, le=MAX_ID)], table: TableDep, who: Host
) -> dict[str, Any]:
    try:
        return await in_worker(table.reader.record_json, game_id)
    except KeyError:
        raise HTTPException(404, f"no game {game_id}") from None
