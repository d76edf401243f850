"""The languages' catalogues: every line the code marks is in the template and translated in
German, French and Spanish with the same values and not much longer; a line a catalogue lacks
falls back to English and is counted; a phone's Accept-Language picks its language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from controller.words import catalogues
from controller.words.language import (
    LOCALE,
    MISSING,
    Language,
    from_accept_language,
    tongue,
)

LONGER_AT_MOST = 1.6  # a translated line may be 60 % longer than the English one, no more...
SHORT_SLACK = 8  # ...though a word or two may take 8 letters more ("Host": "Spielleitung")
# Lines that are the same word in a language as in English, said alike (checked by a person).
SAME_AS_ENGLISH = {
    "fr": {
        "Points",
        "points",
        "Scores",
        "scores",
        "six",
        "expert",
        "standard",
        "Tables",
        "table",
        "place",
        "score",
        "indigo",  # colours a player may pick
        "orange",
        "olive",
    },
    "de": {"Teams", "Gold", "indigo", "orange"},
    "es": {"no"},
}
_VALUE = re.compile(r"\{(\w+)[^}]*\}")


def _read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def _ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def test_the_template_holds_every_line_the_code_marks(tmp_path: Path) -> None:
    fresh = tmp_path / "railtable.pot"
    catalogues.extract(fresh)
    assert _ids(_read(fresh)) == _ids(_read(catalogues.TEMPLATE)), (
        "the template is behind the code: python -m controller.words.catalogues update"
    )


@pytest.mark.parametrize("language", catalogues.TRANSLATED, ids=lambda la: la.value)
def test_each_language_translates_every_line_whole(language: Language) -> None:
    template = _ids(_read(catalogues.TEMPLATE))
    po = _read(LOCALE / language.value / "LC_MESSAGES" / "railtable.po", language.value)
    assert _ids(po) == template
    for message in po:
        if not message.id:
            continue
        english = [message.id] if isinstance(message.id, str) else list(message.id)
        said = [message.string] if isinstance(message.string, str) else list(message.string or ())
        assert all(said), f"{language.value}: not translated: {english[0]!r}"
        assert "fuzzy" not in message.flags, f"{language.value}: fuzzy: {english[0]!r}"
        for line in said:
            assert set(_VALUE.findall(line)) == set(_VALUE.findall(english[-1])), (
                f"{language.value}: {line!r} fills other values than {english[-1]!r}"
            )
            longest = max(len(e) for e in english)
            assert len(line) <= max(LONGER_AT_MOST * longest, longest + SHORT_SLACK), (
                f"{language.value}: {line!r} is too long for {english[0]!r}"
            )
            same = line in english and line not in SAME_AS_ENGLISH[language.value]
            assert not same or not re.search("[a-z]{3}", _VALUE.sub("", line)), (
                f"{language.value}: still English: {line!r}"
            )


def test_a_line_no_catalogue_has_is_said_in_english_and_counted() -> None:
    german = tongue(Language.DE)
    before = MISSING[(Language.DE, "a line nobody translated, {player}")]
    assert german.tr("a line nobody translated, {player}", player="Ann") == (
        "a line nobody translated, Ann"
    )
    assert MISSING[(Language.DE, "a line nobody translated, {player}")] == before + 1
    assert german.tr("{player}, your turn", player="Ann") == "Ann, du bist dran"


@pytest.mark.parametrize(
    ("header", "language"),
    [("de-CH,de;q=0.9,en;q=0.8", Language.DE), ("en-US,en;q=0.9", Language.EN),
     ("ja,fr;q=0.5,es;q=0.7", Language.ES), ("", Language.EN), (None, Language.EN),
     ("xx;q=abc, fr-CA", Language.FR), ("*", Language.EN)],
)  # fmt: skip
def test_a_phones_accept_language_picks_the_first_language_the_table_speaks(
    header: str | None, language: Language
) -> None:
    assert from_accept_language(header) is language
