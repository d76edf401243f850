"""The firmware logic must stay MicroPython-friendly, and the packages must keep their imports."""

import ast
from pathlib import Path

import firmware_bridge
import hardware

FIRMWARE = Path(hardware.__file__).parent / "firmware"
# Shared by the Pico and CPython; pico_hal.py and main.py run on the Pico only.
PORTABLE = ("protocol.py", "scanner.py", "board.py", "hal.py", "config.py", "__init__.py")
ALLOWED_IMPORTS = {
    "hardware.firmware",
    "hardware.firmware.protocol",
    "hardware.firmware.hal",
    "hardware.firmware.scanner",
    "hardware.firmware.board",
}


def imported_modules(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or ""


def test_portable_firmware_uses_nothing_micropython_lacks():
    for name in PORTABLE:
        tree = ast.parse((FIRMWARE / name).read_text())
        for module in imported_modules(tree):
            assert module in ALLOWED_IMPORTS, f"{name} imports {module}"
        for node in ast.walk(tree):
            assert not isinstance(node, ast.JoinedStr), f"{name}:{node.lineno} uses an f-string"
            if isinstance(node, ast.ClassDef):
                assert not node.decorator_list, f"{name}: class {node.name} is decorated"


def test_packages_import_only_what_the_architecture_allows():
    # The host's link and the board's firmware meet only on the wire (and in the controller).
    others = ("rules", "vision", "controller")
    for package, forbidden in (
        (Path(firmware_bridge.__file__).parent, (*others, "hardware")),
        (Path(hardware.__file__).parent, (*others, "firmware_bridge")),
    ):
        for path in package.rglob("*.py"):
            for module in imported_modules(ast.parse(path.read_text())):
                assert module.split(".")[0] not in forbidden, f"{path} imports {module}"
