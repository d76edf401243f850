"""Each phone reads the page in its own language (issue 41), in real Chromium at 390 x 844 against
`railtable serve`: its browser's language by default, a choice on the page kept across reloads,
the HTML's lines and the script's alike; a language the table does not speak falls back to
English."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, ViewportSize

from tests.support.serving import serving_process

pytestmark = pytest.mark.xdist_group("language_page")
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving_process(tmp_path_factory.mktemp("language")) as (url, _):
        yield url


def _phone(browser: Any, locale: str) -> Page:
    context = browser.new_context(viewport=PHONE, locale=locale)
    return context.new_page()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("locale", "lang", "heading", "sound"),
    [("de-DE", "de", "Punktestand", "Ton und Vibration"),
     ("fr-FR", "fr", "Scores", "Son et vibration"),
     ("es-ES", "es", "Puntuación", "Sonido y vibración"),
     ("en-GB", "en", "Scores", "Sound and vibration"),
     ("ja-JP", "en", "Scores", "Sound and vibration")],
)  # fmt: skip
def test_the_page_speaks_the_phones_language(
    table: str, browser: Any, locale: str, lang: str, heading: str, sound: str
) -> None:
    page = _phone(browser, locale)
    try:
        page.goto(table + "/")
        assert page.locator("html").get_attribute("lang") == lang
        assert page.locator("#scores-h").inner_text() == heading
        assert page.get_by_text(sound).count() == 1
        chosen = page.locator("#language option:checked")
        assert chosen.get_attribute("value") == lang
    finally:
        page.context.close()


def test_a_phone_picks_its_language_and_keeps_it_across_reloads(table: str, browser: Any) -> None:
    page = _phone(browser, "en-US")
    try:
        page.goto(table + "/")
        names = page.locator("#language option").all_inner_texts()
        assert names == ["English", "Deutsch", "Français", "Español"]
        with page.expect_navigation():
            page.select_option("#language", "de")
        assert page.locator("html").get_attribute("lang") == "de"
        assert page.locator("#host > summary").inner_text() == "Spielleitung"
        page.reload()
        assert page.locator("#host > summary").inner_text() == "Spielleitung"
        page.locator("#camera-panel > summary").click()
        steps = page.locator("#camera-panel ol.steps li").all_inner_texts()
        assert (
            steps[2] == "Jetzt kalibrieren drücken und die Hände einige Sekunden vom Tisch lassen."
        )
        assert page.locator("#camera-panel ol.steps li em").inner_text() == "Jetzt kalibrieren"
        page.screenshot(path="/tmp/language-de.png", full_page=True)
    finally:
        page.context.close()
    # another phone at the same table keeps its own language
    other = _phone(browser, "fr-FR")
    try:
        other.goto(table + "/")
        assert other.locator("#host > summary").inner_text() == "Hôte"
    finally:
        other.context.close()


def test_the_page_is_sent_in_the_language_asked(table: str) -> None:
    german = httpx.get(table + "/", headers={"Accept-Language": "de"}, timeout=30)
    assert '<html lang="de">' in german.text and "Punktestand" in german.text
    assert "Accept-Language" in german.headers["vary"]
    chosen = httpx.get(table + "/", cookies={"railtable-language": "es"},
                       headers={"Accept-Language": "de"}, timeout=30)  # fmt: skip
    assert '<html lang="es">' in chosen.text
    odd = httpx.get(table + "/", cookies={"railtable-language": "<script>"}, timeout=30)
    assert odd.status_code == 200 and '<html lang="en">' in odd.text


def test_a_german_phone_reads_the_scripts_lines_in_german(table: str, browser: Any) -> None:
    """The lines the page's scripts draw (the badges, the verdict, the scores) are German too,
    with none of their English left; the players' names stay as the table has them."""
    page = _phone(browser, "de-DE")
    try:
        page.goto(table + "/")
        page.wait_for_function("document.querySelector('#turn').textContent.endsWith(' ist dran')")
        assert page.locator("#turn").inner_text() == "Spieler 1 ist dran"
        assert page.locator("#me").inner_text() == "Zuschauer"
        assert page.locator("#scores tbody .made").first.inner_text() == "noch nichts"
        page.wait_for_selector("#events li:has-text('Ein neues Spiel beginnt')")
        shown = page.locator("body").inner_text()
        english = ["'s turn", "spectator", "The table is as the rules expect", "nothing yet",
                   "things to do on the table", "Reconnecting", "A new game begins"]  # fmt: skip
        assert [line for line in english if line in shown] == []
    finally:
        page.context.close()


def test_a_long_title_keeps_to_one_line_on_a_phone(table: str, browser: Any) -> None:
    """The race's German title beside the header's badges: the badges go to the next line, the
    title is not broken at its hyphen (seen at 390 px: 'Zwergen-' over 'Grubenwagenrennen')."""
    page = _phone(browser, "de-DE")
    try:
        page.goto(table + "/")
        lines = page.evaluate(
            """() => {
                const title = document.getElementById('title');
                title.textContent = 'Zwergen-Grubenwagenrennen';
                const high = title.getBoundingClientRect().height;
                return high / parseFloat(getComputedStyle(title).lineHeight);
            }"""
        )
        assert lines < 1.5, f"the title takes {lines:.1f} lines"
    finally:
        page.context.close()
