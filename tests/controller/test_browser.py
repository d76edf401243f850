"""The phone page in real headless Chromium (Debian's package) against the running service on the
simulated table. Screenshots at phone size are kept in .artifacts/ for a person to look at."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".artifacts"
CHROMIUM = "/usr/bin/chromium"
MAIN = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"
PIN = "2468"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(data: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            MAIN,
            "serve",
            "--data",
            str(data),
            "--port",
            str(port),
            "--seed",
            "5",
            "--players",
            "2",
            "--pin",
            PIN,
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/status", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    return process, url


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = _serve(tmp_path_factory.mktemp("table"))
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def quiet_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A simulated table without bots: only the test's players act."""
    process, url = _serve(tmp_path_factory.mktemp("quiet"), "--no-bots")
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        yield chromium
        chromium.close()


def _phone(browser: object) -> Page:
    return browser.new_page(viewport={"width": 412, "height": 915})  # type: ignore[attr-defined, no-any-return]


def _pieces(page: Page) -> int:
    return int(page.eval_on_selector("#mat", "svg => svg.querySelectorAll('line, circle').length"))


def test_a_spectator_sees_the_board_change_as_the_bots_play(table: str, browser: object) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = _phone(browser)
    page.goto(table + "/")
    page.wait_for_function("document.querySelector('#mat').childElementCount > 100", timeout=20000)
    first = _pieces(page)
    events = page.locator("#events li").count()
    page.wait_for_function(
        f"document.querySelectorAll('#events li').length > {events}", timeout=30000
    )
    page.wait_for_timeout(1500)
    page.screenshot(path=str(ARTIFACTS / "phone-spectator.png"))
    assert page.locator("#me").inner_text() == "spectator"
    assert "Off the Rails" in page.locator("#title").inner_text()
    assert _pieces(page) != first or page.locator("#events li").count() > events


def test_the_host_undoes_a_move_from_the_page(table: str, browser: object) -> None:
    page = _phone(browser)
    page.goto(table + "/")
    page.locator("#host summary").click()
    page.fill("#pin", PIN)
    before = len(httpx.get(table + "/api/events?after=0").json())
    page.click("#undo")
    page.wait_for_timeout(1000)
    kinds = [e["kind"] for e in httpx.get(table + "/api/events?after=0").json()]
    page.screenshot(path=str(ARTIFACTS / "phone-host.png"))
    assert len(kinds) > before and "undo" in kinds


def test_a_player_joins_by_the_seat_link_and_answers(quiet_table: str, browser: object) -> None:
    token = httpx.post(quiet_table + "/api/seats/0/token", headers={"X-Table-Pin": PIN}).json()
    page = _phone(browser)
    page.goto(f"{quiet_table}/?seat={token['token']}")
    page.wait_for_function("document.querySelector('#me').textContent === 'seat 0'")
    page.get_by_role("button", name="choose_side(side=north)").click()
    page.wait_for_function(
        "document.querySelector('#turn').textContent !== 'seat 0 to act'"
        " || document.querySelectorAll('#mine button').length > 24"
        " || !document.querySelector('#mine').textContent.includes('choose_side')"
    )
    page.screenshot(path=str(ARTIFACTS / "phone-seat.png"))
    events = httpx.get(quiet_table + "/api/events?after=0").json()
    chosen = [
        e for e in events if e["kind"] == "action" and e["data"]["action"]["type"] == "choose_side"
    ]
    assert chosen and chosen[0]["seat"] == 0 and chosen[0]["data"]["action"]["side"] == "north"


def test_the_host_starts_a_game_with_options_and_sees_the_camera(
    table: str, browser: object
) -> None:
    page = _phone(browser)
    page.goto(table + "/")
    page.locator("#host summary").click()
    page.fill("#pin", PIN)
    page.wait_for_function("document.querySelectorAll('#game option').length >= 3")
    page.select_option("#game", "offtherails")
    page.fill("#players", "2")
    page.fill("#options", '{"bumper_carts": true}')
    before = httpx.get(table + "/api/status").json()["game"]["id"]
    page.click("#start")
    page.wait_for_timeout(1000)
    game = httpx.get(table + "/api/status").json()["game"]
    assert game["id"] != before and game["players"] == 2
    page.click("#camera-view")
    page.wait_for_function(
        "!document.querySelector('#camera-img').hidden"
        " && document.querySelector('#camera-img').naturalWidth > 0"
    )
    page.screenshot(path=str(ARTIFACTS / "phone-host-camera.png"), full_page=True)
