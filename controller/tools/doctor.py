"""`railtable doctor`: checks the config, camera, sensor board, GPIO, data folder and port, and
says in plain words what is wrong and how to fix it."""

from __future__ import annotations

import dataclasses
import grp
import os
import shutil
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.config import Config, ConfigError, default_path, load_config
from vision.camera_module import (
    NO_CAMERA_ADVICE,
    PICAMERA2,
    Picamera2Capture,
    camera_modules,
    camera_number,
    describe_module,
)


@dataclass(frozen=True)
class Finding:
    """One check: what was checked, whether it is fine, and what to do if not."""

    what: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok     ' if self.ok else 'PROBLEM'} {self.what}: {self.detail}"


def _in_group(name: str) -> bool:
    try:
        gid = grp.getgrnam(name).gr_gid
    except KeyError:
        return True  # no such group on this system: nothing to join
    return os.getuid() == 0 or gid in os.getgroups()


def check_data(config: Config) -> Finding:
    folder = config.data_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".doctor"
        probe.write_text("ok")
        probe.unlink()
    except OSError as error:
        return Finding(
            "data folder",
            False,
            f"cannot write into {folder} ({error.strerror}): make it writable by the service's "
            f"user, or set [table] data_dir",
        )
    free_mb = shutil.disk_usage(folder).free // 2**20
    if free_mb < 50:
        return Finding("data folder", False, f"{folder}: only {free_mb} MB free; free some space")
    return Finding("data folder", True, f"{folder} is writable, {free_mb} MB free")


def check_port(config: Config) -> Finding:
    try:
        with socket.socket() as sock:
            sock.bind((config.listen, config.port))
    except OSError as error:
        return Finding(
            "port",
            False,
            f"cannot listen on {config.listen}:{config.port} ({error.strerror}): another program "
            f"uses it (is the service already running? `railtable doctor --as-service` asks it "
            f"how it is doing) or pick another [table] port",
        )
    return Finding("port", True, f"{config.listen}:{config.port} is free")


def check_board(config: Config, timeout: float = 5.0) -> Finding:
    url = config.board
    if url in ("simulated", "none"):
        return Finding("sensor board", True, f"{url}: nothing to check")
    advice = ""
    if url.startswith("/dev/tty"):
        advice = "; prefer its /dev/serial/by-id/... path, which does not change between boots"
    if url.startswith("/dev/") and not Path(url).exists():
        return Finding(
            "sensor board", False, f"{url} does not exist: is the board plugged in? "
            f"`ls /dev/serial/by-id/` lists the boards that are{advice}",
        )  # fmt: skip
    if url.startswith("/dev/") and not os.access(url, os.R_OK | os.W_OK):
        group = "" if _in_group("dialout") else " (you are not in the dialout group)"
        return Finding(
            "sensor board", False, f"no permission to open {url}{group}: "
            f"`sudo usermod -aG dialout $USER`, then log out and in",
        )  # fmt: skip
    from firmware_bridge.link import BoardLink

    link = BoardLink(url).start()
    try:
        identity = link.wait_connected(timeout)
    except Exception as error:  # the link names what went wrong
        return Finding("sensor board", False, f"{url}: no handshake ({error}){advice}")
    finally:
        link.stop()
    return Finding(
        "sensor board", True,
        f"{url}: board {identity.board_id_hex}, {identity.rows}x{identity.cols} squares{advice}",
    )  # fmt: skip


def check_camera(config: Config) -> Finding:
    source = config.camera
    if source in ("simulated", "none"):
        return Finding("camera", True, f"{source}: nothing to check")
    if camera_number(source) is not None:
        return check_camera_module(config)
    import cv2

    logging_api = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging_api is not None:  # OpenCV's own warnings would drown the one line we print
        logging_api.setLogLevel(logging_api.LOG_LEVEL_SILENT)
    address: int | str = int(source) if source.isdigit() else source
    capture = cv2.VideoCapture(address)
    try:
        if not capture.isOpened():
            group = "" if _in_group("video") else " You are not in the video group: " \
                "`sudo usermod -aG video $USER`, then log out and in."  # fmt: skip
            return Finding(
                "camera", False, f"cannot open {source!r}: is it connected and enabled, and not "
                f"busy in another program (the service itself, a browser)?{group}",
            )  # fmt: skip
        ok, frame = capture.read()
        if not ok or frame is None:
            return Finding("camera", False, f"{source!r} opened but gave no picture")
        height, width = frame.shape[:2]
        return Finding("camera", True, f"{source!r} gives {width}x{height} pictures")
    finally:
        capture.release()


def check_camera_module(config: Config) -> Finding:
    """A `picamera2[:N]` source: opened through Picamera2 and one picture read."""
    number = camera_number(config.camera) or 0
    settings = dataclasses.replace(config.camera_settings, settle_s=0)  # one picture is enough
    try:
        capture = Picamera2Capture(number, settings)
    except OSError as error:  # CameraUnavailable: what to do, whole
        return Finding("camera", False, f"{config.camera!r}: {error}")
    try:
        _, image = capture.read()
    except Exception as error:  # libcamera's own words
        return Finding("camera", False, f"{config.camera!r} opened but gave no picture: {error}")
    finally:
        capture.release()
    height, width = image.shape[:2]
    return Finding(
        "camera", True, f"{config.camera!r} ({capture.model}) gives {width}x{height} pictures"
    )


def _v4l2_device(source: str) -> bool:
    """A source OpenCV reads through V4L2: a device index or a /dev/video node."""
    return source.isdigit() or source.startswith("/dev/video")


def check_camera_modules(config: Config) -> Finding:
    """The camera modules libcamera sees (if picamera2 is installed), the `source` that reads
    each, and a V4L2 source on a Pi whose camera is a camera module (it gives no frames)."""
    configured = camera_number(config.camera) is not None
    try:
        found = camera_modules()
    except OSError as error:  # picamera2 missing: only a Raspberry Pi has it
        if configured:
            return Finding("camera modules", False, str(error))
        return Finding("camera modules", True, "picamera2 is not installed: none looked for")
    except Exception as error:  # a broken libcamera says why
        return Finding("camera modules", not configured, f"libcamera failed: {error}")
    if not found:
        if configured:
            return Finding("camera modules", False, NO_CAMERA_ADVICE)
        return Finding("camera modules", True, "libcamera sees none")
    sources = "; ".join(
        f'{describe_module(info)}: source = "{PICAMERA2 if n == 0 else f"{PICAMERA2}:{n}"}"'
        for n, info in enumerate(found)
    )
    seen = f"libcamera sees {len(found)}: {sources}"
    if _v4l2_device(config.camera) and not check_camera(config).ok:
        return Finding(
            "camera modules", False, f"{seen}. [camera] source = {config.camera!r} reads "
            f"through V4L2, which on Raspberry Pi OS Bookworm gives no frames from a camera "
            f'module (opencv#22820): write source = "{PICAMERA2}"',
        )  # fmt: skip
    return Finding("camera modules", True, seen)


def check_gpio(config: Config) -> Finding:
    from controller.tools.doctor_pi import check_pins

    return check_pins(config)


def check_speech(config: Config) -> Finding:
    from controller.tools.doctor_pi import check_speaker

    return check_speaker(config)


def check_venue(config: Config) -> Finding:
    if config.venue is None:
        return Finding("venue broker", True, "none configured: this table stands alone")
    if not config.venue.table:
        return Finding("venue broker", False, "[venue] table is missing: name this table")
    from controller.venue.probe import probe

    ok, detail = probe(config.venue)
    return Finding("venue broker", ok, detail)


CHECKS: tuple[Callable[[Config], Finding], ...] = (
    check_data,
    check_port,
    check_board,
    check_camera,
    check_camera_modules,
    check_gpio,
    check_speech,
    check_venue,
)


def diagnose(path: Path | None) -> list[Finding]:
    """Every check, the configuration first (nothing else runs on a broken one)."""
    where = path if path is not None else default_path()
    try:
        config = load_config(where)
    except ConfigError as error:
        return [Finding("configuration", False, str(error))]
    found = [Finding("configuration", True, str(where) if where else "none: the defaults")]
    return found + [check(config) for check in CHECKS]
