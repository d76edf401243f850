"""The table's languages: gettext catalogues (docs/translating.md), English for a line one lacks."""

from __future__ import annotations

import enum
import functools
import gettext
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LOCALE = Path(__file__).with_name("locale")  # <code>/LC_MESSAGES/railtable.po, .mo built by setup
DOMAIN = "railtable"


class Language(enum.Enum):
    """A language the table speaks: its code (as in Accept-Language and `[table] language`)."""

    EN = "en"
    DE = "de"
    FR = "fr"
    ES = "es"

    @property
    def own_name(self) -> str:
        """The language's name in itself, as a chooser shows it."""
        return _OWN_NAMES[self]

    @property
    def voice(self) -> str:
        """espeak-ng's voice for it (`espeak-ng --voices`)."""
        return _VOICES[self]


_OWN_NAMES = {
    Language.EN: "English",
    Language.DE: "Deutsch",
    Language.FR: "Français",
    Language.ES: "Español",
}
_VOICES = {Language.EN: "en", Language.DE: "de", Language.FR: "fr-fr", Language.ES: "es"}
CODES = tuple(language.value for language in Language)


def language_setting(key: str, value: object) -> Language:
    """`[table] language` / `--language`: a code ("de"), or one line naming the codes."""
    try:
        return Language(str(value).strip().lower())
    except ValueError:
        raise ValueError(
            f"{key} = {value!r}: not a language the table speaks; one of {', '.join(CODES)}"
        ) from None


def from_accept_language(header: str | None) -> Language:
    """The first language of a browser's Accept-Language the table speaks ("de-CH,de;q=0.9,
    en;q=0.8" -> German), by its q weights; English where none is."""
    weighted: list[tuple[float, int, str]] = []
    for order, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        weighted.append((-q, order, tag.strip().lower().partition("-")[0]))
    for _, _, code in sorted(weighted):
        if code in CODES:
            return Language(code)
    return Language.EN


COOKIE = "railtable-language"  # the phone's choice; else its browser's Accept-Language


def language_of(cookie: str | None, accept_language: str | None) -> Language:
    """A phone's language: its choice (the cookie), else its browser's first the table speaks."""
    if cookie and cookie in CODES:
        return Language(cookie)
    return from_accept_language(accept_language)


class _English(gettext.NullTranslations):
    """The fallback: the English line itself, each one a catalogue lacked counted."""

    def __init__(self, language: Language) -> None:
        super().__init__()
        self.language = language

    def gettext(self, message: str) -> str:
        if self.language is not Language.EN:
            with _LOCK:
                MISSING[(self.language, message)] += 1
        return message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        if self.language is not Language.EN:
            with _LOCK:
                MISSING[(self.language, msgid1)] += 1
        return msgid1 if n == 1 else msgid2


MISSING: Counter[tuple[Language, str]] = Counter()  # lines asked for that a catalogue lacks
_LOCK = threading.Lock()


class Tongue:
    """Lines in one language: `tr` for a line, `ntr` for a line whose words depend on a number.
    Values go in by name (`{player}`), so a translator may put them anywhere in the line."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self._catalogue = _catalogue(language)
        # the lines the catalogue has (gettext keeps them in `_catalog`, plural ones as tuples)
        self._lines = frozenset(k for k in getattr(self._catalogue, "_catalog", {}) if k)

    def known(self, word: str) -> str | None:
        """`word` in this language where the catalogue has it (a jewel, a colour: "ruby"),
        else None, and not counted as missing (most values, "F6", are no words)."""
        return self._catalogue.gettext(word) if word in self._lines else None

    def tr(self, message: str, **values: Any) -> str:
        """`message` in this language, its `{names}` filled in."""
        line = self._catalogue.gettext(message)
        return line.format(**values) if values else line

    def ntr(self, singular: str, plural: str, count: int, **values: Any) -> str:
        """The line for `count` things (the language's own plural forms), `{count}` filled in."""
        return self._catalogue.ngettext(singular, plural, count).format(count=count, **values)

    def listed(self, items: Iterable[str]) -> str:
        """`Ann, Bob and Cleo` in this language."""
        words = list(items)
        if len(words) < 2:
            return "".join(words)
        return self.tr("{first} and {last}", first=", ".join(words[:-1]), last=words[-1])


def _catalogue(language: Language) -> gettext.NullTranslations:
    fallback = _English(language)
    if language is Language.EN:
        return fallback
    try:
        catalogue = gettext.translation(DOMAIN, LOCALE, [language.value])
    except OSError:  # no .mo built (setup compiles them): English, every line counted
        return fallback
    catalogue.add_fallback(fallback)
    return catalogue


@functools.cache
def tongue(language: Language = Language.EN) -> Tongue:
    """The one Tongue of each language (catalogues are read once)."""
    return Tongue(language)
