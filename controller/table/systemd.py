"""systemd's notify protocol (no dependency): READY=1 once started, WATCHDOG=1 from the main loop.

A no-op returning False when the service was not started by systemd (no `NOTIFY_SOCKET`).
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send one notification to systemd; True if it was sent."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Half the watchdog timeout systemd set (`WATCHDOG_USEC`), in seconds; None without one."""
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec or not usec.isdigit():
        return None
    return int(usec) / 2_000_000
