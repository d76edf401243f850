"""The page a family reads in the middle of a game (issues 39 and 41), in real Chromium at 390 x
844: for each of the four games the bots play a whole game briskly on the simulated table while
six phones follow it: Ann's seat, a spectator and the host in English, and Bob's seat in German,
a spectator in French and the host in Spanish (each by its browser's language). Every few moments
each page's words are scanned for program code and codes, and the German, French and Spanish
pages for English words; a screenshot of each English view mid-game is kept in
.artifacts/midgame-<game>-<view>.png (the ones in docs/phone-page.md come from here)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.support.english import english_in
from tests.support.serving import free_port, running

pytestmark = pytest.mark.xdist_group("midgame")  # the module on one worker: one browser
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
PIN = "2468"
HOST = {"X-Table-Pin": PIN}
PLAYERS = {"offtherails": 3, "trickoftherails": 3, "derailed": 2, "minewagons": 2}
NAMES = ("Ann", "Bob", "Cy")
GAME_S = 150.0  # the longest a brisk bot game is followed
LOOK_EVERY_S = 1.0

# What no person should read on a phone: what a program prints, and the rules' codes.
CODE = {
    "a call": re.compile(r"\b[a-z_]+\((?:[a-z_]+=|\))"),
    "a field": re.compile(r"\b[a-z_]{2,}=[\w.-]"),
    "a snake_case name": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "a card or place id": re.compile(
        r"\b(?:bo|co|erie|nyc|prr)-(?:\d|exchange)|\b(?:city|loco)-\w|\b(?:lane|seat|rail)\.\w|"
        r"\bstart-\d|\bdest-\d|\b(?:junction|curves|double|straight|cross)-[A-Z]"
    ),
    "an exit code": re.compile(r"\bexits? [NESW]{1,4}\b|\b[LTRB](?:-[LTRB])+\b|\bturned [NESW]\b"),
    "a tile id": re.compile(r"\b\w+/\w+ tile\b|\(\w+/\w+\)"),
    "a seat number": re.compile(r"\bseats? \d"),
    "one, plural": re.compile(r"\b1 (?:[A-Z][\w&]* )?(?:wagon|share|point|jewel|gem|card|"
                              r"minecart|tile|move|trick|rubie|diamond|emerald|player|round|"
                              r"turn|chasm|mission|railway|space|square)s\b"),
    "a traceback": re.compile(r"Traceback|Error:|Exception\b"),
}  # fmt: skip

# `railtable serve` with its bots playing briskly (no camera to draw), one game of argv's. The six
# phones all come from this machine's one address: the cap on an address's connections (32; a
# phone opens 7 at most) is raised to what six phones with their own addresses would have.
BRISK = """
import asyncio, sys
from pathlib import Path
import controller.api.server
controller.api.server.CONNECTIONS_PER_ADDRESS = 64
from controller.serve import listen, run_service
from controller.simulated.bots import Bots, BotStep
from controller.table.service import ServiceSettings
data, port, game, players = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[4], int(sys.argv[5])
play = Bots.go  # the bots wait for the phones to be open (six take seconds on a busy machine)
Bots.go = lambda self: play(self) if (data / "phones-open").exists() else BotStep.WAITED
settings = ServiceSettings(data_dir=data, pin=sys.argv[3], game=game, players=players, seed=3,
                           camera="none", tick_s=0.02, bot_period_s=0.8)
asyncio.run(run_service(settings, listen("127.0.0.1", port), f"http://127.0.0.1:{port}/"))
"""


TO_TOP = "window.scrollTo(0, 0)"
TO_HOST = "document.querySelector('#host').scrollIntoView()"  # the host's controls


def _serve(data: Path, game: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-c", BRISK, str(data), str(port), PIN, game, str(PLAYERS[game])]
    return running(command, url), url


# The phones in another language: view -> the browser's language.
ABROAD = {"seat-de": "de-DE", "spectator-fr": "fr-FR", "host-es": "es-ES"}
# What stays as it is in every language: the product's and the published games' names.
UNSAID = ("railtable", "English", "Off the Rails", "Trick of the Rails", "Derailed!", *NAMES)


def _phone(browser: Browser, locale: str = "en-GB") -> Page:
    page = browser.new_page(viewport={"width": 390, "height": 844}, locale=locale)
    return page


def _english(page: Page, text: str) -> list[str]:
    """The English words on a page in another language, once its untranslated parts (the
    game's title, marked translate="no") and the players' names are taken out."""
    kept = page.evaluate("[...document.querySelectorAll('[translate=no]')].map(e => e.innerText)")
    for name in sorted((*kept, *UNSAID), key=len, reverse=True):
        text = text.replace(name, " ")
    return [line for line in text.splitlines() if english_in(line)]  # each line it is in


def _words(page: Page) -> str:
    """All the page's words, folded parts opened."""
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    text = page.inner_text("body")
    page.evaluate("document.querySelectorAll('details.fold').forEach(d => d.open = false)")
    return text


def slips(text: str) -> dict[str, list[str]]:
    """What of `text` reads as program code or a code, by kind."""
    return {what: [m.group(0) for m in rx.finditer(text)] for what, rx in CODE.items()
            if rx.search(text)}  # fmt: skip


def test_the_scan_finds_what_a_program_prints() -> None:
    assert set(slips("take_jewel(jewel=ruby)")) >= {"a call", "a field", "a snake_case name"}
    assert "an exit code" in slips("play junction L-T, dead end R-B on D2")
    assert "an exit code" in slips("the tile lies with exits NW; junction T-R-B turned N")
    assert "a tile id" in slips("straight track (straight/t tile)")
    assert "one, plural" in slips("1 wagons, 1 Erie shares")
    assert slips("Ann has 1 wagon, 1 bonus and 2 Erie shares; put the ruby back on F7") == {}


def _as_seat(page: Page, url: str, seat: int) -> None:
    token = httpx.post(url + f"/api/seats/{seat}/token", headers=HOST, timeout=30).json()["token"]
    page.goto(f"{url}/?seat={token}")
    page.wait_for_selector(f"#me[data-role=seat][data-seat='{seat}']")
    if page.locator("#join-ok").is_visible():
        page.click("#join-ok")  # "Who is playing here?": the player the host named


def _as_host(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#me[data-role]", state="attached")  # the page has drawn
    page.locator("#host > summary").click()
    page.fill("#pin", PIN)
    page.press("#pin", "Tab")
    page.wait_for_selector("#me[data-role=host]")


def _open(browser: Browser, url: str, players: int) -> dict[str, Page]:
    for seat in range(players):
        named = httpx.post(url + f"/api/seats/{seat}/player", json={"name": NAMES[seat]},
                           headers=HOST, timeout=30)  # fmt: skip
        assert named.status_code == 200, named.text
    phones = {"seat": _phone(browser), "spectator": _phone(browser), "host": _phone(browser)}
    phones |= {view: _phone(browser, locale) for view, locale in ABROAD.items()}
    _as_seat(phones["seat"], url, 0)
    assert phones["seat"].inner_text("#me") == "you are Ann"
    _as_seat(phones["seat-de"], url, 1)
    for view in ("spectator", "spectator-fr"):
        phones[view].goto(url + "/")
    for view in ("host", "host-es"):
        _as_host(phones[view], url)
    assert phones["host"].inner_text("#me") == "host"
    return phones


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_whole_bot_game_reads_in_words_on_every_phone(
    tmp_path: Path, browser: Browser, game: str
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    process, url = _serve(tmp_path, game)
    try:
        phones = _open(browser, url, PLAYERS[game])
        (tmp_path / "phones-open").touch()  # the bots play from now
        found: dict[str, set[str]] = {}
        provisional: set[str] = set()  # the score lines marked as counted only at the end
        looks, shot, start = 0, False, time.monotonic()
        while time.monotonic() - start < GAME_S:
            over = httpx.get(url + "/api/status", timeout=30).json()["game"] is None
            for view, page in phones.items():
                text = _words(page)
                for what, seen in slips(text).items():
                    found.setdefault(f"{view}: {what}", set()).update(seen)
                if view in ABROAD and (english := _english(page, text)):
                    found.setdefault(f"{view}: English", set()).update(english)
                if view not in ABROAD:
                    provisional.update(page.locator(".made.provisional").all_text_contents())
            looks += 1
            if not shot and (looks >= 3 or over):  # six phones: a look takes a few seconds
                for view, page in phones.items():
                    if view in ABROAD:
                        continue
                    page.evaluate(TO_TOP if view != "host" else TO_HOST)
                    page.screenshot(path=str(ARTIFACTS / f"midgame-{game}-{view}.png"))
                shot = True
            if over:
                break
            phones["spectator"].wait_for_timeout(LOOK_EVERY_S * 1000)
        assert looks >= 3, "the game was followed"
        assert found == {}, found
        if game == "offtherails":  # the minecart bonus is shown apart, as a condition
            assert any(re.fullmatch(r"\(\+\d+ if .*minecart.* at the end.*\)", line)
                       for line in provisional), provisional  # fmt: skip
        for page in phones.values():
            page.close()
    finally:
        process.terminate()
        process.wait(10)
