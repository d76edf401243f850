"""Debian's Chromium, headless, steered by Playwright (never a browser of its own download)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from playwright.sync_api import Browser, sync_playwright

CHROMIUM = "/usr/bin/chromium"
QUIET = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium for the phone pages; closed after."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=QUIET)
        try:
            yield browser
        finally:
            browser.close()
