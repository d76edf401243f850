"""`railtable bench load`'s service process: the table served as `railtable serve` does, probed.

The probe writes, for each log row a settled table produced, when the last magnet changed on the
virtual board before it and when the owner began judging (`row <id> <magnet s> <judged s>`), and
for squares first shown as felt, the magnet's time (`felt <squares> <magnet s> <s>`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PIN = "97531"


def serve_probed(data: str, port: int, stamps: str, camera: str) -> None:
    """Run the table service as `railtable serve` does, stamping rows with their magnet time."""
    from controller.game.live import LiveGame
    from controller.table.service import ServiceSettings
    from hardware.virtual_board import VirtualBoard

    out = open(stamps, "a", buffering=1)  # noqa: SIM115 (open for the process's life)
    probe: dict[str, float | None] = {"changed": None, "judging": None, "judged_at": None}

    def stamped(method: Callable[..., float]) -> Callable[..., float]:
        def changed(board: VirtualBoard, row: int, col: int) -> float:
            probe["changed"] = time.monotonic()
            return method(board, row, col)

        return changed

    VirtualBoard.place = stamped(VirtualBoard.place)  # type: ignore[method-assign]
    VirtualBoard.lift = stamped(VirtualBoard.lift)  # type: ignore[method-assign]
    observe, init = LiveGame.observe, LiveGame.__init__

    def observing(game: LiveGame, observation: Any, acting_on: Any = None) -> Any:
        probe["judging"] = probe["changed"]
        probe["judged_at"] = time.monotonic()
        try:
            return observe(game, observation, acting_on)
        finally:
            probe["judging"] = None

    def listened(game: LiveGame, *args: Any, **kwargs: Any) -> None:
        init(game, *args, **kwargs)

        def written(event: Any) -> None:
            at, judged = probe["judging"], probe["judged_at"]
            if at is not None and judged is not None:
                out.write(f"row {event.id} {at:.6f} {judged:.6f}\n")
                probe["changed"] = None  # later rows of the same change are not timed again

        game.listeners.append(written)

    feel = LiveGame.feel

    def felt(game: LiveGame, locations: Any) -> None:
        before = game.felt
        feel(game, locations)
        at = probe["changed"]
        if game.felt and game.felt != before and at is not None:
            out.write(f"felt {','.join(game.felt)} {at:.6f} {time.monotonic():.6f}\n")

    LiveGame.feel = felt  # type: ignore[method-assign,assignment]
    LiveGame.observe = observing  # type: ignore[method-assign,assignment]
    LiveGame.__init__ = listened  # type: ignore[method-assign,assignment]
    settings = ServiceSettings(data_dir=Path(data), pin=PIN, players=4, seed=1, camera=camera)
    asyncio.run(_serve(settings, port))


async def _serve(settings: Any, port: int) -> None:
    """What `railtable serve` runs (controller/serve.py): the table, then its HTTP server with
    the same settings, until SIGTERM."""
    import gc

    import uvicorn

    from controller.api.app import create_app
    from controller.api.http import warm
    from controller.api.server import server_config
    from controller.table.service import TableService

    service = TableService(settings)
    await asyncio.to_thread(service.start)
    app = create_app(service)
    await warm(app)
    gc.collect()
    gc.freeze()
    config = server_config(app, "127.0.0.1", port, timeout_graceful_shutdown=3)
    try:
        await uvicorn.Server(config).serve()
    finally:
        await asyncio.to_thread(service.stop)
