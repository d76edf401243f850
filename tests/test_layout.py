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


# Inside the controller: each part imports only the parts below it. The referee is pure; the
# game (its owner, the log, privacy) stands on the referee; the API reaches the table only through
# the game's owner and its own `Table` protocol, never `controller.table`.
CONTROLLER_MAY_IMPORT: dict[str, set[str]] = {
    "referee": set(),
    "words": {"referee"},
    "checks": {"referee", "words"},
    "game": {"referee", "words"},
    "vision_bridge": set(),
    "simulated": {"game", "referee", "vision_bridge"},
    "venue": {"game", "referee", "words"},
    "table": {"game", "referee", "simulated", "vision_bridge", "venue", "words"},
    "api": {"game", "referee", "words"},
    "config": {"table", "venue", "words"},
    "tools": {"config", "table", "game", "referee", "vision_bridge", "venue"},
    "serve": {"api", "table", "config"},
    "bench": {
        "api", "checks", "game", "referee", "simulated", "table", "vision_bridge", "config",
        "venue", "words",
    },
    "cli": {
        "api", "bench", "checks", "config", "game", "referee", "serve", "simulated", "table",
        "tools", "vision_bridge", "venue", "words",
    },
}  # fmt: skip
# What outside the controller each part may not reach for: the referee and the game know the
# rules alone, the API knows no camera, board or firmware.
CONTROLLER_FORBIDDEN = {
    "referee": {"vision", "firmware_bridge", "hardware", "fastapi", "uvicorn", "sqlite3"},
    "words": {"vision", "firmware_bridge", "hardware", "fastapi", "uvicorn", "sqlite3"},
    "checks": {"firmware_bridge", "hardware", "fastapi", "uvicorn", "sqlite3"},
    "game": {"vision", "firmware_bridge", "hardware", "fastapi", "uvicorn"},
    "api": {"vision", "firmware_bridge", "hardware", "cv2", "serial", "sqlite3"},
    "venue": {"vision", "firmware_bridge", "hardware", "cv2", "serial"},
}
LOOSE_MODULES_AT_MOST = 6


def _controller_part(path: Path) -> str:
    parts = path.relative_to(ROOT / "controller").parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def _controller_imports(tree: ast.AST) -> set[str]:
    parts: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = node.module.split(".")
            if names[0] == "controller" and len(names) > 1:
                parts.add(names[1])
            elif node.module == "controller":
                parts.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names = alias.name.split(".")
                if names[0] == "controller" and len(names) > 1:
                    parts.add(names[1])
    return parts


def test_the_controller_is_sub_packages_with_few_loose_modules() -> None:
    loose = sorted(p.name for p in (ROOT / "controller").glob("*.py"))
    assert len(loose) <= LOOSE_MODULES_AT_MOST, loose
    here = ROOT / "controller"
    for part in CONTROLLER_MAY_IMPORT:
        assert (here / part).is_dir() or (here / f"{part}.py").exists(), part


@pytest.mark.parametrize("path", sorted((ROOT / "controller").rglob("*.py")), ids=str)
def test_controller_parts_import_only_the_parts_below_them(path: Path) -> None:
    part = _controller_part(path)
    if part == "__init__":
        return
    assert part in CONTROLLER_MAY_IMPORT, f"{part}: a new part of the controller needs its rule"
    tree = ast.parse(path.read_text(), str(path))
    wrong = _controller_imports(tree) - CONTROLLER_MAY_IMPORT[part] - {part}
    assert not wrong, f"{path.relative_to(ROOT)} imports controller.{sorted(wrong)}"
    outside = imported_tops(tree) & CONTROLLER_FORBIDDEN.get(part, set())
    assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


# ---- sizes: no module, class or function grows past what one person reads at once
MODULE_LINES_AT_MOST = 700
FUNCTION_LINES_AT_MOST = 80  # outside the benchmarks
CLASS_ATTRIBUTES_AT_MOST = 25  # in the controller
CLASS_METHODS_AT_MOST = 30


def _product_modules() -> list[Path]:
    return [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]


def _is_benchmark(path: Path) -> bool:
    rel = path.relative_to(ROOT)
    return "bench" in rel.parts or rel.stem == "bench"


def _class_sizes(node: ast.ClassDef) -> tuple[int, int]:
    """A class's attributes (annotated fields and what its methods set on self) and methods."""
    methods = [b for b in node.body if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef)]
    attributes = {
        b.target.id
        for b in node.body
        if isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name)
    }
    for method in methods:
        for sub in ast.walk(method):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.ctx, ast.Store)
                and isinstance(sub.value, ast.Name)
                and sub.value.id == "self"
            ):
                attributes.add(sub.attr)
    return len(attributes), len(methods)


def too_large() -> set[str]:
    """Every module, function and controller class over its limit, as 'path[:name]'."""
    found: set[str] = set()
    for path in _product_modules():
        rel = str(path.relative_to(ROOT))
        source = path.read_text()
        if len(source.splitlines()) > MODULE_LINES_AT_MOST:
            found.add(rel)
        for node in ast.walk(ast.parse(source, rel)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_benchmark(path):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > FUNCTION_LINES_AT_MOST:
                    found.add(f"{rel}:{node.name}")
            elif isinstance(node, ast.ClassDef) and rel.startswith("controller/"):
                attributes, methods = _class_sizes(node)
                if attributes > CLASS_ATTRIBUTES_AT_MOST or methods > CLASS_METHODS_AT_MOST:
                    found.add(f"{rel}:{node.name}")
    return found


def test_no_module_class_or_function_is_too_large() -> None:
    found = too_large()
    assert not found, f"over the size limits (modules {MODULE_LINES_AT_MOST} lines, functions "
    f"{FUNCTION_LINES_AT_MOST}, classes {CLASS_ATTRIBUTES_AT_MOST} attributes / "
    f"{CLASS_METHODS_AT_MOST} methods): {sorted(found)}"


def test_the_size_check_sees_a_large_function_and_class(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES_AT_MOST))
    tree = ast.parse(f"def f():\n{body}\n")
    (func,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert (
        func.end_lineno is not None and func.end_lineno - func.lineno + 1 > FUNCTION_LINES_AT_MOST
    )
    sets = "\n".join(f"        self.a{i} = {i}" for i in range(CLASS_ATTRIBUTES_AT_MOST + 1))
    cls = ast.parse(f"class C:\n    def __init__(self):\n{sets}\n").body[0]
    assert isinstance(cls, ast.ClassDef) and _class_sizes(cls)[0] > CLASS_ATTRIBUTES_AT_MOST
