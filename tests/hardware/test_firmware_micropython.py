"""The firmware's logic under the real MicroPython interpreter (its WebAssembly build, on Node)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "micropython"


def test_firmware_logic_runs_under_micropython_against_the_golden_vectors() -> None:
    node = shutil.which("node")
    assert node, "Node.js is needed to run MicroPython here: `bash .ci/run` installs it"
    assert (HERE / "node_modules" / "@micropython").is_dir(), (
        "MicroPython for Node is not installed: `bash .ci/run` installs it, or "
        "`cd tests/hardware/micropython && npm ci`"
    )
    done = subprocess.run(
        [node, str(HERE / "run.mjs"), str(ROOT), str(HERE / "check_firmware.py")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "firmware under micropython:" in done.stdout
    assert "checks passed" in done.stdout
