"""English words no line in German, French or Spanish has, for the scans that read a game in
those languages (not "wagon", "mission", "points" nor "on": French words too; nor "die": German)."""

from __future__ import annotations

import re

ENGLISH = re.compile(
    r"\b(?:the|minecarts?|railway|tiles?|cards?|track|bend|turn|round|trick|shares?|left|right"
    r"|deposit|supply|jewels?|and|with|of|seat|take|play|lay|put|draw|nothing|carries)\b",
    re.IGNORECASE,
)


def english_in(text: str, names: tuple[str, ...] = ()) -> list[str]:
    """The English words of `text`, once the proper names in `names` (a game's title, the
    players') are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return [m.group(0) for m in ENGLISH.finditer(text)]
