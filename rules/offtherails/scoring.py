"""Scoring: points per seat, the winners with their tie-breaks, and the solo game's outcome."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.offtherails.components import COLOURS, PRECIOUS, SOLO_GEM_COLOUR, Gem
from rules.offtherails.goods import several
from rules.offtherails.settings import CartBonus
from rules.offtherails.tabletop import CartStatus, Phase, Tabletop, carts_of
from rules.said import Say, same

RUBY_BONUS = 5
CART_BONUS = 3
MISSION_POINTS = 4


def scores(tabletop: Tabletop) -> list[float]:
    """Points per seat as they stand now (solo: the high score)."""
    if tabletop.solo:
        return [float(solo_result(tabletop).high_score)]
    rubies = [stock[Gem.RUBY.order] for stock in tabletop.stockpiles]
    most = max(rubies)
    out = []
    for seat, stock in enumerate(tabletop.stockpiles):
        points = sum(stock[gem.order] * gem.points for gem in Gem)
        if most > 0 and rubies[seat] == most:
            points += RUBY_BONUS
        points += CART_BONUS * bonus_carts(tabletop, seat)
        points += MISSION_POINTS * len(tabletop.claimed[seat])
        out.append(float(points))
    return out


def score_parts(tabletop: Tabletop, say: Say = same) -> list[list[tuple[str, float]]]:
    """What each seat's points are made of: jewels by kind, the ruby bonus, carts, missions
    (said by `say`: English, as the code writes it, where no other is given)."""
    if tabletop.solo:
        return [[(say("high score"), float(solo_result(tabletop).high_score))]]
    rubies = [stock[Gem.RUBY.order] for stock in tabletop.stockpiles]
    most = max(rubies)
    out = []
    for seat, stock in enumerate(tabletop.stockpiles):
        parts = [
            (_jewels(stock[gem.order], gem, say), float(stock[gem.order] * gem.points))
            for gem in Gem
            if stock[gem.order] and gem.points
        ]
        if most > 0 and rubies[seat] == most:
            parts.append((say("most rubies"), float(RUBY_BONUS)))
        carts = bonus_carts(tabletop, seat)
        if carts:
            supply = tabletop.settings.cart_bonus is CartBonus.IN_SUPPLY
            parts.append((_bonus_carts(carts, supply, say), float(CART_BONUS * carts)))
        if tabletop.claimed[seat]:
            missions = len(tabletop.claimed[seat])
            mission = say("1 mission") if missions == 1 else say("{count} missions")
            parts.append((mission.format(count=missions), float(MISSION_POINTS * missions)))
        out.append(parts)
    return out


def provisional_parts(tabletop: Tabletop) -> list[set[str]]:
    """Per seat, the parts of `score_parts` that only count at the end: the minecart bonus
    (seed 001: "Each underailed minecart is worth 3 points", counted when the game ends; a cart
    in the supply now may go out and derail) and the most rubies (another may yet take more).
    Nothing once the game is over, nor in the solo game (its high score is counted at the end)."""
    if tabletop.solo or tabletop.phase is Phase.OVER:
        return [set() for _ in range(tabletop.players)]
    return [
        {what for what, _ in parts if what == "most rubies" or what.endswith(_CART_WORDS)}
        for parts in score_parts(tabletop)
    ]


_CART_WORDS = ("not derailed", "in supply")


def _bonus_carts(carts: int, supply: bool, say: Say) -> str:
    """A score part: the minecarts worth the end bonus ("2 minecarts not derailed")."""
    if supply:
        line = say("1 minecart in supply") if carts == 1 else say("{count} minecarts in supply")
    elif carts == 1:
        line = say("1 minecart not derailed")
    else:
        line = say("{count} minecarts not derailed")
    return line.format(count=carts)


def _jewels(count: int, gem: Gem, say: Say) -> str:
    """A score part: the jewels of one kind in a stockpile ("2 rubies"), a whole line each."""
    if count == 1:
        one = {
            Gem.RUBY: say("1 ruby"),
            Gem.EMERALD: say("1 emerald"),
            Gem.DIAMOND: say("1 diamond"),
            Gem.GOLD: say("1 gold"),
            Gem.ROCK: say("1 rock"),
        }
        return one[gem]
    return several(count, gem, say)


def bonus_carts(tabletop: Tabletop, seat: int) -> int:
    """The seat's minecarts worth the 3-point bonus (see the `cart_bonus` option)."""
    in_supply = [cart for cart in carts_of(tabletop, seat) if cart.status is CartStatus.SUPPLY]
    if tabletop.settings.cart_bonus is CartBonus.IN_SUPPLY:
        return len(in_supply)
    return sum(1 for cart in in_supply if not cart.derailed)


def winners(tabletop: Tabletop) -> list[int]:
    """Seats with the most points, then most gems, then fewest rocks; more means shared."""
    if tabletop.solo:
        return [0] if solo_result(tabletop).outcome is not SoloOutcome.LOSS else []
    points = scores(tabletop)

    def rank(seat: int) -> tuple[float, int, int]:
        stock = tabletop.stockpiles[seat]
        rocks = stock[Gem.ROCK.order]
        return (points[seat], sum(stock) - rocks, -rocks)

    seats = range(tabletop.players)
    best = max(rank(seat) for seat in seats)
    return [seat for seat in seats if rank(seat) == best]


class SoloOutcome(StrEnum):
    """The degrees of winning or losing the solo game."""

    MAJOR_VICTORY = "major_victory"
    VICTORY = "victory"
    PARTIAL_VICTORY = "partial_victory"
    LOSS = "loss"


@dataclass(frozen=True)
class SoloResult:
    """Solo: jewels delivered to matching and other surfaces, the outcome and the high score."""

    outcome: SoloOutcome
    high_score: int
    delivered_matching: dict[Gem, int]
    delivered_other: dict[Gem, int]


def solo_result(tabletop: Tabletop) -> SoloResult:
    delivered = tabletop.delivered
    matching = {gem: delivered[SOLO_GEM_COLOUR[gem]][gem.order] for gem in PRECIOUS}
    total = {gem: sum(delivered[colour][gem.order] for colour in COLOURS) for gem in PRECIOUS}
    other = {gem: total[gem] - matching[gem] for gem in PRECIOUS}
    matching_sets = min(matching.values())
    other_sets = min(other.values())
    if matching_sets >= 2:
        outcome = SoloOutcome.MAJOR_VICTORY
    elif matching_sets >= 1:
        outcome = SoloOutcome.VICTORY
    elif min(total.values()) >= 1:
        outcome = SoloOutcome.PARTIAL_VICTORY
    else:
        outcome = SoloOutcome.LOSS
    high_score = sum(total.values()) + 10 * other_sets + 100 * matching_sets
    return SoloResult(outcome, high_score, matching, other)
