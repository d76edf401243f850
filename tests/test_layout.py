"""The project's shape: imports point one way, and every module says in one line what it is for."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEPENDENT = ("rules", "vision", "firmware_bridge")
PACKAGES = (*INDEPENDENT, "controller", "hardware")


def imported_tops(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            tops.add(node.module.split(".")[0])
    return tops


@pytest.mark.parametrize("package", INDEPENDENT)
def test_rules_vision_and_firmware_bridge_never_import_each_other_or_controller(
    package: str,
) -> None:
    forbidden = {p for p in (*INDEPENDENT, "controller") if p != package}
    for path in sorted((ROOT / package).rglob("*.py")):
        wrong = imported_tops(path) & forbidden
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


def test_every_module_starts_with_a_docstring() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if ast.get_docstring(ast.parse(path.read_text())) is None
    ]
    assert not missing, f"modules without a docstring: {missing}"
