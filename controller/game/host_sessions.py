"""The host's sessions: the phone that entered the table PIN holds a token, and others' wrong PINs
never lock it out; kept hashed in the data folder, ended by the host or by a change of the PIN.

A token is 256 bits from `secrets`; only its SHA-256 is kept (in memory and in the file, 0600), so
the file lets no one act as the host. The file also holds a salted scrypt tag of the PIN the
sessions were opened with: a service restarted with another PIN ends them all, and the tag costs
a guesser of the PIN a slow hash per guess. A session unused for `IDLE_S` (12 h, a game night)
ends by itself; at most `MAX_SESSIONS` are kept (the least recently used goes)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("railtable")

IDLE_S = 12 * 3600.0  # a session unused this long ends
MAX_SESSIONS = 32  # phones holding a host session at once (the least recently used goes)
TOKEN_BYTES = 32  # 256 bits
SAVE_EVERY_S = 600.0  # a session's last use is written to the file at most this often
SCRYPT_N = 2**14  # the PIN tag's cost: about 16 MB and a few tens of ms on a Pi, once a start
SCRYPT_R = 8
FILE_VERSION = 1


def digest(token: str) -> str:
    """What is kept of a token: its SHA-256 (any str, even one that is not valid UTF-8)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def pin_tag(pin: str, salt: bytes) -> str:
    """The PIN as the file remembers it: salted and slow to guess (scrypt)."""
    tag = hashlib.scrypt(pin.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=1, dklen=32)
    return tag.hex()


class HostSessions:
    """The host's sessions (token digest -> last use), safe from any thread. With a `path` they
    are kept on disk, so a host mid-game stays the host across a restart of the service; writing
    is `save()`, which the API runs on a worker thread, never on its event loop."""

    def __init__(
        self, pin: str, path: Path | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.clock = clock
        self.path = path
        self._pin = pin
        self._lock = threading.Lock()
        self._saving = threading.Lock()
        self._sessions: dict[str, float] = {}
        self._saved: dict[str, float] = {}  # as last written: a use is written when it is old
        self._salt = secrets.token_bytes(16)
        self._tag: tuple[str, bytes, str] | None = None  # (pin, salt, tag): scrypt once per PIN
        self._written: str | None = None  # the PIN the file holds sessions for, if known
        if path is not None:
            self._sessions, stale = self._read(path)
            self._saved = dict(self._sessions)
            if stale:
                self.save()  # another PIN's sessions go from the file too, for good

    @property
    def pin(self) -> str:
        return self._pin

    def open(self) -> str:
        """A new session's token (the caller has checked the PIN)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = self.clock()
        with self._lock:
            self._forget_idle(now)
            while len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=self._sessions.__getitem__)]
            self._sessions[digest(token)] = now
        return token

    def check(self, token: str) -> bool:
        """True if `token` is an open session's (its use is noted); an idle one ends here."""
        key = digest(token)
        now = self.clock()
        with self._lock:
            used = self._sessions.get(key)
            if used is None:
                return False
            if now - min(used, now) >= IDLE_S:
                del self._sessions[key]
                return False
            self._sessions[key] = now
            return True

    def due(self) -> bool:
        """A session's use not written for SAVE_EVERY_S, or a session ended since: save()."""
        if self.path is None:
            return False
        with self._lock:
            if self._sessions.keys() != self._saved.keys():
                return True
            return any(t - self._saved[k] >= SAVE_EVERY_S for k, t in self._sessions.items())

    def end(self, token: str) -> bool:
        """End `token`'s session; False if it was none."""
        with self._lock:
            return self._sessions.pop(digest(token), None) is not None

    def end_all(self) -> int:
        """End every session; how many there were."""
        with self._lock:
            count = len(self._sessions)
            self._sessions.clear()
        return count

    def follow_pin(self, pin: str) -> bool:
        """The table's PIN is now `pin`: if it changed, every session ends (True)."""
        with self._lock:
            if secrets.compare_digest(pin.encode(), self._pin.encode()):
                return False
            self._pin = pin
            count = len(self._sessions)
            self._sessions.clear()
        log.info("the table PIN changed: %d host session(s) ended", count)
        return True

    def save(self) -> None:
        """Write the sessions' digests, their last use and the PIN's tag (0600, whole, then put
        in place); a disk that cannot take it leaves them in memory until the service stops."""
        if self.path is None:
            return
        with self._saving:  # one writer at a time: they share the spare file
            self._save(self.path)

    def _save(self, path: Path) -> None:
        with self._lock:
            self._forget_idle(self.clock())
            sessions, pin = dict(self._sessions), self._pin
            if sessions == self._saved and self._written == pin:
                return  # the file says it already
        if self._tag is None or self._tag[0] != pin:
            self._tag = (pin, self._salt, pin_tag(pin, self._salt))
        _, salt, tag = self._tag
        data = {"version": FILE_VERSION, "salt": salt.hex(), "pin": tag, "sessions": sessions}
        spare = path.with_suffix(".tmp")
        try:
            with open(os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                json.dump(data, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(spare, path)
        except OSError as error:
            log.warning("host sessions not written (%s): they last until the service stops", error)
            return
        with self._lock:
            self._saved, self._written = sessions, pin

    def _forget_idle(self, now: float) -> None:
        for key in [k for k, t in self._sessions.items() if now - min(t, now) >= IDLE_S]:
            del self._sessions[key]

    def _read(self, path: Path) -> tuple[dict[str, float], bool]:
        """The sessions kept, if they were opened with this PIN; a missing or damaged file, or
        another PIN's, is none (the host enters the PIN again). True: the file is stale."""
        try:
            data = json.loads(path.read_text())
            salt = bytes.fromhex(data["salt"])
            tag = str(data["pin"])
            sessions = {str(k): float(v) for k, v in dict(data["sessions"]).items()}
        except FileNotFoundError:
            return {}, False
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
            log.warning("host sessions in %s unreadable (%s): none kept", path, error)
            return {}, True
        self._salt = salt
        mine = pin_tag(self._pin, salt)
        self._tag = (self._pin, salt, mine)
        if not secrets.compare_digest(tag, mine):
            if sessions:
                log.info("the table PIN changed: %d host session(s) ended", len(sessions))
            return {}, True
        self._written = self._pin
        now = self.clock()
        return {k: t for k, t in sessions.items() if now - min(t, now) < IDLE_S}, False
