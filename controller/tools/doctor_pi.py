"""`railtable doctor`'s checks of the Pi's own parts (the pins' factory, the speaker) and of the
running service's own view from inside its sandbox (`--as-service`)."""

from __future__ import annotations

import json
import platform
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from controller.config import Config
from controller.table.gpio import PI_FACTORY_FIX, PinsState, TableIO, factory_name, pi_model
from controller.table.speech import Speech, choose_speech
from controller.tools.doctor import Finding

NATIVE_BREAKS_FROM = (6, 6)  # kernel: the header's pins are numbered from 512 in /sys/class/gpio


def kernel_version(release: str) -> tuple[int, int]:
    """ "6.6.51+rpt-rpi-2712" -> (6, 6); (0, 0) when it cannot be read."""
    parts = release.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        return 0, 0


def native_trouble(model: str, release: str) -> str:
    """Why gpiozero's native fallback will not drive this Pi's buttons ("" if it may)."""
    if "Raspberry Pi 5" in model:
        return "a Pi 5 has no /dev/gpiomem"
    if kernel_version(release) >= NATIVE_BREAKS_FROM:
        return f"kernel {release} numbers the pins from 512 in /sys/class/gpio"
    return ""


def check_pins(
    config: Config,
    model: Callable[[], str] = pi_model,
    release: Callable[[], str] = platform.release,
    make: Callable[[str], Any] | None = None,
) -> Finding:
    """The pin factory in use, and whether the configured pins open with it."""
    pins = config.gpio
    if not pins.used():
        return Finding("gpio", True, "no pin configured: the table runs without buttons and lights")
    io = TableIO(pins, make=make)
    try:
        if io.state is PinsState.DEGRADED:
            return Finding("gpio", False, io.detail)
        name = factory_name(io.factory)
        wired = f"{len(io.buttons)} seat buttons, {len(io.leds)} seat lights"
        trouble = native_trouble(model(), release()) if name == "native" else ""
        if trouble:
            return Finding(
                "gpio",
                False,
                f"gpiozero fell back to its native pins ({trouble}): {PI_FACTORY_FIX}",
            )
        return Finding("gpio", True, f"{name} pins, {wired}")
    finally:
        io.close()


def check_speaker(config: Config) -> Finding:
    """Whether the table will speak, and through which card (never HDMI on its own)."""
    simulated = "simulated" in (config.camera, config.board)
    choice = choose_speech(config.speech, simulated)
    missing = config.speech is Speech.ON and choice.card is None
    if missing:
        return Finding("speaker", False, f"speech = \"on\" but no speaker other than HDMI: "
                       f"{choice.reason}")  # fmt: skip
    return Finding("speaker", True, choice.reason)


def status_url(config: Config) -> str:
    """Where the service on this machine answers `/api/status`."""
    host = "127.0.0.1" if config.listen in ("0.0.0.0", "", "::") else config.listen
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{config.port}/api/status"


def fetch_status(url: str, timeout: float = 5.0) -> dict[str, Any]:
    """The service's status as JSON (OSError when nothing answers)."""
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        data = json.loads(answer.read())
    if not isinstance(data, dict):
        raise OSError(f"{url} did not answer with a status")
    return data


def _part(what: str, part: Any, good: tuple[str, ...]) -> Finding:
    if not isinstance(part, dict):
        return Finding(what, False, "the service does not say")
    state, detail = str(part.get("state", "?")), str(part.get("detail", ""))
    return Finding(what, state in good, f"{state}: {detail}" if detail else state)


def service_findings(
    config: Config, fetch: Callable[[str], dict[str, Any]] = fetch_status
) -> list[Finding]:
    """The running service's own view of its camera, board, pins and voice: what it sees from
    inside its sandbox (its user, its devices), which a doctor run from a shell cannot."""
    url = status_url(config)
    try:
        status = fetch(url)
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        advice = "is it running? `systemctl status railtable`, `journalctl -u railtable -n 50`"
        return [Finding("service", False, f"no answer from {url} ({reason}): {advice}")]
    found = [Finding("service", True, f"answers at {url}, up {status.get('uptime_s', '?')} s")]
    found.append(
        _part("service's camera", status.get("camera"), ("calibrated", "simulated", "none"))
    )
    found.append(_part("service's board", status.get("board"), ("connected", "simulated", "none")))
    found.append(_part("service's gpio", status.get("gpio"), ("ready", "mock", "none")))
    speaks = bool(status.get("speech"))
    said = str(status.get("speech_detail", "speech on" if speaks else "speech off"))
    found.append(Finding("service's speaker", True, said))
    return found
