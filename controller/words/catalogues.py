"""The catalogues' upkeep: extract the lines from the code and the page, update and compile them."""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_python
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import write_po

from controller.words.language import DOMAIN, LOCALE, Language

ROOT = LOCALE.parents[2]  # the project: controller/words/locale -> .
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
# The lines a person reads: marked by tr("...") and ntr("...", "...", count) in the Python code and
# the page's scripts, by say("...") and spoken("...") in the rules (rules/said.py), and every text
# of the page's HTML (controller/words/page.py).
KEYWORDS = {"tr": None, "ntr": (1, 2)}
RULES_KEYWORDS = {**KEYWORDS, "say": None, "spoken": None}
PYTHON = [
    ("controller/**.py", "python"),
    ("rules/**.py", "controller.words.catalogues:extract_rules"),
]
PAGE = [
    ("controller/web/js/*.js", "javascript"),
    ("controller/web/index.html", "controller.words.page:extract_html"),
    ("controller/venue/web/venue.js", "javascript"),
    ("controller/venue/web/index.html", "controller.words.page:extract_html"),
]
TRANSLATED = tuple(language for language in Language if language is not Language.EN)


def extract_rules(
    fileobj: BinaryIO, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[Any]:
    """Babel's extractor for the rules: the lines marked as in any Python file, and the words of
    each option a host chooses (`OptionWords(label, help, {value: words})`, written plainly)."""
    source = fileobj.read()
    yield from extract_python(io.BytesIO(source), keywords, comment_tags, options)
    tree = ast.parse(source)
    if getattr(fileobj, "name", "").endswith("components.py"):
        yield from _enum_words(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "OptionWords"):
            continue
        said = [a for a in node.args[:2] if isinstance(a, ast.Constant)]
        if len(node.args) > 2 and isinstance(node.args[2], ast.Dict):
            said += [v for v in node.args[2].values if isinstance(v, ast.Constant)]
        for constant in said:
            if isinstance(constant.value, str) and constant.value:
                yield constant.lineno, None, constant.value, []


def _enum_words(tree: ast.Module) -> Iterator[Any]:
    """A game's components as players say them in its actions ("ruby", "red", "north"): the
    values of its enumerations that are words."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or not any(
            "Enum" in ast.unparse(b) for b in node.bases
        ):
            continue
        for item in node.body:
            if (
                isinstance(item, ast.Assign)
                and isinstance(item.value, ast.Constant)
                and isinstance(item.value.value, str)
                and re.fullmatch(r"[a-z]{3,}( [a-z]+)*", item.value.value)
            ):
                yield item.lineno, None, item.value.value, []


def _pybabel(*arguments: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *arguments])  # type: ignore[no-untyped-call]


def extract(template: Path = TEMPLATE) -> None:
    """Every line the code and the page mark, into the template (`railtable.pot`)."""
    catalog = Catalog(project="railtable", fuzzy=False)
    for methods, keywords in ((PYTHON, RULES_KEYWORDS), (PAGE, KEYWORDS)):
        for _, _, message, _, context in extract_from_dir(ROOT, methods, {}, keywords):
            catalog.add(message, None, [], context=context)
    with template.open("wb") as f:
        write_po(f, catalog, width=0, no_location=True, sort_output=True)


def update() -> None:
    """Each language's .po brought up to the template (new lines empty, for a translator)."""
    for language in TRANSLATED:
        po = LOCALE / language.value / "LC_MESSAGES" / f"{DOMAIN}.po"
        if po.exists():
            _pybabel("update", "--no-wrap", "--no-fuzzy-matching", "-D", DOMAIN,
                     "-i", str(TEMPLATE), "-d", str(LOCALE), "-l", language.value)  # fmt: skip
        else:
            _pybabel("init", "--no-wrap", "-D", DOMAIN, "-i", str(TEMPLATE), "-d", str(LOCALE),
                     "-l", language.value)  # fmt: skip


def compile_all() -> None:
    """Each language's .mo from its .po (what the service reads)."""
    _pybabel("compile", "-D", DOMAIN, "-d", str(LOCALE), "--statistics")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.words.catalogues")
    parser.add_argument("step", choices=["extract", "update", "compile"])
    step = parser.parse_args(argv).step
    if step in ("extract", "update"):
        extract()
    if step == "update":
        update()
    if step == "compile":
        compile_all()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
