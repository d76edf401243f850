"""The HTTP server under attack (issue 22): forwarded headers believed only from configured
proxies, idle connections closed, oversized bodies refused, the event loop never waiting."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from controller.api import http, server
from tests.support.api import PIN, BareTable
from tests.support.serving import answering, free_port, serving


@contextlib.contextmanager
def _served(tmp_path: Path, trusted_proxies: tuple[str, ...] = ()) -> Iterator[str]:
    """The API over a bare table on a loopback port, configured as `railtable serve` does."""
    with serving(BareTable(tmp_path / "log.sqlite3"), trusted_proxies) as url:
        yield url


def _guess(url: str, forwarded_for: str) -> int:
    headers = {"X-Table-Pin": "0000", "X-Forwarded-For": forwarded_for}
    return httpx.get(f"{url}/api/status", headers=headers).status_code


def test_forwarded_headers_from_an_untrusted_address_give_a_guesser_nothing(
    tmp_path: Path,
) -> None:
    with _served(tmp_path, trusted_proxies=("10.0.0.0/8", "192.168.1.2")) as url:
        codes = [_guess(url, f"203.0.113.{i}") for i in range(7)]
    assert codes == [403] * 5 + [429] * 2, codes


def test_a_trusted_proxys_forwarded_address_is_what_the_limiter_counts(tmp_path: Path) -> None:
    with _served(tmp_path, trusted_proxies=("127.0.0.1",)) as url:
        first = [_guess(url, "203.0.113.1") for _ in range(6)]
        other = [_guess(url, "203.0.113.2") for _ in range(5)]
        table = _guess(url, "203.0.113.3")  # ten wrong PINs a minute for the whole table
    assert first == [403] * 5 + [429], first
    assert other == [403] * 5, other  # another player behind the proxy is not locked out
    assert table == 429


def test_trusted_proxies_come_from_the_configuration_file(tmp_path: Path) -> None:
    config = tmp_path / "railtable.toml"
    config.write_text('[web]\ntrusted_proxies = ["127.0.0.1"]\n')
    port = free_port()
    main = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen(
        [sys.executable, "-c", main, "serve", "--config", str(config), "--data", str(tmp_path),
         "--port", str(port), "--pin", "2468", "--camera", "none", "--board", "none",
         "--no-bots"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if answering(url):
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        codes = [_guess(url, "198.51.100.7") for _ in range(6)] + [_guess(url, "198.51.100.8")]
    finally:
        process.terminate()
        process.wait(10)
    assert codes == [403] * 5 + [429, 403], codes


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('"127.0.0.1"', "must be a list of addresses"),
        ('["*"]', "'*' is not an IP address or network"),
        ('["pi.local"]', "'pi.local' is not an IP address"),
        ('["10.0.0.0/33"]', "'10.0.0.0/33' is not an IP address or network"),
    ],
)
def test_trusted_proxies_are_checked_like_every_key(tmp_path: Path, value: str, says: str) -> None:
    from controller.config import ConfigError, load_config

    path = tmp_path / "railtable.toml"
    path.write_text(f"[web]\ntrusted_proxies = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "[web] trusted_proxies" in str(caught.value) and says in str(caught.value)


def test_an_idle_keep_alive_connection_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "IDLE_S", 1)
    with _served(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as idle:
            idle.sendall(b"GET /api/status HTTP/1.1\r\nHost: table\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += idle.recv(4096)
            assert answer.startswith(b"HTTP/1.1 200")
            started = time.monotonic()
            while idle.recv(4096):  # the rest of the body, then the close
                pass
            assert time.monotonic() - started < 3


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with _served(tmp_path) as url:
        big = b'{"action": "' + b"x" * (http.MAX_BODY_BYTES + 1) + b'"}'
        r = httpx.post(
            f"{url}/api/actions", content=big, headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 413 and "request body over 64 KB" in r.json()["detail"]

        def chunks() -> Iterator[bytes]:
            yield b'{"action": "'
            for _ in range(80):
                yield b"x" * 1024
            yield b'"}'

        r = httpx.post(f"{url}/api/actions", content=chunks(), headers={"X-Table-Pin": PIN})
        assert r.status_code == 413 and "request body over 64 KB" in r.json()["detail"]
        assert httpx.get(f"{url}/api/status").status_code == 200
