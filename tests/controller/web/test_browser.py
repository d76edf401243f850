"""The phone page in real headless Chromium (Debian's package) against the running service on the
simulated table. Screenshots at phone size are kept in .artifacts/ for a person to look at."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from subprocess import Popen
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.support.serving import MAIN, free_port, running
from tests.support.waiting import wait_until

pytestmark = pytest.mark.xdist_group("browser")  # the module on one worker: its fixtures once
ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / ".artifacts"
PIN = "2468"


def _serve(data: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--port", str(port),
               "--seed", "5", "--players", "2", "--pin", PIN, "--bot-pace", "1",
               *extra]  # fmt: skip
    return running(command, url), url


def _cart_said(cart: str) -> str:
    """A minecart's id ("red-white") as the page says it ("red minecart with the white die")."""
    colour, die = cart.split("-")
    return f"{colour} minecart with the {die} die"


ANSWER_S = 30.0  # how long the served table may take to answer beside another test worker


def _get(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(url, timeout=ANSWER_S, **kwargs)


def _post(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(url, timeout=ANSWER_S, **kwargs)


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


def test_a_piece_felt_is_marked_before_the_camera_has_judged(table: str, browser: object) -> None:
    """A bot sets a minecart down: the sensor board's square is outlined on the phone at once,
    and said, while the camera still waits for still frames (docs/referee.md)."""
    page = _phone(browser)
    page.goto(table + "/")
    page.wait_for_function(
        "document.querySelector('#mat rect.loc.felt') !== null"
        " && document.querySelector('#mat').getAttribute('aria-label').includes('felt at')"
        " && document.querySelector('#verdict').textContent.includes(': checking it')",
        timeout=90000,
    )
    page.screenshot(path=str(ARTIFACTS / "phone-felt.png"))
    assert page.locator(".legend").inner_text().count("felt, being checked") == 1


def test_the_host_undoes_a_move_from_the_page(table: str, browser: object) -> None:
    page = _phone(browser)
    page.goto(table + "/")
    page.locator("#host > summary").click()
    page.fill("#pin", PIN)

    def players_moved() -> bool:  # a player's action to take back (a loaded machine may be slow)
        rows = _get(table + "/api/events?after=0").json()
        return any(e["kind"] == "action" and e.get("seat") is not None for e in rows)

    wait_until(players_moved, 60, "a player's move to undo", every=0.2)
    before = len(_get(table + "/api/events?after=0").json())
    page.click("#undo")
    page.click("#confirm-yes")  # the host is asked first

    def kinds() -> list[str]:
        return [e["kind"] for e in _get(table + "/api/events?after=0").json()]

    class _Said:  # what the page said, read when the wait fails
        def __str__(self) -> str:
            said = page.eval_on_selector_all(
                ".said, #problem:not([hidden]), #pin-why:not([hidden])",
                "boxes => boxes.map(b => b.textContent).join(' | ')",
            )
            return f"the host's undo in the log (the page said: {said!r})"

    wait_until(lambda: "undo" in kinds(), 30, _Said(), every=0.2)
    page.screenshot(path=str(ARTIFACTS / "phone-host.png"))
    assert len(kinds()) > before


def test_a_player_joins_by_the_seat_link_and_answers(quiet_table: str, browser: object) -> None:
    token = _post(quiet_table + "/api/seats/0/token", headers={"X-Table-Pin": PIN}).json()
    page = _phone(browser)
    page.goto(f"{quiet_table}/?seat={token['token']}")
    page.wait_for_function("document.querySelector('#me').textContent === 'you are Player 1'")
    page.get_by_role("button", name="choose the north side").click()
    page.wait_for_function(
        "document.querySelector('#turn').textContent !== \"Player 1's turn\""
        " || document.querySelectorAll('#mine button').length > 24"
        " || !document.querySelector('#mine').textContent.includes('choose the')"
    )
    page.screenshot(path=str(ARTIFACTS / "phone-seat.png"))
    chosen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 10
    while not chosen and time.monotonic() < deadline:  # the tap's POST may still be on its way
        events = _get(quiet_table + "/api/events?after=0").json()
        chosen = [
            e
            for e in events
            if e["kind"] == "action" and e["data"]["action"]["type"] == "choose_side"
        ]
        time.sleep(0.1)
    assert chosen and chosen[0]["seat"] == 0 and chosen[0]["data"]["action"]["side"] == "north"


def test_the_host_starts_a_game_with_options_and_sees_the_camera(
    table: str, browser: object
) -> None:
    page = _phone(browser)
    page.goto(table + "/")
    page.locator("#host > summary").click()
    page.fill("#pin", PIN)
    page.wait_for_function("document.querySelectorAll('#game option').length >= 3")
    page.select_option("#game", "offtherails")
    page.select_option("#opt-players", "2")
    page.locator("#more-options > summary").click()  # the short form: the rest folded
    page.check("#opt-bumper_carts")
    before = _get(table + "/api/status").json()["game"]["id"]
    page.click("#start")
    page.click("#confirm-yes")  # a game is open: the host is asked first
    page.wait_for_timeout(1000)
    game = _get(table + "/api/status").json()["game"]
    assert game["id"] != before and game["players"] == 2
    state = _get(table + "/api/state").json()
    assert state["view"]["options"]["bumper_carts"] is True
    page.locator("#camera-panel summary").click()
    page.click("#camera-view")
    page.wait_for_function(
        "!document.querySelector('#camera-img').hidden"
        " && document.querySelector('#camera-img').naturalWidth > 0"
    )
    page.screenshot(path=str(ARTIFACTS / "phone-host-camera.png"), full_page=True)
    # The PIN was entered once: it opened a host session (the field is empty again), which the
    # page keeps across a reload, with no PIN typed, until the host ends it.
    assert page.input_value("#pin") == "" and page.locator("#session").is_visible()
    page.reload()
    page.wait_for_function("document.querySelector('#me').textContent === 'host'")
    page.locator("#host > summary").click()
    assert page.input_value("#pin") == ""
    with page.expect_response("**/api/table/accept") as accepted:
        page.click("#accept")  # a host's change, by the session alone
    assert accepted.value.status == 200
    page.click("#end-session")
    page.wait_for_function("document.querySelector('#me').textContent === 'spectator'")
    page.reload()
    page.wait_for_function("document.querySelector('#me').textContent === 'spectator'")


def _sensor_service(data: Path) -> Iterator[tuple[str, Popen[str]]]:
    """The service on a virtual sensor board (no camera) that the test moves pieces on: what a
    table with only the board under the mat sees, a magnet and not which piece."""
    board = subprocess.Popen(
        [sys.executable, "-c", MAIN, "sim-board", "--rows", "12", "--cols", "12"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert board.stdout is not None
    path = board.stdout.readline().strip()
    process, url = _serve(data, "--no-bots", "--camera", "none", "--board", path)
    try:
        yield url, board
    finally:
        process.terminate()
        process.wait(10)
        board.terminate()
        board.wait(10)


@pytest.fixture(scope="module")
def sensor_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Popen[str]]]:
    yield from _sensor_service(tmp_path_factory.mktemp("sensors"))


@pytest.fixture(scope="module")
def host_sensor_table(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Popen[str]]]:
    yield from _sensor_service(tmp_path_factory.mktemp("host-sensors"))


def test_a_player_answers_the_referees_question_from_the_seat_page(
    sensor_table: tuple[str, Popen[str]], browser: object
) -> None:
    url, board = sensor_table
    token = _post(url + "/api/seats/0/token", headers={"X-Table-Pin": PIN}).json()
    spectator = _phone(browser)
    spectator.goto(url + "/")
    page = _phone(browser)
    page.goto(f"{url}/?seat={token['token']}")
    page.wait_for_function("document.querySelector('#me').textContent === 'you are Player 1'")
    page.get_by_role("button", name="choose the north side").click()  # the referee asks it
    page.wait_for_function(
        "!document.querySelector('#mine').textContent.includes('choose the')"
        " && !document.querySelector('#question').textContent.includes('choose the')"
    )
    assert board.stdin is not None
    board.stdin.write("place 0 5\n")  # a minecart on F12: the board cannot tell which one
    board.stdin.flush()
    page.wait_for_selector("#question button", timeout=20000)
    options = page.locator("#question button").all_inner_texts()
    assert len(options) >= 2 and all("F12" in o for o in options), options
    spectator.wait_for_function(
        "document.querySelector('#verdict').textContent.includes('Player 1')"
    )
    assert spectator.locator("#question button").count() == 0  # the question is seat 0's alone
    page.screenshot(path=str(ARTIFACTS / "phone-seat-question.png"))
    chosen = options[1]
    page.locator("#question button").nth(1).click()
    page.wait_for_function("document.querySelectorAll('#question button').length === 0")
    actions = [
        e["data"]["action"]
        for e in _get(url + "/api/events?after=0").json()
        if e["kind"] == "action" and e["seat"] == 0
    ]
    assert actions[-1]["type"] == "place_cart" and actions[-1]["square"] == "F12"
    assert _cart_said(actions[-1]["cart"]) in chosen
    page.wait_for_function("document.querySelector('#mat [data-name=F12] .loc.last') !== null")


def test_a_seat_sees_its_own_hand_and_a_spectator_none(quiet_table: str, browser: object) -> None:
    host = {"X-Table-Pin": PIN}
    r = _post(
        quiet_table + "/api/games",
        json={"game": "trickoftherails", "options": {"players": 3}, "seed": 3},
        headers=host,
    )
    assert r.status_code == 200, r.text
    token = _post(quiet_table + "/api/seats/1/token", headers=host).json()["token"]
    page = _phone(browser)
    page.goto(f"{quiet_table}/?seat={token}")
    page.wait_for_function("!document.querySelector('#private').hidden", timeout=20000)
    hand = _get(quiet_table + "/api/state", headers={"X-Seat-Token": token}).json()
    text = page.locator("#private").inner_text()
    assert "Your hand" in text and not any(card in text for card in hand["private"]["hand"])
    assert page.locator("#private svg.card").count() == len(hand["private"]["hand"])
    page.screenshot(path=str(ARTIFACTS / "phone-seat-hand.png"), full_page=True)
    spectator = _phone(browser)
    spectator.goto(quiet_table + "/")
    spectator.wait_for_function("document.querySelector('#title').textContent.includes('Trick')")
    spectator.wait_for_timeout(500)
    assert spectator.locator("#private").is_hidden()
    assert hand["private"]["hand"][0] not in spectator.content()


def test_the_page_reads_without_colour_and_to_a_screen_reader(table: str, browser: object) -> None:
    page = _phone(browser)
    page.goto(table + "/")
    page.wait_for_function("document.querySelector('#mat').childElementCount > 100", timeout=20000)
    page.wait_for_function("document.querySelectorAll('#mat text').length > 0", timeout=30000)
    # every control has a name a screen reader can say
    unnamed = page.eval_on_selector_all(
        "button, input, select",
        "els => els.filter(e => !(e.textContent.trim() || e.getAttribute('aria-label') ||"
        " (e.labels && e.labels.length))).map(e => e.outerHTML)",
    )
    assert unnamed == []
    assert page.get_attribute("#mat", "aria-label").startswith("the table:")  # type: ignore[union-attr]
    assert page.get_attribute("#verdict", "aria-live") == "assertive"
    # each piece carries a letter or a word, not colour alone; the table is also told in words
    letters = page.eval_on_selector_all("#mat text", "ts => ts.map(t => t.textContent)")
    assert letters and all(t.strip() for t in letters)
    page.locator("#words summary").click()
    words = page.locator("#words-list li").all_inner_texts()
    assert words and all(":" in w for w in words)
    # whatever lies on the table at that moment: a deposit's jewels, a minecart, a tile
    assert any(
        any(piece in w for piece in ("minecart", "tile", "track", "deposit")) for w in words
    ), words


def test_a_finished_game_is_replayed_step_by_step(quiet_table: str, browser: object) -> None:
    host = {"X-Table-Pin": PIN}
    _post(
        quiet_table + "/api/games",
        json={"game": "offtherails", "options": {"players": 2}, "seed": 4},
        headers=host,
    )
    _post(
        quiet_table + "/api/actions",
        json={"action": {"type": "choose_side", "side": "south"}},
        headers=host,
    )
    assert _post(quiet_table + "/api/games/current/end", headers=host).status_code == 200
    page = _phone(browser)
    page.goto(quiet_table + "/")
    page.locator("#history summary").click()
    page.get_by_role("button", name="Replay").first.click()
    page.wait_for_function("document.querySelector('#replay-where').textContent.includes('step 0')")
    page.click("#replay-next")
    page.wait_for_function("document.querySelector('#replay-where').textContent.includes('step 1')")
    assert "south" in page.locator("#replay-where").inner_text()
    assert page.eval_on_selector("#replay-mat", "svg => svg.childElementCount") > 100
    page.screenshot(path=str(ARTIFACTS / "phone-replay.png"), full_page=True)
    german = browser.new_page(viewport={"width": 390, "height": 844}, locale="de-DE")  # type: ignore[attr-defined]
    german.goto(quiet_table + "/")
    german.locator("#history summary").click()
    german.get_by_role("button", name="Ansehen").first.click()
    german.wait_for_function(
        "document.querySelector('#replay-where').textContent.includes('Schritt 0 von 1')"
    )
    german.click("#replay-next")
    german.wait_for_function(
        "document.querySelector('#replay-where').textContent.includes('Schritt 1 von 1')"
    )
    assert "Partie" in german.locator("#replay-title").inner_text()
    assert "Süden" in german.locator("#replay-where").inner_text()


def test_a_phone_that_lost_its_connection_catches_up_by_itself(
    quiet_table: str, browser: object
) -> None:
    host = {"X-Table-Pin": PIN}
    r = _post(
        quiet_table + "/api/games",
        json={"game": "offtherails", "options": {"players": 2}, "seed": 9},
        headers=host,
    )
    assert r.status_code == 200, r.text
    context = browser.new_context(viewport={"width": 412, "height": 915})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(quiet_table + "/")
    page.wait_for_function("document.querySelector('#turn').textContent === \"Player 1's turn\"")
    context.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    page.wait_for_timeout(500)
    moved = _post(
        quiet_table + "/api/actions",
        json={"action": {"type": "choose_side", "side": "west"}},
        headers=host,
    )
    assert moved.status_code == 200, moved.text
    page.wait_for_timeout(1000)
    context.set_offline(False)
    page.wait_for_function(
        "[...document.querySelectorAll('#events li')].some(li => li.textContent.includes('west'))",
        timeout=20000,
    )
    # and the page redrew from the new state: seat 0's minecarts now count
    page.wait_for_function("document.querySelector('#scores').textContent.includes('minecarts')")
    context.close()


def test_the_host_sees_a_seats_question_and_may_answer_it(
    host_sensor_table: tuple[str, Popen[str]], browser: object
) -> None:
    """The stream carries no PIN, so its view hides a seat's question from the host's phone as
    from anyone's; the page asks for the host's own verdict and offers the options."""
    url, board = host_sensor_table
    seat = _post(url + "/api/seats/0/token", headers={"X-Table-Pin": PIN}).json()
    choose = {"action": {"type": "choose_side", "side": "north"}}
    r = _post(url + "/api/actions", json=choose, headers={"X-Seat-Token": seat["token"]})
    assert r.status_code == 200, r.text
    page = _phone(browser)
    page.goto(url + "/")
    page.locator("#host > summary").click()
    page.fill("#pin", PIN)
    page.press("#pin", "Tab")  # the PIN is taken when the field is left
    page.wait_for_function("document.querySelector('#me').textContent === 'host'")
    assert board.stdin is not None
    board.stdin.write("place 0 5\n")  # a minecart on F12: the board cannot tell which one
    board.stdin.flush()
    page.wait_for_selector("#question button", timeout=20000)
    assert "Player 1 is asked" in page.locator("#question").inner_text()
    options = page.locator("#question button").all_inner_texts()
    assert len(options) >= 2 and all("F12" in o for o in options), options
    page.locator("#question button").first.click()
    page.wait_for_function("document.querySelectorAll('#question button').length === 0")
    actions = [
        e["data"]["action"]
        for e in _get(url + "/api/events?after=0").json()
        if e["kind"] == "action" and e["seat"] == 0
    ]
    assert actions[-1]["type"] == "place_cart" and _cart_said(actions[-1]["cart"]) in options[0]


def test_the_page_draws_from_the_stream_without_asking_again(table: str, browser: object) -> None:
    """While the bots play, a spectator's page asks the Pi for nothing: the stream brings it all."""
    page = _phone(browser)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(table)))
    page.goto(table + "/")
    page.wait_for_function("document.querySelector('#mat').childElementCount > 100", timeout=20000)
    page.wait_for_timeout(500)
    loaded = len(asked)
    events = page.locator("#events li").all_inner_texts()
    page.wait_for_function(
        f"[...document.querySelectorAll('#events li')].map(li => li.textContent).join()"
        f" !== {json.dumps(events)}.join()",
        timeout=30000,
    )
    page.wait_for_timeout(1500)
    assert asked[loaded:] == []
    assert not [u for u in asked if u.split("?")[0] in ("/api/table", "/api/state", "/api/verdict")]


def test_a_locked_out_host_is_told_why_and_for_how_long(tmp_path: Path, browser: object) -> None:
    """Other phones used up the table's wrong PINs: the host's PIN waits, and the page says so in
    words, counting down; the host's session opens once the lock-out is over. Last in the file: it
    waits a minute, in which the bots of the module's table would finish its game."""
    process, url = _serve(tmp_path, "--no-bots", "--camera", "none", "--board", "none")
    try:
        for address in ("127.0.0.2", "127.0.0.3"):  # other phones, five wrong PINs each
            transport = httpx.HTTPTransport(local_address=address)
            with httpx.Client(transport=transport) as guesser:
                for n in range(5):
                    r = guesser.get(url + "/api/status", headers={"X-Table-Pin": f"{n:04d}"})
                    assert r.status_code == 403
        page = _phone(browser)
        page.goto(url + "/")
        page.locator("#host > summary").click()
        page.fill("#pin", PIN)
        page.press("#pin", "Tab")
        page.wait_for_function("!document.querySelector('#pin-why').hidden")
        said = page.locator("#pin-why").inner_text()
        assert said.startswith(
            "Too many wrong PINs on this table, from other phones too: try again in"
        )
        shown = said.split("try again in ")[1].split(" s")[0]
        page.wait_for_function(  # counting down
            f"!document.querySelector('#pin-why').textContent.includes('in {shown} s')"
        )
        page.screenshot(path=str(ARTIFACTS / "phone-host-locked-out.png"))
        page.wait_for_function(
            "document.querySelector('#me').textContent === 'host'", timeout=75000
        )
        assert page.locator("#pin-why").is_hidden()
    finally:
        process.terminate()
        process.wait(10)
