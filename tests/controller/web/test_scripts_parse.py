"""Every script of the phone page parses as an ES module: a merge that declares a name twice in one
scope (two `const g` in one function) stops the whole page, and no other test says why."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).parents[3] / "controller" / "web" / "js").glob("*.js"))


def test_there_are_scripts() -> None:
    assert len(SCRIPTS) > 3


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_parses_as_a_module(script: Path) -> None:
    node = shutil.which("node")
    assert node, "Node.js checks the page's scripts: `bash .ci/run` installs it"
    done = subprocess.run(
        [node, "--input-type=module", "--check"],
        input=script.read_bytes(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
