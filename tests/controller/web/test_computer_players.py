"""Computer players on the phone page (issue 24), in real Chromium against one running service on
the simulated table: the host seats the computer from the page, a human seat's phone reads each
computer move as an instruction in players' words, the bots lay it, the game goes on; and a seat
asks for a hint on its turn. Small search budgets (`--ai-iterations`): fast and repeatable."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.support.serving import MAIN, free_port, running

pytestmark = pytest.mark.xdist_group(
    "computer_players"
)  # the module on one worker: its fixtures once
ARTIFACTS = Path(__file__).resolve().parents[3] / ".artifacts"
PIN = "2468"
HOST = {"X-Table-Pin": PIN}
NEVER = {  # what a family must never read (as tests/controller/web/test_family.py)
    "a seat number": re.compile(r"\bseats? \d"),
    "a location id": re.compile(r"\b(?:lane|seat|rail|loco)\.\w|\bstart-\d|\bdest-\d"),
    "a for an": re.compile(r"\ba [aeio][a-z]"),
}


def _serve(data: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    return running(
        [sys.executable, "-c", MAIN, "serve", "--data", str(data), "--port", str(port),
         "--host", "127.0.0.1", "--pin", PIN, "--bot-pace", "1", "--seed", "3", *extra],
        f"http://127.0.0.1:{port}",
    )  # fmt: skip


def _phone(browser: Any) -> Page:
    page: Page = browser.new_page(viewport={"width": 390, "height": 844})
    return page


def test_a_human_plays_two_computers_on_the_simulated_table(
    tmp_path_factory: pytest.TempPathFactory, browser: Any
) -> None:
    data, port = tmp_path_factory.mktemp("computers"), free_port()
    url = f"http://127.0.0.1:{port}"
    process = _serve(data, port, "--game", "offtherails", "--players", "3",
                     "--ai-iterations", "20")  # fmt: skip
    try:
        host = _phone(browser)
        host.goto(url + "/")
        host.locator("#host > summary").click()
        host.fill("#pin", PIN)
        host.press("#pin", "Tab")
        host.wait_for_function("document.querySelector('#me').textContent === 'host'")
        for seat in (1, 2):
            host.wait_for_selector(f"#computer-{seat}")
            host.select_option(f"#computer-{seat}", "normal")
            host.wait_for_function(
                f"document.querySelector('#computer-{seat}') && "
                f"document.querySelector('#computer-{seat}').value === 'normal'"
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            seats = httpx.get(url + "/api/status").json()["game"]["seats"]
            if [s["computer"] for s in seats] == [None, "normal", "normal"]:
                break
            time.sleep(0.2)
        assert [s["computer"] for s in seats] == [None, "normal", "normal"], seats
        refused = httpx.post(url + "/api/seats/1/token", headers=HOST)
        assert refused.status_code == 409 and "computer's" in refused.text
        token = httpx.post(url + "/api/seats/0/token", headers=HOST).json()["token"]
        phone = _phone(browser)
        phone.goto(f"{url}/?seat={token}")
        phone.wait_for_function("document.querySelectorAll('#mat .place').length > 10")
        # each computer move reaches the human's phone as an instruction, named for the computer
        phone.wait_for_function(
            "[...document.querySelectorAll('#events li')].filter(li => "
            "/^The computer \\([a-z]+\\): .*to do: /.test(li.textContent))"
            ".length >= 3",
            timeout=120000,
        )
        phone.screenshot(path=str(ARTIFACTS / "computer-players.png"), full_page=True)
        text = phone.inner_text("#events")
        slips = {k: rx.findall(text) for k, rx in NEVER.items() if rx.search(text)}
        assert slips == {}, slips
        # the table was updated (the referee saw it as said) and the game went on: the human's
        # bot moved after a computer's move was laid
        deadline = time.monotonic() + 120
        while True:
            rows = httpx.get(url + "/api/events", headers=HOST).json()
            told = [r["id"] for r in rows if r["kind"] == "instruction"
                    and str(r["data"]["text"]).startswith("the computer (")]  # fmt: skip
            synced = [r["id"] for r in rows if r["kind"] == "verdict"
                      and r["data"]["kind"] == "in_sync" and r["id"] > told[0]]  # fmt: skip
            human = [r["id"] for r in rows if r["kind"] == "action" and r["seat"] == 0
                     and r["id"] > told[0]]  # fmt: skip
            if (synced and human) or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert synced and human, "the table never showed the computer's move, or play stopped"
        computers = [r for r in rows if r["kind"] == "action" and r["seat"] in (1, 2)]
        assert len(computers) >= 3
        said = " ".join(r["data"]["text"] for r in computers)
        assert re.search(r"lay a .*track|lay a T junction|lay a crossing|choose the", said)
        status = httpx.get(url + "/api/status", headers=HOST).json()
        assert status["computers"]["played"] >= 3 and status["computers"]["failed"] == 0
        phone.close()
        host.close()
    finally:
        process.terminate()
        process.wait(10)


def test_a_seat_asks_for_a_hint_and_the_host_switches_hints_off(
    tmp_path_factory: pytest.TempPathFactory, browser: Any
) -> None:
    data, port = tmp_path_factory.mktemp("hint"), free_port()
    url = f"http://127.0.0.1:{port}"
    process = _serve(data, port, "--no-bots", "--game", "offtherails", "--players", "2",
                     "--ai-iterations", "20")  # fmt: skip
    try:
        token = httpx.post(url + "/api/seats/0/token", headers=HOST).json()["token"]
        phone = _phone(browser)
        phone.goto(f"{url}/?seat={token}")
        phone.wait_for_selector("#hint-ask")
        phone.click("#hint-ask")
        phone.wait_for_selector("#hint-answer", timeout=30000)
        said = phone.inner_text("#hint-answer")
        assert said.startswith("The computer would choose the ") and "games played on" in said
        other = httpx.post(url + "/api/seats/1/token", headers=HOST).json()["token"]
        refused = httpx.post(url + "/api/hint", headers={"X-Seat-Token": other})
        assert refused.status_code == 409 and "your turn" in refused.text
        assert httpx.post(url + "/api/hints", json={"on": False}, headers=HOST).status_code == 200
        phone.wait_for_selector("#hint-ask", state="detached")
        off = httpx.post(url + "/api/hint", headers={"X-Seat-Token": token})
        assert off.status_code == 403 and "switched hints off" in off.text
        phone.close()
    finally:
        process.terminate()
        process.wait(10)
