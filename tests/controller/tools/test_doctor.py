"""`railtable doctor`: each problem found and said in plain words, the good cases ok."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

from controller.config import Config
from controller.tools.doctor import check_board, check_camera, check_data, check_port, diagnose
from hardware.virtual_board import VirtualBoard


def test_a_good_setup_is_all_ok(tmp_path: Path) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text(f'[table]\ndata_dir = "{tmp_path}"\nport = 18233\n')
    findings = diagnose(path)
    assert all(f.ok for f in findings), [f.line() for f in findings]


def test_a_broken_config_is_the_only_finding(tmp_path: Path) -> None:
    path = tmp_path / "railtable.toml"
    path.write_text("[table]\nprot = 1\n")
    (finding,) = diagnose(path)
    assert not finding.ok and "unknown key 'prot'" in finding.detail


def test_the_board_checks(tmp_path: Path) -> None:
    missing = check_board(dataclasses.replace(Config(), board="/dev/ttyACM9"))
    assert not missing.ok and "/dev/serial/by-id/" in missing.detail
    with VirtualBoard(3, 3) as board:
        found = check_board(dataclasses.replace(Config(), board=str(board.path)))
    assert found.ok and "3x3 squares" in found.detail


def test_the_port_data_folder_and_camera_checks(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = check_port(dataclasses.replace(Config(), port=port))
    assert not busy.ok and "another program" in busy.detail
    under_a_file = tmp_path / "file"
    under_a_file.write_text("x")
    bad = check_data(dataclasses.replace(Config(), data_dir=under_a_file / "data"))
    assert not bad.ok and "cannot write into" in bad.detail
    camera = check_camera(dataclasses.replace(Config(), camera=str(tmp_path / "no.mp4")))
    assert not camera.ok and "cannot open" in camera.detail
