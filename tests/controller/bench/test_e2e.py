"""A magnet placed on the virtual board reaches every phone's event stream."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.bench.e2e import _latency


def test_a_magnet_reaches_every_phone(tmp_path: Path) -> None:
    times = asyncio.run(_latency(4, 2, tmp_path))
    assert len(times) == 8
    assert all(0 < t < 5000 for t in times)
