"""The host's session: opened once with the table PIN, then the host's phone acts by its token
(`X-Host-Token`, or the page's HttpOnly cookie), which others' wrong PINs never lock out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Query, Request, Response

from controller.api.deps import (
    HOST_COOKIE,
    TableDep,
    Who,
    host_sessions,
    pin_host,
    require_host,
    same_origin,
)
from controller.api.models import HostSession, SessionsEnded
from controller.api.workers import in_worker
from controller.game.host_sessions import IDLE_S

router = APIRouter()
COOKIE_S = 30 * 24 * 3600  # the cookie's own life: the table ends the session after IDLE_S idle


@router.post(
    "/api/host/session",
    summary="Open a host session with the table PIN (X-Table-Pin): its token for X-Host-Token, "
    "also set as an HttpOnly cookie; it ends after 12 h unused, on DELETE, or a new PIN",
)
async def open_session(
    request: Request,
    response: Response,
    table: TableDep,
    x_table_pin: Annotated[str | None, Header()] = None,
) -> HostSession:
    if x_table_pin is None:
        raise HTTPException(403, "send the table PIN (X-Table-Pin) to open a host session")
    await pin_host(request, table, x_table_pin)
    sessions = host_sessions(request, table)
    token = sessions.open()
    await in_worker(sessions.save)
    response.set_cookie(
        HOST_COOKIE, token, max_age=COOKIE_S, path="/api", httponly=True, samesite="strict"
    )
    response.headers["Cache-Control"] = "no-store"
    return HostSession(token=token, idle_s=int(IDLE_S))


@router.delete(
    "/api/host/session",
    summary="End this host session (its X-Host-Token or cookie); all=true: every host session "
    "(host)",
)
async def end_session(
    request: Request,
    response: Response,
    table: TableDep,
    who: Who,
    all: Annotated[bool, Query()] = False,
) -> SessionsEnded:
    sessions = host_sessions(request, table)
    if all:
        require_host(who)
        ended = sessions.end_all()
    else:
        held = {request.headers.get("x-host-token")}
        if same_origin(request):  # as everywhere: not the cookie of a request from elsewhere
            held.add(request.cookies.get(HOST_COOKIE))
        ended = sum(sessions.end(token) for token in held if token is not None)
    await in_worker(sessions.save)
    response.delete_cookie(HOST_COOKIE, path="/api", httponly=True, samesite="strict")
    return SessionsEnded(ended=ended)
