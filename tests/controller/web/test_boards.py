"""The boards at a phone's size (issue 39), in real Chromium at 390 x 844 against one running
service with its bots playing each game: no text on a board under 11 px on the screen, Off the
Rails' jewels drawn where the state has them, a cue where a board scrolls sideways, and the race's
seat keeps its board on the first screen. Screenshots go to .artifacts/board-*.png."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.support.serving import MAIN, free_port, running
from tests.support.waiting import wait_until

pytestmark = pytest.mark.xdist_group("boards")  # the module on one worker: its fixtures once
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
PIN = "2468"
HOST = {"X-Table-Pin": PIN}
PLAYERS = {"offtherails": 3, "trickoftherails": 3, "derailed": 2, "minewagons": 2}
PHONE = {"width": 390, "height": 844}

# Every text of the board with its size on the screen: its font size times the drawing's scale.
SIZES = """() => [...document.querySelectorAll('#mat text')].map((t) => {
  const m = t.getScreenCTM();
  return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)];
})"""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    data = tmp_path_factory.mktemp("boards")
    process: subprocess.Popen[bytes] = running(
        [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--port", str(port),
         "--host", "127.0.0.1", "--pin", PIN, "--bot-pace", "1", "--seed", "3", "--players", "2"],
        f"http://127.0.0.1:{port}",
    )  # fmt: skip
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def _start(url: str, game: str, human: int | None = None) -> None:
    body = {"game": game, "options": {"players": PLAYERS[game]}, "seed": 3}
    r = httpx.post(url + "/api/games", json=body, headers=HOST, timeout=30)
    assert r.status_code == 200, r.text
    if human is not None:  # a person's seat: the computer leaves it
        r = httpx.post(url + f"/api/seats/{human}/computer", json={"level": None}, headers=HOST)
        assert r.status_code == 200, r.text


def _seat_page(browser: Any, url: str, seat: int) -> Page:
    token = httpx.post(url + f"/api/seats/{seat}/token", headers=HOST).json()["token"]
    page: Page = browser.new_page(viewport=PHONE)
    page.goto(f"{url}/?seat={token}")
    page.wait_for_function("document.querySelectorAll('#mat .place').length > 10", timeout=20000)
    return page


@pytest.mark.parametrize("game", list(PLAYERS))
def test_no_board_text_under_11_px(table: str, browser: Any, game: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    _start(table, game)
    page: Page = browser.new_page(viewport=PHONE)
    page.goto(table + "/")
    page.wait_for_function("document.querySelectorAll('#mat .place').length > 10", timeout=20000)
    page.wait_for_timeout(5000)  # the bots play a few moves
    page.screenshot(path=str(ARTIFACTS / f"board-{game}.png"))
    sizes = page.evaluate(SIZES)
    assert sizes, "the board writes nothing"
    small = [(t, round(px, 1)) for t, px in sizes if px < 11 - 0.05]
    assert small == [], small
    wide = page.evaluate(
        "(f => f.scrollWidth > f.clientWidth + 2)($('.frame'))".replace(
            "$", "document.querySelector"
        )
    )
    hint = page.locator("#scroll-hint")
    if wide:  # a cue where it scrolls: the hint and a fade at the edge
        assert hint.is_visible() and "scroll" in hint.inner_text()
        cue = "document.querySelector('.frame-wrap').classList.contains('more-right')"
        assert page.evaluate(cue)
    else:
        assert hint.is_hidden()
    page.close()


def test_off_the_rails_draws_the_jewels_where_the_state_has_them(table: str, browser: Any) -> None:
    _start(table, "offtherails")
    page: Page = browser.new_page(viewport=PHONE)
    page.goto(table + "/")
    page.wait_for_function("document.querySelectorAll('#mat path.gem').length > 0", timeout=20000)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    goods = httpx.get(table + "/api/table").json()["goods"]
    deposits = {sq for sq, g in goods.items() if any(i["kind"] == "jewel" for i in g["items"])}
    assert deposits  # the deposits phase laid jewels
    drawn = set(page.eval_on_selector_all(
        "#mat .place", "gs => gs.filter(g => g.querySelector('path.gem')).map(g => g.dataset.name)"
    ))  # fmt: skip
    assert deposits <= drawn, (deposits, drawn)  # (the board may have moved on since: a superset)
    words = page.inner_text("#words-list")
    assert "a deposit of" in words and "_" not in words
    assert page.locator("#mat").get_attribute("viewBox")
    reveal = page.locator("#mat .place[data-name='reveal']")
    if reveal.count():  # the reveal slot lies whole inside the frame: not cut to "rev"
        box, frame = reveal.bounding_box(), page.locator(".frame").bounding_box()
        assert box and frame and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
    page.close()


def test_the_race_keeps_its_board_on_the_first_screen(table: str, browser: Any) -> None:
    _start(table, "minewagons", human=0)
    page = _seat_page(browser, table, 0)
    if page.locator("#join").is_visible():
        page.fill("#join-name", "Ann")
        page.click("#join-ok")

    def asked() -> bool:
        return bool(page.evaluate("document.querySelectorAll('#mine button').length > 0"))

    wait_until(asked, 60, "the seat's own moves offered", 0.25)
    buttons = page.evaluate("document.querySelectorAll('#mine button').length")
    assert buttons <= 6, buttons  # many of one kind are one select, not a button each
    page.screenshot(path=str(ARTIFACTS / "board-minewagons-seat.png"))
    top = page.locator("#mat").bounding_box()
    assert top is not None and top["y"] < PHONE["height"] - 150, top  # the board on screen
    page.close()
