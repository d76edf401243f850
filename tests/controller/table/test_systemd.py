"""systemd's notify protocol over a real socket, and the installer's dry run."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from controller.table.systemd import notify, watchdog_interval

ROOT = Path(__file__).resolve().parents[3]


def test_notify_sends_to_the_socket_systemd_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert notify("READY=1")
        assert server.recv(64) == b"READY=1"


def test_without_systemd_notify_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("WATCHDOG=1") is False
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    assert watchdog_interval() == 15.0


def test_the_installer_dry_run_names_every_step() -> None:
    out = subprocess.run(
        ["bash", str(ROOT / "systemd" / "install.sh"), "--dry-run"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for step in ("useradd", "dialout,video,gpio", "railtable.service", "enable --now"):
        assert step in out


def test_the_unit_runs_the_service_under_the_watchdog() -> None:
    unit = (ROOT / "systemd" / "railtable.service").read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "User=railtable"):
        assert line in unit
