"""The `[camera]` keys of a camera module: defaults, values, and a bad one in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, load_config
from vision.camera_module import CameraSettings, Mains


def test_camera_module_keys_and_their_defaults(tmp_path: Path) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text('[camera]\nsource = "picamera2"\n')
    assert load_config(path).camera_settings == CameraSettings()
    path.write_text(
        '[camera]\nsource = "picamera2:1"\nwidth = 1920\nheight = 1080\nframe_rate = 15\n'
        "mains_hz = 60\nlens_position = 1.05\nsettle_s = 0\n"
    )
    config = load_config(path)
    assert config.camera == "picamera2:1"
    assert config.camera_settings == CameraSettings(1920, 1080, 15.0, Mains.HZ60, 1.05, 0.0)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('source = "picamera2:one"', "[camera] source = 'picamera2:one': the camera module's"),
        ("mains_hz = 55", "[camera] mains_hz = 55: must be 50 or 60"),
        ("mains_hz = true", "[camera] mains_hz = True: must be 50 or 60"),
        ("frame_rate = 0", "[camera] frame_rate = 0: must be a number from 1 to 60 frames"),
        ('lens_position = "near"', "[camera] lens_position = 'near': must be a number from 0"),
        ("settle_s = 11", "[camera] settle_s = 11: must be a number from 0 to 10 seconds"),
        ("width = 100", "[camera] width = 100: must be a whole number from 160 to 4608"),
    ],
)
def test_a_bad_camera_key_is_one_line_naming_it(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text(f"[camera]\n{line}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert says in message and "\n" not in message, message
