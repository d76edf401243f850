"""Off the Rails' things with no marker, for the phones: the jewels on each deposit, each minecart's
hold and its speed die on its square, from the public view (a hit minecart's hidden split is in no
hold: the state keeps it apart, seen by its owner alone)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.game import Good, Goods
from rules.offtherails.components import Gem
from rules.said import Say, listed, same


def counted(count: int, gem: str, say: Say = same) -> str:
    """A count of one jewel in words: "a ruby", "an emerald", "2 rubies", "3 gold" (a whole line
    for each jewel and each of one and more)."""
    if count == 1:
        one = {
            Gem.RUBY: say("a ruby"),
            Gem.EMERALD: say("an emerald"),
            Gem.DIAMOND: say("a diamond"),
            Gem.GOLD: say("a gold"),
            Gem.ROCK: say("a rock"),
        }
        return one[Gem(gem)]
    return several(count, Gem(gem), say)


def several(count: int, gem: Gem, say: Say = same) -> str:
    """Two or more of one jewel in words: "2 rubies", "3 gold" (a whole line for each)."""
    many = {
        Gem.RUBY: say("{count} rubies"),
        Gem.EMERALD: say("{count} emeralds"),
        Gem.DIAMOND: say("{count} diamonds"),
        Gem.GOLD: say("{count} gold"),
        Gem.ROCK: say("{count} rocks"),
    }
    return many[gem].format(count=count)


def jewels_said(jewels: dict[str, int], say: Say = same) -> str:
    """Jewels in words, most precious first: "2 rubies and a diamond"."""
    return listed([counted(n, gem, say) for gem, n in reversed(list(jewels.items())) if n], say)


def goods_said(items: Sequence[Good], say: Say = same) -> str:
    """What lies on one square with no marker, in words: "a deposit of a ruby; the minecart
    carries nothing, its speed die at 3" (items as `goods` gives them: the deposit's jewels,
    then the minecart's hold and its speed die)."""
    deposit = {g.identity: g.count for g in items if g.kind == "jewel"}
    hold = {g.identity: g.count for g in items if g.kind == "hold"}
    dice = [g.count for g in items if g.kind == "die"]
    words = []
    if deposit:
        words.append(say("a deposit of {jewels}").format(jewels=jewels_said(deposit, say)))
    if dice:
        carries = jewels_said(hold, say) if hold else say("nothing")
        line = say("the minecart carries {jewels}, its speed die at {speed}")
        words.append(line.format(jewels=carries, speed=dice[0]))
    return "; ".join(words)


def private_said(key: str, value: Any, say: Say = same) -> str | None:
    """What a seat alone sees, in words: the jewels a collision spilled, which it splits
    ("the jewels to split: a ruby and a rock"); None for anything else."""
    if key != "move" or not isinstance(value, dict) or not isinstance(value.get("pile"), dict):
        return None
    pile = {gem: int(n) for gem, n in value["pile"].items() if int(n)}
    jewels = jewels_said(pile, say) if pile else say("nothing")
    return say("the jewels to split: {jewels}").format(jewels=jewels)


def _jewels(kind: str, jewels: dict[str, int]) -> list[Good]:
    return [Good(kind, gem.value, int(jewels.get(gem.value, 0))) for gem in Gem
            if jewels.get(gem.value, 0)]  # fmt: skip


def goods(view: dict[str, Any]) -> dict[str, Goods]:
    """Per square: the deposit's jewels, then the minecart's hold and speed die there (said after
    the minecart itself: "the minecart carries a ruby, its speed die at 3")."""
    items: dict[str, list[Good]] = {}
    for square, cell in view.get("board", {}).items():
        jewels = cell.get("jewels") or {}
        if any(jewels.values()):
            items.setdefault(square, []).extend(_jewels("jewel", jewels))
    for cart in view.get("carts", {}).values():
        square = cart.get("square")
        if cart.get("status") != "on_board" or not square:
            continue
        hold = cart.get("hold") or {}
        items.setdefault(square, []).extend(_jewels("hold", hold))
        items[square].append(Good("die", "speed", int(cart.get("speed", 0))))
    return {sq: Goods(tuple(here), goods_said(here)) for sq, here in items.items()}
