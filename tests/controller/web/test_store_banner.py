"""A full disk on the phone page (issue 22), in real headless Chromium: every phone shows the banner
"event log: disk full — play is paused until space returns" at once, and it goes when space
returns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.controller.api.test_full_disk import fill_disk, free_disk
from tests.support.api import BareTable
from tests.support.browser import chromium
from tests.support.serving import serving

PIN = "4321"
HOST = {"X-Table-Pin": PIN}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, BareTable]]:
    control = BareTable(tmp_path / "log.sqlite3")
    with serving(control) as url:
        yield url, control


def test_every_phone_shows_a_full_disk_until_space_returns(served: tuple[str, BareTable]) -> None:
    url, control = served
    start = {"game": "offtherails", "options": {"players": 2}}
    assert httpx.post(f"{url}/api/games", json=start, headers=HOST).status_code == 200
    north = {"action": {"type": "choose_side", "side": "north"}}
    with chromium() as browser:
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
