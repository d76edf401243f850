"""systemd's notify protocol over a real socket, and the installer's dry run."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
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


def _dry_run(on_pi: bool) -> list[str]:
    env = {**os.environ, "RAILTABLE_ON_PI": "1" if on_pi else "0"}
    out = subprocess.run(
        ["bash", str(ROOT / "systemd" / "install.sh"), "--dry-run"],
        capture_output=True, text=True, check=True, env=env, timeout=60,
    ).stdout  # fmt: skip
    return out.splitlines()


def test_the_installer_dry_run_names_every_step() -> None:
    out = "\n".join(_dry_run(on_pi=False))
    for step in ("useradd", "dialout,video,gpio", "railtable.service", "enable --now",
                 "venv --system-site-packages /opt/railtable/venv",
                 "install -m 0640 -o root -g railtable"):  # fmt: skip
        assert step in out, step
    assert "python3-picamera2" not in out and "simplejpeg" not in out  # a Pi's steps only


def test_on_a_pi_the_installer_brings_the_oss_camera_pins_and_voice() -> None:
    steps = _dry_run(on_pi=True)
    apt = steps.index("+ apt-get update -qq")
    (packages,) = [s for s in steps if s.startswith("+ apt-get install")]
    assert steps.index(packages) > apt
    for package in ("python3-picamera2", "python3-lgpio", "espeak-ng"):
        assert package in packages.split()
    venv = next(i for i, s in enumerate(steps) if "venv --system-site-packages" in s)
    (jpeg,) = [i for i, s in enumerate(steps) if s.endswith(" simplejpeg")]
    assert "systemd/pi-constraints.txt" in steps[jpeg] and jpeg > venv
    assert steps.index("+ /opt/railtable/venv/bin/python -c 'import picamera2'") > jpeg
    assert not any("lgpio" in s and "pip install" in s for s in steps)  # never PyPI's lgpio
    lines = (ROOT / "systemd" / "pi-constraints.txt").read_text().splitlines()
    pinned = [line for line in lines if line and not line.startswith("#")]
    assert pinned == ["simplejpeg==1.9.0"]


def test_the_unit_runs_the_service_under_the_watchdog() -> None:
    unit = (ROOT / "systemd" / "railtable.service").read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "User=railtable"):
        assert line in unit


def test_the_unit_lets_the_camera_pins_and_speaker_through_its_sandbox() -> None:
    lines = (ROOT / "systemd" / "railtable.service").read_text().splitlines()
    allowed = {line.split("=", 1)[1] for line in lines if line.startswith("DeviceAllow=")}
    for device in ("ttyACM", "ttyUSB", "video4linux", "media", "dma_heap", "gpiochip", "alsa"):
        assert f"char-{device} rw" in allowed, device
    assert "/dev/gpiomem rw" not in allowed  # lgpio uses the gpiochip; a Pi 5 has no gpiomem
    for line in (
        "Environment=GPIOZERO_PIN_FACTORY=lgpio",
        "WorkingDirectory=/var/lib/railtable",  # lgpio's .lgd-nfy* files; / is read-only
        "StateDirectory=railtable",
        "ProtectSystem=strict",
        "DevicePolicy=closed",
    ):
        assert line in lines, line
    (families,) = [line for line in lines if line.startswith("RestrictAddressFamilies=")]
    assert "AF_NETLINK" in families.split()  # libcamera's udev device monitor


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    """The unit as installed, but starting a program that exists on this machine (the venv's
    railtable exists only on the Pi): systemd's own check of every key and value."""
    unit = (ROOT / "systemd" / "railtable.service").read_text()
    program = "ExecStart=/opt/railtable/venv/bin/railtable "
    assert program in unit
    copy = tmp_path / "railtable.service"
    copy.write_text(unit.replace(program, f"ExecStart={sys.executable} "))
    run = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    said = [line for line in (run.stdout + run.stderr).splitlines() if "railtable" in line]
    assert run.returncode == 0 and not said, run.stdout + run.stderr
