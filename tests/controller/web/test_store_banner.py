"""A full disk on the phone page (issue 22), in real headless Chromium: every phone shows the banner
"event log: disk full — play is paused until space returns" at once, and it goes when space
returns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import sync_playwright

from tests.controller.api.test_full_disk import Control, fill_disk, free_disk
from tests.controller.serving import serving

CHROMIUM = "/usr/bin/chromium"
PIN = "4321"
HOST = {"X-Table-Pin": PIN}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Control]]:
    control = Control(tmp_path / "log.sqlite3")
    with serving(control) as url:
        yield url, control


def test_every_phone_shows_a_full_disk_until_space_returns(served: tuple[str, Control]) -> None:
    url, control = served
    start = {"game": "offtherails", "options": {"players": 2}}
    assert httpx.post(f"{url}/api/games", json=start, headers=HOST).status_code == 200
    north = {"action": {"type": "choose_side", "side": "north"}}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 412, "height": 915})  # a spectator
            page.goto(url)
            page.wait_for_function("document.getElementById('turn').textContent !== ''")
            assert page.locator("#store-banner:visible").count() == 0
            control.owner.call_sync(fill_disk)
            r = httpx.post(f"{url}/api/actions", json=north, headers=HOST)
            assert r.status_code == 503
            banner = page.locator("#store-banner")
            banner.wait_for(state="visible", timeout=10_000)
            text = "event log: disk full — play is paused until space returns"
            assert banner.text_content() == text and banner.get_attribute("role") == "alert"
            control.owner.call_sync(free_disk)
            assert httpx.post(f"{url}/api/actions", json=north, headers=HOST).status_code == 200
            banner.wait_for(state="hidden", timeout=10_000)
        finally:
            browser.close()
