"""The phone page in a phone's language: its HTML's lines translated, its scripts' lines with it.

The page's HTML is English; each text (and `aria-label`, `alt`, `title`, `placeholder`) is a line
of the catalogue, whitespace made single. An element marked `data-t` is one line with its inline
markup (`Press <em>Calibrate now</em> and ...`), so that no sentence is cut in fragments. The
lines the page's scripts say (`tr("...")` in controller/web/js/) go with the page as JSON."""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from typing import Any, BinaryIO

from babel.messages.mofile import read_mo

from controller.words.language import DOMAIN, LOCALE, Language, tongue

ATTRIBUTES = ("aria-label", "alt", "title", "placeholder")
_LETTER = re.compile(r"[^\W\d_]")
_SPACE = re.compile(r"\s+")
_RAW = {"script", "style"}
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "wbr",
}


def line_of(text: str) -> str:
    """A text as the catalogue keeps it: whitespace made single, trimmed."""
    return _SPACE.sub(" ", text).strip()


def _says(text: str) -> bool:
    return bool(_LETTER.search(text))


class _Page(HTMLParser):
    """The page walked once: each line handed to `say`, its answer written in its place."""

    def __init__(self, say: Callable[[str, int], str]) -> None:
        super().__init__(convert_charrefs=True)
        self.say = say
        self.out: list[str] = []
        self._kept: list[str] = []  # open elements kept as written: <script>, translate="no"
        self._whole: list[Any] | None = None  # a data-t element: [tag, depth, parts, line]

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=True)

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        source = self.get_starttag_text() or ""
        open_tag = not closed and tag not in _VOID
        if self._whole is not None:  # inline markup inside a whole line: the line's own
            self._whole[1] += 1 if open_tag else 0
            self._whole[2].append(f"<{tag}>")
            return
        if self._kept:  # inside an element kept as written
            self.out.append(source)
            if open_tag:
                self._kept.append(tag)
            return
        said = [
            (k, self.say(line_of(v), self.getpos()[0]) if k in ATTRIBUTES and v and _says(v) else v)
            for k, v in attrs
        ]
        if said != attrs:
            inner = "".join(f" {k}" if v is None else f' {k}="{html.escape(v)}"' for k, v in said)
            source = f"<{tag}{inner}{' /' if closed else ''}>"
        self.out.append(source)
        if not open_tag:
            return
        if tag in _RAW or dict(attrs).get("translate") == "no":
            self._kept.append(tag)
        elif "data-t" in dict(attrs):
            self._whole = [tag, 0, [], self.getpos()[0]]

    def handle_endtag(self, tag: str) -> None:
        whole = self._whole
        if whole is not None:
            if whole[1] > 0:
                whole[1] -= 1
                whole[2].append(f"</{tag}>")
                return
            self.out.append(self.say(line_of("".join(whole[2])), whole[3]))
            self._whole = None
        if self._kept:
            self._kept.pop()
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self._whole is not None:
            self._whole[2].append(html.escape(data, quote=False))
            return
        if self._kept or not _says(data):
            self.out.append(data if self._kept else html.escape(data, quote=False))
            return
        lead = data[: len(data) - len(data.lstrip())]
        trail = data[len(data.rstrip()) :]
        line = self.say(line_of(data), self.getpos()[0])
        self.out.append(lead + html.escape(line, quote=False) + trail)


def _walk(page: str, say: Callable[[str, int], str]) -> str:
    walker = _Page(say)
    walker.feed(page)
    walker.close()
    return "".join(walker.out)


def page_lines(page: str) -> Iterator[tuple[int, str]]:
    """Each line of the page's HTML to translate, with its line number (a `data-t` line keeps
    its inline markup, escaped as in HTML)."""
    found: list[tuple[int, str]] = []

    def keep(line: str, number: int) -> str:
        found.append((number, line))
        return line

    _walk(page, keep)
    yield from found


def extract_html(
    fileobj: BinaryIO, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel's extractor for the page's HTML (controller/words/locale/babel.cfg)."""
    for number, line in page_lines(fileobj.read().decode("utf-8")):
        yield number, None, line, []


@functools.cache
def script_lines(language: Language) -> str:
    """The catalogue's lines in `language` as the page's scripts read them (JSON: the English
    line -> its translation, or its plural forms), with the plural rule's name."""
    lines: dict[str, Any] = {}
    if language is not Language.EN:
        path = LOCALE / language.value / "LC_MESSAGES" / f"{DOMAIN}.mo"
        if path.exists():
            with path.open("rb") as f:
                for message in read_mo(f):
                    if not message.id or not message.string:
                        continue
                    if isinstance(message.id, str):
                        lines[message.id] = message.string
                    else:
                        lines[message.id[0]] = list(message.string)
    plural = "n>1" if language is Language.FR else "n!=1"
    languages = [{"code": la.value, "name": la.own_name} for la in Language]
    data = {"language": language.value, "plural": plural, "languages": languages, "lines": lines}
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


@functools.cache
def page_in(language: Language, page: str) -> str:
    """The page in `language`: its lines translated (English for a line the catalogue lacks),
    `<html lang>` set, and the scripts' lines beside it."""
    say = tongue(language)
    out = _walk(page, lambda line, _: say.tr(line))
    out = out.replace('<html lang="en">', f'<html lang="{language.value}">', 1)
    lines = f'<script type="application/json" id="lines">{script_lines(language)}</script>\n'
    return out.replace("</head>", lines + "</head>", 1)
