"""The phone page while the table starts (issue 40), in real Chromium against `railtable serve`
held at its start gate (a file: no timing): the starting page says so and carries on by itself
into the game; a page already open when the table restarts says "the table is starting", then
shows the game again without a reload."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.serve import START_GATE
from tests.support.serving import MAIN, answering, free_port
from tests.support.waiting import wait_until

pytestmark = pytest.mark.xdist_group("starting_page")


def _serve(data: Path, port: int, gate: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--host", "127.0.0.1",
         "--port", str(port), "--pin", "2468", "--camera", "none", "--board", "none",
         "--no-bots", "--players", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, START_GATE: str(gate)},
    )  # fmt: skip


def _starting(url: str) -> bool:
    try:
        return bool(httpx.get(url + "/api/status", timeout=2).json().get("starting"))
    except (httpx.HTTPError, ValueError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def test_the_page_says_starting_then_shows_the_game(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first, second = tmp_path / "gate1", tmp_path / "gate2"
    process = _serve(tmp_path / "data", port, first)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        wait_until(lambda: _starting(url), 30, "the starting app answering", 0.05)
        page.goto(url + "/")
        assert "The table is starting" in page.inner_text("body")
        first.touch()
        page.wait_for_selector("#scores tbody tr", timeout=60_000)  # reloaded itself: the game
        assert "starting" not in page.inner_text("#verdict")
        _stop(process)  # the table restarts while the page is open
        process = _serve(tmp_path / "data", port, second)
        wait_until(lambda: _starting(url), 30, "the starting app again", 0.05)
        page.wait_for_function(
            "document.getElementById('verdict').textContent.includes('The table is starting')",
            timeout=30_000,
        )
        second.touch()
        wait_until(lambda: answering(url), 60, "the table ready again")
        page.wait_for_function(
            "!document.getElementById('verdict').textContent.includes('starting')"
            " && !document.getElementById('verdict').textContent.includes('Reconnecting')",
            timeout=30_000,
        )
        assert page.locator("#scores tbody tr").count() > 0
    finally:
        page.close()
        _stop(process)
