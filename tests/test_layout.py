"""The project's shape: imports point one way, and every module says in one line what it is for."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEPENDENT = ("rules", "vision", "firmware_bridge")
PACKAGES = (*INDEPENDENT, "controller", "hardware")
# What each package must never import. `hardware` (the firmware and its virtual board, a stand-in
# for tests and demos) stands alone; only the controller joins it to the host's link.
FORBIDDEN = {
    **{p: {q for q in (*INDEPENDENT, "controller", "hardware") if q != p} for p in INDEPENDENT},
    "hardware": {*INDEPENDENT, "controller"},
}


def imported_tops(tree: ast.AST) -> set[str]:
    """Top-level packages imported anywhere in a module: at the top, inside functions or
    branches, or by name through importlib.import_module() / __import__()."""
    tops: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            tops.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and _called_name(node.func) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            tops.add(node.args[0].value.split(".")[0])
    return tops


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_packages_never_import_what_the_architecture_forbids(package: str) -> None:
    forbidden = FORBIDDEN[package]
    for path in sorted((ROOT / package).rglob("*.py")):
        wrong = imported_tops(ast.parse(path.read_text(), str(path))) & forbidden
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


def test_the_import_check_sees_imports_inside_functions_and_by_name() -> None:
    source = """
import os

def bench():
    from hardware.virtual_board import VirtualBoard
    if True:
        import controller.cli
    return importlib.import_module("vision.bench"), __import__("rules")
"""
    assert imported_tops(ast.parse(source)) == {"os", "hardware", "controller", "vision", "rules"}


def test_every_module_starts_with_a_docstring() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if ast.get_docstring(ast.parse(path.read_text())) is None
    ]
    assert not missing, f"modules without a docstring: {missing}"
