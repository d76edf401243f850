"""The venue page in real headless Chromium (Debian's package), at a big screen's size and a
phone's, over `railtable venue` and tables publishing through a real Mosquitto. Screenshots are
kept in .artifacts/ for a person to look at."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from controller.venue.broker import Mosquitto, free_port
from controller.venue.table import PlayingTable
from tests.controller.venue.venue_testkit import PASSWORDS, VENUE, settings
from tests.support.serving import MAIN
from tests.support.waiting import wait_until

pytestmark = pytest.mark.xdist_group("venue_page")  # the module on one worker: its fixtures once
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
PIN = "2468"


@pytest.fixture
def evening(broker: Mosquitto, tmp_path: Path) -> Iterator[tuple[str, list[PlayingTable]]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAILTABLE_CONFIG"}
    env["RAILTABLE_VENUE_PASSWORD"] = PASSWORDS["venue"]
    page = subprocess.Popen(
        [sys.executable, "-c", MAIN, "venue", "--broker", broker.url, "--venue", VENUE,
         "--port", str(port), "--data", str(tmp_path / "venue"), "--pin", PIN],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    tables = [
        PlayingTable(tmp_path / f"t{i}", settings(broker, f"table-{i}"), seed=i).start()
        for i in (1, 2, 3)
    ]
    try:
        for _ in range(6):
            for table in tables:
                table.move()
        tables[0].end_game()  # a finished game: the standings have a line
        tables[1].status["camera"] = {"state": "disconnected"}  # needs a person
        tables[2].stop()  # gone home: offline
        wait_until(lambda: _up(url), 20, "the venue page answers")
        yield url, tables
    finally:
        for table in tables[:2]:
            table.stop()
        page.terminate()
        page.wait(10)


def _up(url: str) -> bool:
    try:
        view = httpx.get(url + "/api/venue", timeout=1).json()
    except httpx.HTTPError:
        return False
    return len(view["tables"]) == 3 and bool(view["finished"]) and len(view["needing_help"]) == 2


def _open(browser: object, url: str, width: int, height: int) -> Page:
    page: Page = browser.new_page(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
    page.goto(url + "/")
    page.wait_for_function("document.querySelectorAll('#tables .table').length === 3")
    return page


def test_the_venue_page_on_a_big_screen_and_on_a_phone(
    evening: tuple[str, list[PlayingTable]], browser: object
) -> None:
    url, tables = evening
    ARTIFACTS.mkdir(exist_ok=True)
    tv = _open(browser, url, 1920, 1080)
    helped = tv.eval_on_selector_all(".table.help", "cards => cards.map(c => c.dataset.table)")
    assert sorted(helped) == ["table-2", "table-3"]
    assert "table-2" in tv.locator("#help").inner_text()
    assert "the camera is disconnected" in tv.locator("[data-table=table-2]").inner_text()
    assert "offline" in tv.locator("[data-table=table-3]").inner_text()
    assert "table-1 seat" in tv.locator("#standings").inner_text()
    columns = tv.evaluate("getComputedStyle(document.querySelector('#tables'))"
                          ".gridTemplateColumns.split(' ').length")  # fmt: skip
    assert columns >= 3  # a big screen shows tables side by side, the standings beside them
    # The organiser seats a round: the page shows it live.
    r = httpx.post(url + "/api/tournament", json={"players": ["Ann", "Bo", "Cy", "Di"]},
                   headers={"X-Organiser-PIN": PIN})  # fmt: skip
    assert r.status_code == 200, r.text
    r = httpx.post(url + "/api/tournament/rounds", json={"game": "offtherails"},
                   headers={"X-Organiser-PIN": PIN})  # fmt: skip
    assert r.status_code == 200, r.text
    tv.wait_for_function("document.querySelector('#round').innerText.includes('Round 1')")
    tv.screenshot(path=str(ARTIFACTS / "venue-tv.png"))
    # A moving table updates the page without a reload.
    before = tv.locator("[data-table=table-1] .recent").inner_text()
    tables[0].move()
    tv.wait_for_function(
        f"document.querySelector('[data-table=table-1] .recent').innerText !== {before!r}"
    )
    phone = _open(browser, url, 412, 915)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    widths = phone.eval_on_selector_all(".table", "cards => cards.map(c => c.clientWidth)")
    assert min(widths) > 300  # one card across: readable, nothing squeezed
    assert phone.locator("#help").is_visible()
    phone.screenshot(path=str(ARTIFACTS / "venue-phone.png"), full_page=True)
    time.sleep(0.1)
