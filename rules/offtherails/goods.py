"""Off the Rails' things with no marker, for the phones: the jewels on each deposit, each minecart's
hold and its speed die on its square, from the public view (a hit minecart's hidden split is in no
hold: the state keeps it apart, seen by its owner alone)."""

from __future__ import annotations

from typing import Any

from rules.game import Good, Goods
from rules.offtherails.components import Gem

_PLURALS = {"ruby": "rubies", "gold": "gold"}
_AN = ("emerald",)


def counted(count: int, gem: str) -> str:
    """A count of one jewel in words: "a ruby", "an emerald", "2 rubies", "3 gold"."""
    if count == 1:
        return ("an " if gem in _AN else "a ") + gem
    return f"{count} {_PLURALS.get(gem, gem + 's')}"


def jewels_said(jewels: dict[str, int]) -> str:
    """Jewels in words, most precious first: "2 rubies and a diamond"."""
    said = [counted(n, gem) for gem, n in reversed(list(jewels.items())) if n]
    return " and ".join([", ".join(said[:-1]), said[-1]]) if len(said) > 1 else "".join(said)


def _jewels(kind: str, jewels: dict[str, int]) -> list[Good]:
    return [Good(kind, gem.value, int(jewels.get(gem.value, 0))) for gem in Gem
            if jewels.get(gem.value, 0)]  # fmt: skip


def goods(view: dict[str, Any]) -> dict[str, Goods]:
    """Per square: the deposit's jewels, then the minecart's hold and speed die there (said after
    the minecart itself: "the minecart carries a ruby, its speed die at 3")."""
    items: dict[str, list[Good]] = {}
    words: dict[str, list[str]] = {}
    for square, cell in view.get("board", {}).items():
        jewels = cell.get("jewels") or {}
        if any(jewels.values()):
            items.setdefault(square, []).extend(_jewels("jewel", jewels))
            words.setdefault(square, []).append(f"a deposit of {jewels_said(jewels)}")
    for cart in view.get("carts", {}).values():
        square = cart.get("square")
        if cart.get("status") != "on_board" or not square:
            continue
        hold = cart.get("hold") or {}
        items.setdefault(square, []).extend(_jewels("hold", hold))
        items[square].append(Good("die", "speed", int(cart.get("speed", 0))))
        carries = jewels_said(hold) if any(hold.values()) else "nothing"
        words.setdefault(square, []).append(
            f"the minecart carries {carries}, its speed die at {cart.get('speed', 0)}"
        )
    return {sq: Goods(tuple(items[sq]), "; ".join(words[sq])) for sq in items}
