"""The configuration file: defaults, every mistake one line naming file, key and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "railtable.example.toml"


def test_no_file_means_the_simulated_table() -> None:
    config = load_config(None)
    assert (config.camera, config.board, config.port) == ("simulated", "simulated", 8080)


def test_the_documented_example_loads() -> None:
    config = load_config(EXAMPLE)
    assert config.camera == "picamera2" and config.board.startswith("/dev/serial/by-id/")
    assert config.options == {"bumper_carts": False}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[table]\nport = 80800\n", "[table] port = 80800: must be a whole number from 1 to 65535"),
        ("[table]\nprot = 80\n", "unknown key 'prot' in [table]"),
        ("[tabel]\nport = 80\n", "unknown section [tabel]"),
        ('[table]\npin = "12"\n', "must be 4 to 8 digits"),
        ('[game]\nname = "chess"\n', "[game] name = 'chess': not a game of this table"),
        ("[game]\nplayers = 9\n", "[game] players = 9: Off the Rails takes 1 to 4 players"),
        (
            "[game.options]\nbumper_carts = 1\n",
            "option 'bumper_carts' is 1, not one of false, true",
        ),
        ("[table\n", "not valid TOML"),
        ('[table]\nbots = "yes"\n', "[table] bots = 'yes': must be true or false"),
    ],
)
def test_each_mistake_names_file_key_and_value(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and says in message and "\n" not in message


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        load_config(tmp_path / "nope.toml")


def test_gpio_pins_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text("[gpio]\nseat_buttons = [5, 6]\nbuzzer = 6\n")
    with pytest.raises(ConfigError, match="GPIO pin 6 is used twice"):
        load_config(path)
    assert load_config(EXAMPLE).gpio.seat_buttons == (5, 6, 13, 19)
