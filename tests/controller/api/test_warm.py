"""The app is warmed before phones come: the first status and the first 404 a phone asks for
build nothing more (FastAPI and Starlette build parts of their machinery at a first request)."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

from controller.api.app import create_app
from controller.api.http import warm
from controller.table.service import ServiceSettings, TableService


def _validators() -> int:
    return sum(1 for o in gc.get_objects() if type(o).__name__ == "TypeAdapter")


def test_after_warming_a_first_request_of_each_kind_builds_no_validators(tmp_path: Path) -> None:
    service = TableService(
        ServiceSettings(data_dir=tmp_path, pin="1357", camera="none", board="none", bots=False)
    )
    service.start(thread=False)
    try:
        app = create_app(service)
        cold = _validators()
        asyncio.run(warm(app))
        warmed = _validators()
        asyncio.run(warm(app))  # the same kinds of request again: a phone's first ones
        assert warmed > cold  # warming did build them
        assert _validators() == warmed
    finally:
        service.stop()
