"""`railtable doctor` on a Pi: the pin factory named (and the native fallback that fails on a Pi 5
or kernel 6.6 caught), the speaker, and the running service asked for its own view."""

from __future__ import annotations

import dataclasses
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory

from controller.config import Config
from controller.table.gpio import GpioPins
from controller.table.speech import Speech
from controller.tools.doctor_pi import (
    check_pins,
    check_speaker,
    fetch_status,
    kernel_version,
    native_trouble,
    service_findings,
    status_url,
)

WIRED = dataclasses.replace(Config(), gpio=GpioPins(seat_buttons=(5, 6), seat_leds=(17, 27)))
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"


class NativeFactory(MockFactory):  # type: ignore[misc]  # gpiozero has no types
    """Stands in for gpiozero's native fallback (named as gpiozero names it)."""


def test_the_pin_factory_in_use_is_named() -> None:
    assert check_pins(Config()).ok  # nothing wired: nothing to open
    mock = check_pins(WIRED, make=lambda _: MockFactory())
    assert mock.ok and mock.detail == "mock pins, 2 seat buttons, 2 seat lights"
    lgpio = check_pins(WIRED, model=lambda: PI5, release=lambda: "6.6.51+rpt-rpi-2712",
                       make=lambda _: MockFactory())  # fmt: skip
    assert lgpio.ok


def test_the_native_fallback_on_a_pi_5_or_kernel_6_6_is_a_problem() -> None:
    pi5 = check_pins(WIRED, model=lambda: PI5, release=lambda: "6.1.21-v8+",
                     make=lambda _: NativeFactory())  # fmt: skip
    assert not pi5.ok and "native pins (a Pi 5 has no /dev/gpiomem)" in pi5.detail
    assert "sudo apt install python3-lgpio" in pi5.detail
    pi4 = check_pins(WIRED, model=lambda: PI4, release=lambda: "6.6.51+rpt-rpi-v8",
                     make=lambda _: NativeFactory())  # fmt: skip
    assert not pi4.ok and "numbers the pins from 512" in pi4.detail
    old = check_pins(WIRED, model=lambda: PI4,
                     release=lambda: "6.1.21-v8+", make=lambda _: NativeFactory())  # fmt: skip
    assert old.ok and old.detail.startswith("native pins")
    assert kernel_version("6.12.25+rpt-rpi-2712") == (6, 12) and kernel_version("x") == (0, 0)
    assert native_trouble("", "5.15.0") == ""


def test_pins_that_cannot_be_opened_are_a_problem_naming_the_fix() -> None:
    def broken(_: str) -> Any:
        raise BadPinFactory("Unable to load any default pin factory!")

    found = check_pins(WIRED, make=broken)
    assert not found.ok and "Unable to load any default pin factory" in found.detail
    assert "GPIOZERO_PIN_FACTORY=lgpio" in found.detail


def test_the_speaker_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cards = tmp_path / "cards"
    cards.write_text(" 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n")
    monkeypatch.setattr("controller.table.speech.SOUND_CARDS", cards)
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    real = dataclasses.replace(Config(), camera="0", board="/dev/ttyACM0")
    auto = check_speaker(real)
    assert auto.ok and "only sound output is HDMI" in auto.detail and "USB speaker" in auto.detail
    on = check_speaker(dataclasses.replace(real, speech=Speech.ON))
    assert not on.ok and "no speaker other than HDMI" in on.detail
    cards.write_text(" 1 [Device         ]: USB-Audio - USB Audio Device\n")
    usb = check_speaker(real)
    assert usb.ok and "card 1 Device (USB Audio Device)" in usb.detail


STATUS = {
    "uptime_s": 12.5,
    "camera": {"state": "calibrated", "detail": "4 of 4 corners", "since": 1.0},
    "board": {"state": "disconnected", "detail": "[Errno 13] Permission denied", "since": 1.0},
    "gpio": {"state": "degraded", "detail": "no pin factory failed (...)", "since": 1.0},
    "speech": False,
    "speech_detail": "speech off: the only sound output is HDMI (vc4hdmi0)",
}


def test_the_services_own_view_is_reported() -> None:
    asked: list[str] = []

    def fetch(url: str) -> dict[str, Any]:
        asked.append(url)
        return STATUS

    found = {f.what: f for f in service_findings(dataclasses.replace(Config(), port=8081), fetch)}
    assert asked == ["http://127.0.0.1:8081/api/status"]
    assert found["service"].ok and "up 12.5 s" in found["service"].detail
    assert found["service's camera"].ok
    assert (
        not found["service's board"].ok and "Permission denied" in found["service's board"].detail
    )
    assert not found["service's gpio"].ok
    assert "only sound output is HDMI" in found["service's speaker"].detail
    assert status_url(dataclasses.replace(Config(), listen="::1")) == "http://[::1]:8080/api/status"


@pytest.fixture
def status_server() -> Iterator[int]:
    class Status(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps(STATUS).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Status)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_doctor_as_service_asks_the_running_service_over_http(status_server: int) -> None:
    assert fetch_status(f"http://127.0.0.1:{status_server}/api/status") == STATUS
    found = service_findings(dataclasses.replace(Config(), listen="127.0.0.1", port=status_server))
    assert [f.ok for f in found] == [True, True, False, False, True]


def test_doctor_as_service_without_a_service_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    config = tmp_path / "railtable.toml"
    config.write_text(f'[table]\nlisten = "127.0.0.1"\nport = {port}\n')
    main = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run(
        [sys.executable, "-c", main, "doctor", "--as-service", "--config", str(config)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 1 and run.stderr == ""
    (line,) = run.stdout.splitlines()
    assert line.startswith("PROBLEM service: no answer from") and "systemctl status" in line
