"""A Mosquitto of one's own on loopback: password login and the venue's ACL (docs/venue.md).

The tests and `railtable bench venue` start Debian's real `mosquitto` with it (never a mock); it
also shows, as files, the set-up docs/venue.md describes for a venue's own broker.
"""

from __future__ import annotations

import base64
import hashlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from controller.venue.contract import ROOT, Leaf

ITERATIONS = 101  # what mosquitto_passwd uses for its "$7$" (PBKDF2-SHA512) hashes


class BrokerError(RuntimeError):
    """Mosquitto is not installed, or did not start."""


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a Mosquitto password file, as `mosquitto_passwd` writes it."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS)
    encoded = base64.b64encode(salt).decode(), base64.b64encode(digest).decode()
    return f"{user}:$7${ITERATIONS}${encoded[0]}${encoded[1]}"


def acl(venue: str, venue_user: str) -> str:
    """The venue's ACL: a table (its user name is its table name) writes only its own topics
    and reads only the venue's requests to it; the venue's user reads every table and asks
    any to resend."""
    tables = f"{ROOT}/{venue}/tables"
    return "\n".join(
        [
            "# railtable venue ACL (docs/venue.md)",
            f"user {venue_user}",
            *(f"topic read {tables}/+/{leaf.value}" for leaf in (Leaf.STATE, Leaf.ONLINE)),
            f"topic read {tables}/+/{Leaf.EVENTS.value}",
            f"topic write {tables}/+/{Leaf.RESEND.value}",
            "",
            "# every other user is a table whose user name is its table name",
            f"pattern write {tables}/%u/#",
            f"pattern read {tables}/%u/{Leaf.RESEND.value}",
            "",
        ]
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """Debian's `mosquitto`, on 127.0.0.1 at `port`, its files in `folder`; kill and restart at
    will (it keeps retained messages and sessions on disk, as a venue's broker should)."""

    def __init__(
        self,
        folder: Path,
        venue: str,
        users: Mapping[str, str],
        venue_user: str = "venue",
        port: int | None = None,
    ) -> None:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            raise BrokerError(
                "mosquitto is not installed: `apt-get install mosquitto` (Debian's package)"
            )
        self.binary = binary
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "passwd").write_text(
            "".join(password_line(u, p) + "\n" for u, p in users.items())
        )
        (folder / "acl").write_text(acl(venue, venue_user))
        for name in ("passwd", "acl"):
            os.chmod(folder / name, 0o600)
        (folder / "mosquitto.conf").write_text(
            "\n".join(
                [
                    "per_listener_settings false",
                    f"user {pwd.getpwuid(os.getuid()).pw_name}",  # as root it would become
                    # user mosquitto, who may not read these files
                    f"listener {self.port} 127.0.0.1",
                    "allow_anonymous false",
                    f"password_file {folder / 'passwd'}",
                    f"acl_file {folder / 'acl'}",
                    "persistence true",
                    f"persistence_location {folder}/",
                    "autosave_interval 5",
                    "max_queued_messages 0",
                    "max_inflight_messages 100",
                    f"log_dest file {folder / 'mosquitto.log'}",
                    "log_type error",
                    "log_type warning",
                    "log_type notice",
                    "",
                ]
            )
        )

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> Mosquitto:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"mosquitto stopped at start: see {self.folder}/mosquitto.log")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise BrokerError(f"mosquitto did not listen on port {self.port} in {timeout:.0f} s")

    def kill(self) -> None:
        """Kill it as a pulled plug would (SIGKILL: no goodbye, no last save)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
