"""The phone page as a family reads it (issue 21), in real Chromium at 390 x 844 against one
running service on the simulated table, for each of the four games: players' names and colours,
the board's coordinates, words from the players' side (no card code, location id, seed or file
path, no phrase said twice), the end screen, a confirmation before ending a game, and a phone
that stays joined across a restart. Screenshots go to .artifacts/family-*.png."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.support.serving import MAIN, free_port, running

pytestmark = pytest.mark.xdist_group("family")  # the module on one worker: its fixtures once
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
PIN = "2468"
HOST = {"X-Table-Pin": PIN}
PLAYERS = {"offtherails": 2, "trickoftherails": 3, "derailed": 2, "minewagons": 2}
NAMES = ("Ann", "Bob", "Cy")

# What a family must never read on the page: the rules' ids and the service's insides.
NEVER = {
    "a card code": re.compile(r"\b(?:bo|co|erie|nyc|prr)-(?:\d|exchange)|\b(?:city|loco)-\w|"
                              r"\b(?:junction|curves|double|straight|cross)-[A-Z]"),
    "a location id": re.compile(r"\b(?:lane|seat|rail|loco)\.\w|\bstart-\d|\bdest-\d"),
    "a seat number": re.compile(r"\bseats? \d"),
    "a seed": re.compile(r"\bseed \d"),
    "a file path": re.compile(r"\w/\w+\.(?:json|py|toml)\b|rules/\w|/data\b"),
    "a doubled phrase": re.compile(r"(?i)\b([a-z][a-z ,']{7,}?)(?:[:;,] |\s+)\1\b"),
    "a for an": re.compile(r"\ba [aeio][a-z]"),
    "a doubled word": re.compile(r"(?i)\b([a-z]{3,}) \1\b"),
}  # fmt: skip


# The board's coordinates that lie on a place of the mat (a square, a card, a slot), as drawn.
ON_A_PLACE = """() => {
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
                         a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const places = [...document.querySelectorAll('#mat .place > rect')]
    .map((r) => r.getBoundingClientRect());
  return [...document.querySelectorAll('#mat .coord')]
    .filter((t) => places.some((p) => meet(t.getBBox && t.getBoundingClientRect(), p)))
    .map((t) => t.textContent);
}"""


def _serve(data: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    return running(
        [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--port", str(port),
         "--host", "127.0.0.1", "--pin", PIN, "--bot-pace", "1", "--seed", "3", *extra],
        f"http://127.0.0.1:{port}",
    )  # fmt: skip


# `railtable serve` with its bots playing briskly on the sensor board alone (no camera to draw):
# a whole two-player game of Derailed! in seconds, as `railtable bench table` plays them.
BRISK = """
import asyncio, sys
from pathlib import Path
from controller.serve import listen, run_service
from controller.table.service import ServiceSettings
data, port = Path(sys.argv[1]), int(sys.argv[2])
settings = ServiceSettings(data_dir=data, pin=sys.argv[3], game="derailed", players=2, seed=3,
                           camera="none",
                           tick_s=0.02, bot_period_s=0.3)
asyncio.run(run_service(settings, listen("127.0.0.1", port), f"http://127.0.0.1:{port}/"))
"""


def _serve_brisk(data: Path, port: int) -> subprocess.Popen[bytes]:
    return running(
        [sys.executable, "-c", BRISK, str(data), str(port), PIN], f"http://127.0.0.1:{port}"
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One service with bots for every game of the module."""
    port = free_port()
    process = _serve(tmp_path_factory.mktemp("family"), port, "--players", "2")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def _phone(browser: Any) -> Page:
    page: Page = browser.new_page(viewport={"width": 390, "height": 844})
    return page


def _start(url: str, game: str, **options: Any) -> int:
    body = {"game": game, "options": {"players": PLAYERS[game], **options}, "seed": 3}
    r = httpx.post(url + "/api/games", json=body, headers=HOST, timeout=30)
    assert r.status_code == 200, r.text
    for seat in range(PLAYERS[game]):
        named = httpx.post(
            url + f"/api/seats/{seat}/player", json={"name": NAMES[seat]}, headers=HOST
        )
        assert named.status_code == 200, named.text
    return int(r.json()["game_id"])


def _everything(page: Page) -> str:
    """All the page's words, folded parts opened."""
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    return page.inner_text("body")


def _slips(text: str) -> dict[str, list[str]]:
    return {
        what: [m.group(0) for m in rx.finditer(text)]
        for what, rx in NEVER.items()
        if rx.search(text)
    }


@pytest.mark.parametrize("game", list(PLAYERS))
def test_a_family_reads_each_game_at_a_glance(table: str, browser: Any, game: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    _start(table, game)
    page = _phone(browser)
    page.goto(table + "/")
    page.wait_for_function("document.querySelectorAll('#mat .place').length > 10", timeout=20000)
    page.wait_for_function("document.querySelector('#scores').textContent.includes('Bob')")
    page.wait_for_timeout(6000)  # the bots play a few moves
    page.screenshot(path=str(ARTIFACTS / f"family-{game}.png"))
    # names and colours: each player's name with a swatch of their colour, in the scores
    tags = page.eval_on_selector_all(
        "#scores .who",
        "ws => ws.map(w => [w.textContent, w.querySelector('.swatch').style.background])",
    )
    assert {t for t, _ in tags} >= set(NAMES[: PLAYERS[game]]), tags
    assert all(colour for _, colour in tags)
    # the board's coordinates: every place the words name is written on the board
    text = _everything(page)
    coords = set(page.eval_on_selector_all("#mat .coord", "ts => ts.map(t => t.textContent)"))
    places = set(page.eval_on_selector_all("#mat .place", "gs => gs.map(g => g.dataset.place)"))
    squares = set(re.findall(r"\b([A-L])(1[0-2]|[1-9])\b", text))
    if game == "trickoftherails":
        assert not coords
        named = re.findall(r"trick lane space \d+|the \w+&?\w* railway, (?:left|right) \d+", text)
        assert all(n in places for n in named), (named, places)
        labels = page.eval_on_selector_all("#mat .slot-name", "ts => ts.map(t => t.textContent)")
        assert "13" in labels  # the railways' spaces numbered on the board
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
        lane = page.eval_on_selector_all(
            "#mat .place[data-place^='trick lane space']",
            "gs => gs.map(g => g.querySelector('title').textContent)"
            ".filter(t => !t.endsWith(': empty') && !t.includes('reservation'))"
            ".map(t => t.split(': ')[0])",
        )  # a card with a value and a name (the bots may have taken the first spaces' already)
        spot = min(lane, key=lambda place: int(place.rsplit(" ", 1)[1]))
        page.locator(f"#mat .place[data-place='{spot}']").click()  # a card seen whole
        assert page.locator("#close-up-h").inner_text() == spot[0].upper() + spot[1:]
        assert page.locator("#close-up-mat text").count() >= 2, (
            spot,
            lane,
            page.inner_text("#close-up-words"),
            page.eval_on_selector_all("#close-up-mat text", "ts => ts.map(t => t.textContent)"),
        )
        page.screenshot(path=str(ARTIFACTS / "family-trick-card.png"))
        page.get_by_role("button", name="Close").click()
    else:
        assert coords and all(c in coords and r in coords for c, r in squares), (squares, coords)
    assert _slips(text) == {}, _slips(text)
    assert page.evaluate(ON_A_PLACE) == [], "a coordinate lies on a square, card or slot"
    page.screenshot(path=str(ARTIFACTS / f"family-{game}-full.png"), full_page=True)
    page.close()


def test_the_host_is_asked_before_ending_a_game_and_everyone_sees_who_won(
    table: str, browser: Any
) -> None:
    _start(table, "offtherails")
    page = _phone(browser)
    page.goto(table + "/")
    page.locator("#host > summary").click()
    page.fill("#pin", PIN)
    page.press("#pin", "Tab")
    page.wait_for_function("document.querySelector('#me').textContent === 'host'")
    page.click("#end")
    assert page.locator("#confirm").is_visible()
    assert "End this game?" in page.locator("#confirm").inner_text()
    page.get_by_role("button", name="Keep playing").click()
    page.wait_for_timeout(500)
    assert httpx.get(table + "/api/status").json()["game"] is not None  # nothing ended
    page.click("#end")
    page.get_by_role("button", name="End the game").click()
    page.wait_for_selector("#finished:not([hidden])", timeout=10000)
    shown = page.locator("#finished").inner_text()
    assert "wins" in shown or "share the win" in shown
    assert "Ann" in shown and "Bob" in shown and "ended by the host" in shown
    assert not page.locator("#again").is_hidden()  # the host may play again
    page.screenshot(path=str(ARTIFACTS / "family-confirm-end.png"), full_page=True)
    page.close()


def test_a_phone_stays_joined_across_a_restart(
    tmp_path_factory: pytest.TempPathFactory, browser: Any
) -> None:
    data, port = tmp_path_factory.mktemp("restart"), free_port()
    url = f"http://127.0.0.1:{port}"
    process = _serve(data, port, "--no-bots", "--game", "trickoftherails", "--players", "3")
    try:
        token = httpx.post(url + "/api/seats/1/token", headers=HOST).json()["token"]
        page = _phone(browser)
        page.goto(f"{url}/?seat={token}")
        page.wait_for_selector("#join:not([hidden])")
        assert "seat=" not in page.url  # the token left the address bar
        page.fill("#join-name", "Bob")
        page.locator("#join-colours button", has_text="teal").click()
        page.click("#join-ok")
        page.wait_for_function("document.querySelector('#me').textContent === 'you are Bob'")
        page.wait_for_function("document.querySelectorAll('#private svg.card').length > 0")
        page.screenshot(path=str(ARTIFACTS / "family-seat.png"), full_page=True)
        hand = page.locator("#private").inner_text()
        assert _slips(hand) == {} and "Your hand" in hand
        process.terminate()
        process.wait(10)
        process = _serve(data, port, "--no-bots")
        page.reload()
        page.wait_for_function("document.querySelector('#me').textContent === 'you are Bob'")
        assert "seat=" not in page.url
        r = httpx.post(url + "/api/seats/1/player", json={"name": "Bobby"},
                       headers={"X-Seat-Token": token})  # fmt: skip
        assert r.status_code == 200, r.text  # the token still acts after the restart
        page.close()
    finally:
        process.terminate()
        process.wait(10)


def _ended(page: Page) -> str:
    page.wait_for_selector("#finished:not([hidden])", timeout=90000)
    return page.locator("#finished").inner_text()


def test_a_bot_game_played_to_its_end_shows_who_won_on_every_phone_until_the_next(
    tmp_path_factory: pytest.TempPathFactory, browser: Any
) -> None:
    """The bots play a whole game on the simulated table; every phone (a spectator, each
    player's, the host's) shows the winner and the final scores with their parts, which stay,
    across a restart of the service too, until the host starts another game."""
    data, port = tmp_path_factory.mktemp("end"), free_port()
    url = f"http://127.0.0.1:{port}"
    process = _serve_brisk(data, port)  # a new table: its default game starts, the bots play
    try:
        phones = {"spectator": _phone(browser)}
        for seat, name in enumerate(NAMES[:2]):
            r = httpx.post(url + f"/api/seats/{seat}/player", json={"name": name}, headers=HOST)
            assert r.status_code == 200, r.text
            token = httpx.post(url + f"/api/seats/{seat}/token", headers=HOST).json()["token"]
            phones[name] = _phone(browser)
            phones[name].goto(f"{url}/?seat={token}")
        phones["spectator"].goto(url + "/")
        phones["host"] = host = _phone(browser)
        host.goto(url + "/")
        host.locator("#host > summary").click()
        host.fill("#pin", PIN)
        host.press("#pin", "Tab")
        for name in NAMES[:2]:
            phones[name].wait_for_function(
                f"document.querySelector('#me').textContent === 'you are {name}'"
            )
        shown = {who: _ended(page) for who, page in phones.items()}
        status = httpx.get(url + "/api/status").json()
        assert status["game"] is None
        finished = status["finished"]
        winners = [NAMES[s] for s in finished["winners"]]
        assert finished["reason"] == "all three rounds are played"  # not ended by the host
        assert len(set(finished["scores"])) == 2 and all(finished["score_parts"])
        for who, text in shown.items():
            assert all(w in text for w in winners) and ("wins!" in text or "share the win" in text)
            assert "Ann" in text and "Bob" in text and "Why it ended: " in text, (who, text)
            assert _slips(text) == {}, (who, _slips(text))
        rows = phones["spectator"].eval_on_selector_all(
            "#finished-scores tbody tr",
            "rs => rs.map(r => ['.who', '.made', '.points']"
            "  .map(c => r.querySelector(c).textContent))",
        )
        assert len(rows) == 2
        for who, made, points in rows:
            seat = NAMES.index(who)
            assert float(points) == finished["scores"][seat]
            parts = finished["score_parts"][seat]
            assert sum(p["points"] for p in parts) == finished["scores"][seat]
            assert all(f"{p['what']}: {p['points']:g}" in made for p in parts), (made, parts)
        assert phones["host"].locator("#again").is_visible()
        assert phones["spectator"].locator("#again").is_hidden()
        phones["Ann"].screenshot(path=str(ARTIFACTS / "family-end-bots.png"), full_page=True)
        winner = phones["spectator"].locator("#finished-winner").inner_text()
        phones["spectator"].wait_for_timeout(2000)  # it stays
        assert phones["spectator"].locator("#finished").is_visible()
        # a restart: no game starts by itself, the end screen is there again
        process.terminate()
        process.wait(10)
        process = _serve_brisk(data, port)
        assert httpx.get(url + "/api/status").json()["game"] is None
        for who in ("spectator", "Ann"):
            phones[who].reload()
            text = _ended(phones[who])
            assert phones[who].locator("#finished-winner").inner_text() == winner
            assert "Ann" in text and "Bob" in text
        host.reload()  # its host session outlives the restart: no PIN again (nor a PIN field)
        host.wait_for_function("document.querySelector('#me').textContent === 'host'")
        assert host.locator("#pin-entry").is_hidden()
        assert _ended(host)
        host.click("#again")  # the host starts the next game: the end screen goes
        phones["spectator"].wait_for_function(
            f"(f => f.hidden || f.dataset.game !== '{finished['id']}')"
            "(document.querySelector('#finished'))",
            timeout=20000,
        )
        status = httpx.get(url + "/api/status").json()
        started = status["game"]["id"] if status["game"] else status["finished"]["id"]
        assert started > finished["id"]
        for page in phones.values():
            page.close()
    finally:
        process.terminate()
        process.wait(10)
