"""The `[venue]` section: a broker URL, names that are topic levels, each mistake one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, load_config
from controller.venue.settings import Broker


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "railtable.toml"
    path.write_text(text)
    return load_config(path)


def test_a_table_at_a_venue(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[venue]\nbroker = "mqtt://broker.local"\nvenue = "cafe"\ntable = "table-7"\n'
        'password = "secret"\n',
    )
    venue = config.venue  # type: ignore[attr-defined]
    assert venue.broker == Broker("broker.local", 1883, tls=False)
    assert (venue.venue, venue.table, venue.user) == ("cafe", "table-7", "table-7")
    assert "secret" not in repr(venue)


def test_tls_takes_its_port_and_a_ca_file(tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    config = _load(tmp_path, f'[venue]\nbroker = "mqtts://hall:8884"\nca_file = "{ca}"\n')
    venue = config.venue  # type: ignore[attr-defined]
    assert venue.broker == Broker("hall", 8884, tls=True) and venue.ca_file == ca


def test_no_section_means_no_venue(tmp_path: Path) -> None:
    assert _load(tmp_path, "[table]\nport = 8080\n").venue is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('broker = "http://hall"', 'must be "mqtt://host[:port]" or "mqtts://host[:port]"'),
        ('broker = "mqtt://hall:99999"', "the port must be 1 to 65535"),
        ('broker = "mqtt://"', "names no host"),
        ('broker = "mqtt://u:p@hall"', "put the user and password in [venue] username"),
        ('broker = "mqtt://hall/x"', "only a host and a port"),
        ("broker = 1883", "must be text in quotes"),
        ('broker = "mqtt://hall"\ntable = "table 7"', "[venue] table = 'table 7': must be 1 to"),
        ('broker = "mqtt://hall"\nvenue = "a/b"', "[venue] venue = 'a/b': must be 1 to 64"),
        ('broker = "mqtts://hall"\nca_file = "/nope.crt"', "ca_file = '/nope.crt': no such file"),
        ('table = "t1"', "[venue] table is set but [venue] broker is not"),
        ('broker = "mqtt://hall"\nport = 1', "unknown key 'port' in [venue]"),
    ],
)
def test_each_mistake_is_one_line_naming_file_key_and_value(
    tmp_path: Path, text: str, says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, f"[venue]\n{text}\n")
    message = str(caught.value)
    assert message.startswith(str(tmp_path)) and says in message and "\n" not in message


def test_a_ca_file_without_tls_is_a_mistake(tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("x")
    with pytest.raises(ConfigError, match="is not TLS"):
        _load(tmp_path, f'[venue]\nbroker = "mqtt://hall"\nca_file = "{ca}"\n')
