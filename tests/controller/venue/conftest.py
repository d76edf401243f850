"""A real Mosquitto (Debian's package) for the venue's tests: loopback, passwords, the ACL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.venue.broker import Mosquitto
from tests.controller.venue.venue_testkit import PASSWORDS, VENUE


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path_factory.mktemp("broker"), VENUE, PASSWORDS) as started:
        yield started
