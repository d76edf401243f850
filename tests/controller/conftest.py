"""Fixtures of the controller's tests: a bare table, the API's test client over it, a browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.api.app import create_app
from tests.support.api import BareTable, bare_table


@pytest.fixture
def control(tmp_path: Path) -> Iterator[BareTable]:
    """A bare table logging to the test's folder."""
    with bare_table(tmp_path) as table:
        yield table


@pytest.fixture
def client(control: BareTable) -> TestClient:
    """The test client of the API over the bare table `control`."""
    return TestClient(create_app(control))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (Debian's) for a module's phone pages (Playwright imported here only:
    the tests without a browser run where it is not installed)."""
    from tests.support.browser import chromium

    with chromium() as launched:
        yield launched
