"""The phones' address follows the network: a Pi whose Wi-Fi comes up after the service hands
out its new address in the seats' QR codes, and says so once."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
import segno
from fastapi.testclient import TestClient
from pytest_mock import MockerFixture

from controller.api.app import create_app
from controller.serve import PhoneAddress, follow_address
from tests.support.api import HOST, BareTable, start_game

LATE_WIFI = ["http://localhost:8080/", "http://192.168.1.20:8080/"]


def test_the_address_is_looked_up_again_when_old(caplog: pytest.LogCaptureFixture) -> None:
    found, now = [LATE_WIFI[0]], [0.0]
    lookups: list[str] = []

    def find() -> str:
        lookups.append(found[0])
        return found[0]

    address = PhoneAddress(find, every_s=15.0, clock=lambda: now[0])
    assert address() == "http://localhost:8080/"
    found[0] = LATE_WIFI[1]  # the Wi-Fi comes up
    now[0] = 10.0
    assert address() == "http://localhost:8080/" and len(lookups) == 1  # not looked up yet
    now[0] = 15.0
    with caplog.at_level(logging.INFO, logger="railtable"):
        assert address() == "http://192.168.1.20:8080/"
        now[0] = 31.0
        assert address() == "http://192.168.1.20:8080/"  # looked up again: unchanged
    assert len(lookups) == 3
    (line,) = [r.getMessage() for r in caplog.records]
    assert "http://localhost:8080/ -> http://192.168.1.20:8080/" in line


def test_a_seats_qr_code_carries_the_address_of_now(tmp_path: Path, mocker: MockerFixture) -> None:
    found = [LATE_WIFI[0]]
    address = PhoneAddress(lambda: found[0], every_s=0.0)
    control = BareTable(tmp_path / "log.sqlite3")
    drawn = mocker.spy(segno, "make")
    try:
        client = TestClient(create_app(control, address))
        start_game(client, seed=1)
        assert client.get("/api/seats/1/qr", headers=HOST).status_code == 200
        found[0] = LATE_WIFI[1]
        assert client.get("/api/seats/1/qr", headers=HOST).status_code == 200
    finally:
        control.owner.stop()
    links = [call.args[0] for call in drawn.call_args_list]
    assert links[0].startswith("http://localhost:8080/?seat=")
    assert links[1].startswith("http://192.168.1.20:8080/?seat=")


def test_the_service_prints_a_new_code_when_the_address_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = [LATE_WIFI[0]]
    address = PhoneAddress(lambda: found[0], every_s=0.01)

    async def scenario() -> None:
        following = asyncio.create_task(follow_address(address))
        await asyncio.sleep(0.05)
        found[0] = LATE_WIFI[1]
        for _ in range(100):
            await asyncio.sleep(0.01)
            if address.value == LATE_WIFI[1]:
                break
        following.cancel()

    asyncio.run(scenario())
    out = capsys.readouterr().out
    assert out.count("phones now open") == 1 and "http://192.168.1.20:8080/" in out
