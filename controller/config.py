"""The configuration file (TOML, stdlib `tomllib`): validated at start, every error in one line.

Every key, its default and what it may be are in docs/configuration.md. An unknown section or key
is an error (a typo must not be ignored quietly); a missing file or section means the defaults,
which run the simulated table.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.table.gpio import GpioPins
from controller.table.speech import Speech, speech_setting
from controller.venue.settings import (
    VenueSettingError,
    VenueSettings,
    check_ca_file,
    check_name,
    parse_broker,
    venue_settings,
)
from controller.words.language import Language, language_setting
from rules.core import BadOptions, resolve_options
from rules.registry import GAMES, game_named
from vision.camera_module import CameraSettings, Mains, camera_number

DEFAULT_PATHS = (Path("/etc/railtable/railtable.toml"),)


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file, key and value."""


@dataclass(frozen=True)
class Config:
    """The service's configuration (defaults: the simulated table on localhost:8080)."""

    data_dir: Path = field(
        default_factory=lambda: Path(
            os.environ.get("RAILTABLE_DATA", "~/.local/share/railtable")
        ).expanduser()
    )
    listen: str = "0.0.0.0"  # every network of the machine: phones on the table's Wi-Fi reach it
    address: str = ""  # the address phones open (seat links, the QR code); "": worked out
    port: int = 8080
    pin: str = ""
    camera: str = "simulated"
    camera_settings: CameraSettings = field(default_factory=CameraSettings)
    board: str = "simulated"
    game: str = "offtherails"
    players: int = 4
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None  # tests and demos only: the draws predictable; None: a secret
    bots: bool = True
    bot_pace_s: float = 6.0  # the simulated table: a bot's go this often (a person's pace: a demo
    # game of 5 to 15 minutes)
    ai_iterations: int = 0  # a computer player's search in iterations; 0: its level's time
    speech: Speech = Speech.AUTO  # the table speaks (docs/configuration.md)
    language: Language = Language.EN  # the table's voice speaks it (docs/translating.md)
    gpio: GpioPins = field(default_factory=GpioPins)
    venue: VenueSettings | None = None  # the venue's broker (docs/venue.md); None: none
    trusted_proxies: tuple[str, ...] = ()  # whose X-Forwarded-For names the client
    path: Path | None = None  # the file it came from


Check = Callable[[str, Any], Any]


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key} = {value!r}: must be text in quotes")
    return value


def _whole(low: int, high: int) -> Check:
    def check(key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{key} = {value!r}: must be a whole number from {low} to {high}")
        return value

    return check


def _checked(check: Callable[[str, Any], Any], key: str, value: Any) -> Any:
    """A check that says what is wrong with a ValueError, as a ConfigError."""
    try:
        return check(key, value)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _yes_no(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} = {value!r}: must be true or false")
    return value


def check_pin(key: str, value: Any) -> str:
    """A table PIN as the configuration and `--pin` accept it (ConfigError otherwise)."""
    return _pin(key, value)


def _pin(key: str, value: Any) -> str:
    text = _text(key, value)
    if text and not (text.isdigit() and 4 <= len(text) <= 8):
        raise ConfigError(f'{key} = {value!r}: must be 4 to 8 digits (or "" to make one)')
    return text


def _source(key: str, value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)  # a camera device index
    text = _text(key, value)
    if not text:
        raise ConfigError(f'{key} = "": must be "simulated", "none" or a device, file or URL')
    return text


def check_camera_source(key: str, value: Any) -> str:
    """A `[camera] source` (or `--camera`): as any source, and "picamera2:N" with a number."""
    text = _source(key, value)
    try:
        camera_number(text)
    except ValueError as error:
        raise ConfigError(f"{key} = {error}") from None
    return text


def _number(low: float, high: float, unit: str) -> Check:
    def check(key: str, value: Any) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise ConfigError(f"{key} = {value!r}: must be a number from {low:g} to {high:g}{unit}")
        return float(value)

    return check


def _mains(key: str, value: Any) -> Mains:
    if isinstance(value, bool) or value not in tuple(Mains):
        hertz = " or ".join(str(m.value) for m in Mains)
        raise ConfigError(f"{key} = {value!r}: must be {hertz} (the lamps' mains frequency)")
    return Mains(value)


def _pin_list(key: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 27 for v in value
    ):
        raise ConfigError(f"{key} = {value!r}: must be a list of GPIO pins 0..27, one per seat")
    return tuple(value)


def _seconds(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.5 <= value <= 30:
        raise ConfigError(f"{key} = {value!r}: must be 0.5 to 30 seconds")
    return float(value)


def _venue(check: Check) -> Check:
    def checked(key: str, value: Any) -> Any:
        try:
            return check(key, value)
        except VenueSettingError as error:
            raise ConfigError(str(error)) from None

    return checked


def _proxies(key: str, value: Any) -> tuple[str, ...]:
    """Addresses (or networks) of the reverse proxies whose forwarded headers are believed."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'{key} = {value!r}: must be a list of addresses, like ["127.0.0.1"]')
    for text in value:
        try:
            ipaddress.ip_network(text) if "/" in text else ipaddress.ip_address(text)
        except ValueError:
            raise ConfigError(
                f"{key}: {text!r} is not an IP address or network (like 10.0.0.0/8)"
            ) from None
    return tuple(value)


SCHEMA: dict[str, dict[str, Check]] = {
    "table": {
        "data_dir": _text,
        "listen": _text,
        "address": _text,
        "port": _whole(1, 65535),
        "pin": _pin,
        "bots": _yes_no,
        "bot_pace_s": _number(0.05, 60, " seconds"),
        "speech": lambda key, value: _checked(speech_setting, key, value),
        "language": lambda key, value: _checked(language_setting, key, value),
    },
    "camera": {
        "source": check_camera_source,
        "width": _whole(160, 4608),
        "height": _whole(120, 2592),
        "frame_rate": _number(1, 60, " frames a second"),
        "mains_hz": _mains,
        "lens_position": _number(0, 15, " dioptres (1 / metres; 0: far away)"),
        "settle_s": _number(0, 10, " seconds"),
    },
    "board": {"url": _source},
    "game": {"name": _text, "players": _whole(1, 16), "seed": _whole(0, 2**31), "options": _text},
    "gpio": {
        "pin_factory": _text,
        "seat_buttons": _pin_list,
        "seat_leds": _pin_list,
        "buzzer": _whole(0, 27),
        "shutdown_button": _whole(0, 27),
        "shutdown_hold_s": _seconds,
    },
    "venue": {
        "broker": _venue(parse_broker),
        "venue": _venue(check_name),
        "table": _venue(check_name),
        "username": _text,
        "password": _text,
        "ca_file": _venue(check_ca_file),
    },
    "web": {"trusted_proxies": _proxies},
    "ai": {"iterations": _whole(0, 1_000_000)},
}


def default_path() -> Path | None:
    """`$RAILTABLE_CONFIG`, else /etc/railtable/railtable.toml if it exists, else none."""
    named = os.environ.get("RAILTABLE_CONFIG")
    if named:
        return Path(named)
    return next((p for p in DEFAULT_PATHS if p.exists()), None)


def load_config(path: Path | None) -> Config:
    """The configuration in `path` (None: all defaults); ConfigError names what is wrong."""
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    try:
        return _config(data, path)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def _config(data: Mapping[str, Any], path: Path) -> Config:
    values: dict[str, Any] = {}
    for section, keys in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}]; known: {', '.join(SCHEMA)}")
        if not isinstance(keys, Mapping):
            raise ConfigError(f"[{section}] must be a section of keys")
        for key, value in keys.items():
            if section == "game" and key == "options":
                if not isinstance(value, Mapping):
                    raise ConfigError("[game] options must be a table of game options")
                values["options"] = dict(value)
                continue
            check = SCHEMA[section].get(key)
            if check is None:
                known = ", ".join(k for k in SCHEMA[section])
                raise ConfigError(f"unknown key {key!r} in [{section}]; known: {known}")
            values[f"{section}.{key}"] = check(f"[{section}] {key}", value)
    config = Config(
        data_dir=Path(values.get("table.data_dir", str(Config().data_dir))).expanduser(),
        listen=values.get("table.listen", "0.0.0.0"),
        address=values.get("table.address", ""),
        port=values.get("table.port", 8080),
        pin=values.get("table.pin", ""),
        bots=values.get("table.bots", True),
        bot_pace_s=values.get("table.bot_pace_s", Config.bot_pace_s),
        ai_iterations=values.get("ai.iterations", 0),
        speech=values.get("table.speech", Speech.AUTO),
        language=values.get("table.language", Language.EN),
        camera=values.get("camera.source", "simulated"),
        camera_settings=_camera_settings(values),
        board=values.get("board.url", "simulated"),
        game=values.get("game.name", "offtherails"),
        players=values.get("game.players", 4),
        options=values.get("options", {}),
        seed=values.get("game.seed"),
        gpio=GpioPins(
            seat_buttons=values.get("gpio.seat_buttons", ()),
            seat_leds=values.get("gpio.seat_leds", ()),
            buzzer=values.get("gpio.buzzer"),
            shutdown_button=values.get("gpio.shutdown_button"),
            shutdown_hold_s=values.get("gpio.shutdown_hold_s", 3.0),
            pin_factory=values.get("gpio.pin_factory", "auto"),
        ),
        venue=_venue(lambda _, v: venue_settings(v, need_table=False))(
            "[venue]",
            {k.removeprefix("venue."): v for k, v in values.items() if k.startswith("venue.")},
        ),
        trusted_proxies=values.get("web.trusted_proxies", ()),
        path=path,
    )
    try:
        config.gpio.check()
    except ValueError as error:
        raise ConfigError(f"[gpio] {error}") from None
    if config.gpio.pin_factory not in ("auto", "mock"):
        raise ConfigError(f'[gpio] pin_factory = {config.gpio.pin_factory!r}: "auto" or "mock"')
    check_game(config)
    return config


def _camera_settings(values: Mapping[str, Any]) -> CameraSettings:
    """The `[camera]` keys other than `source`, over the defaults."""
    names = {
        "width": "width",
        "height": "height",
        "frame_rate": "frame_rate",
        "mains_hz": "mains",
        "lens_position": "lens_position",
        "settle_s": "settle_s",
    }
    given = {
        field: values[f"camera.{key}"] for key, field in names.items() if f"camera.{key}" in values
    }
    return CameraSettings(**given)


def check_game(
    config: Config, name: str = "[game] name =", players: str = "[game] players ="
) -> None:
    """The game, its player count and options are the table's (`name`, `players`: how to say
    where they came from, the file's keys or the command line's flags)."""
    if config.game not in GAMES:
        known = ", ".join(sorted(GAMES))
        raise ConfigError(f"{name} {config.game!r}: not a game of this table; known: {known}")
    info = game_named(config.game)
    if not info.min_players <= config.players <= info.max_players:
        raise ConfigError(
            f"{players} {config.players}: {info.title} takes "
            f"{info.min_players} to {info.max_players} players"
        )
    try:
        resolve_options(info.options, {**config.options, "players": config.players})
    except BadOptions as error:
        raise ConfigError(f"[game] options: {error}") from None
