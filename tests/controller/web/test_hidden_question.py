"""A hidden question on the phones, in real Chromium at 390 x 844: after a collision in Off the
Rails the hit minecart's owner splits its jewels in secret (`Decision.HIDDEN`, the referee's
verdict with `hidden=True`). Only that player's phone shows the choices, marked "only you see
this"; the other player's, a spectator's and the host's phones show only that a hidden choice is
being made, and never which piles were made, before or after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from controller.game.live import LiveGame
from controller.referee.verdict import VerdictKind
from tests.controller.game.test_live_decisions import _collision, _moved
from tests.support.api import PIN, BareTable
from tests.support.browser import chromium
from tests.support.serving import serving

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
HOST = {"X-Table-Pin": PIN}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, BareTable]]:
    control = BareTable(tmp_path / "log.sqlite3")
    with serving(control) as url:
        yield url, control


def _collide(game: LiveGame) -> None:
    """Lay the game out just before Ann's red minecart runs into Bob's green one (a ruby and a
    gold aboard), then let the table show the move: Bob is asked to split in secret."""
    state = _collision()
    game.opened().state = state
    assert game.open is not None
    game.open.table = game.open.referee.table_of(state)
    verdict = game.observe(_moved(game))
    assert verdict is not None and verdict.kind is VerdictKind.NEEDS_INPUT and verdict.hidden
    assert verdict.seat == 1


def _words(page: Page) -> str:
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    return page.inner_text("body")


def test_a_hidden_split_shows_on_its_players_phone_alone(served: tuple[str, BareTable]) -> None:
    url, control = served
    start = {"game": "offtherails", "options": {"players": 2}, "seed": 1}
    assert httpx.post(f"{url}/api/games", json=start, headers=HOST).status_code == 200
    for seat, name in enumerate(("Ann", "Bob")):
        named = httpx.post(f"{url}/api/seats/{seat}/player", json={"name": name}, headers=HOST)
        assert named.status_code == 200, named.text
    tokens = [
        httpx.post(f"{url}/api/seats/{seat}/token", headers=HOST).json()["token"] for seat in (0, 1)
    ]
    control.owner.call_sync(_collide)
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium() as browser:
        phones: dict[str, Any] = {}
        for who, address in [
            ("Bob", f"{url}/?seat={tokens[1]}"),
            ("Ann", f"{url}/?seat={tokens[0]}"),
            ("spectator", url + "/"),
            ("host", url + "/"),
        ]:
            phones[who] = browser.new_page(viewport={"width": 390, "height": 844})
            phones[who].goto(address)
        host = phones["host"]
        host.locator("#host > summary").click()
        host.fill("#pin", PIN)
        host.press("#pin", "Tab")
        host.wait_for_function("document.querySelector('#me').textContent === 'host'")
        bob = phones["Bob"]
        bob.wait_for_function("document.querySelectorAll('#question button').length === 2")
        asked = bob.locator("#question").inner_text()
        assert "Only you see this" in asked
        piles = bob.eval_on_selector_all("#question button", "bs => bs.map(b => b.textContent)")
        assert all("ruby" in pile or "gold" in pile for pile in piles), piles
        bob.screenshot(path=str(ARTIFACTS / "family-hidden-split.png"), full_page=True)
        for who in ("Ann", "spectator", "host"):
            page = phones[who]
            page.wait_for_function(
                "document.querySelector('#verdict').textContent.includes('hidden choice')"
            )
            verdict = page.locator("#verdict").inner_text()
            assert "Bob" in verdict and "own phone" in verdict, (who, verdict)
            assert page.locator("#question button").count() == 0, who
            text = _words(page)
            assert "Only you see this" not in text.replace("Only you see this\n", ""), who
            assert not any(pile in text for pile in piles), (who, piles)
        host.screenshot(path=str(ARTIFACTS / "family-hidden-split-host.png"), full_page=True)
        bob.locator("#question button").first.click()  # Bob splits; the game goes on
        for who in ("Ann", "spectator", "host"):
            page = phones[who]
            page.wait_for_function(
                "!document.querySelector('#verdict').textContent.includes('hidden choice')"
            )
            text = _words(page)
            assert not any(pile in text for pile in piles), (who, piles)
