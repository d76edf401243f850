"""The 11 Off the Rails mission cards and when each counts as completed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.offtherails.components import NO_GEMS, PRECIOUS, Gem, Gems
from rules.said import spoken


class Mission(StrEnum):
    """A mission card, by the words on it."""

    BEHIND_ENEMY_LINES = "behind_enemy_lines"
    BUMPER_CARTS = "bumper_carts"
    DIAMONDS_ARENT_FOREVER = "diamonds_arent_forever"
    DIRTY_GOBLINS = "dirty_goblins"
    GEM_COLLECTOR = "gem_collector"
    GREEN_FINGERS = "green_fingers"
    HEAD_TO_HEAD = "head_to_head"
    JEWEL_HEIST = "jewel_heist"
    RED_LEADER = "red_leader"
    SPICE_OF_LIFE = "spice_of_life"
    GOLD_IN_THEM_HILLS = "gold_in_them_hills"


MISSIONS = tuple(Mission)

# Each mission card's title, as printed large on it.
MISSION_TITLE = {
    Mission.BEHIND_ENEMY_LINES: spoken("Behind Enemy Lines"),
    Mission.BUMPER_CARTS: spoken("Bumper Carts"),
    Mission.DIAMONDS_ARENT_FOREVER: spoken("Diamonds Aren't Forever"),
    Mission.DIRTY_GOBLINS: spoken("Dirty Goblins"),
    Mission.GEM_COLLECTOR: spoken("Gem Collector"),
    Mission.GREEN_FINGERS: spoken("Green Fingers"),
    Mission.HEAD_TO_HEAD: spoken("Head to Head"),
    Mission.JEWEL_HEIST: spoken("Jewel Heist"),
    Mission.RED_LEADER: spoken("Red Leader"),
    Mission.SPICE_OF_LIFE: spoken("Spice of Life"),
    Mission.GOLD_IN_THEM_HILLS: spoken("Gold in Them Hills"),
}

MISSION_TEXT = {
    Mission.BEHIND_ENEMY_LINES: spoken(
        "Stockpile at least 1 jewel by leaving from an opponent's surface."
    ),
    Mission.BUMPER_CARTS: spoken("Derail an opponent's minecart in a collision."),
    Mission.DIAMONDS_ARENT_FOREVER: spoken("Stockpile 1 diamond in a turn from a single minecart."),
    Mission.DIRTY_GOBLINS: spoken("Given to the player with the most rocks in their stockpile."),
    Mission.GEM_COLLECTOR: spoken("Fill a minecart with 5 precious jewels."),
    Mission.GREEN_FINGERS: spoken("Stockpile 2 emeralds in a turn from a single minecart."),
    Mission.HEAD_TO_HEAD: spoken("Cause a head-on collision."),
    Mission.JEWEL_HEIST: spoken("Cause an opponent's minecart to drop at least 1 jewel."),
    Mission.RED_LEADER: spoken("Stockpile 4 rubies in a turn from a single minecart."),
    Mission.SPICE_OF_LIFE: spoken("Have at least 1 gem of each type in your stockpile."),
    Mission.GOLD_IN_THEM_HILLS: spoken("Stockpile 2 gold in a turn from a single minecart."),
}

# "Stockpile N <gem> in a turn from a single minecart".
_SINGLE_CART_HAULS = {
    Mission.DIAMONDS_ARENT_FOREVER: (Gem.DIAMOND, 1),
    Mission.GREEN_FINGERS: (Gem.EMERALD, 2),
    Mission.RED_LEADER: (Gem.RUBY, 4),
    Mission.GOLD_IN_THEM_HILLS: (Gem.GOLD, 2),
}


@dataclass(frozen=True)
class TurnRecord:
    """What the active player did this turn that a mission card can ask about."""

    hauls: tuple[Gems, ...] = ()  # jewels stockpiled, one entry per minecart leaving the mine
    left_from_opponent_surface: bool = False  # with at least one jewel
    derailed_opponent: bool = False
    head_on: bool = False
    made_opponent_drop: bool = False
    filled_with_precious: bool = False

    def with_haul(self, haul: Gems) -> TurnRecord:
        return TurnRecord(
            (*self.hauls, haul),
            self.left_from_opponent_surface,
            self.derailed_opponent,
            self.head_on,
            self.made_opponent_drop,
            self.filled_with_precious,
        )


def completed(
    mission: Mission,
    seat: int,
    record: TurnRecord,
    stockpiles: Sequence[Gems],
    holds_on_board: Sequence[Gems],
) -> bool:
    """Whether `seat` has completed `mission`, given this turn's record and the table now."""
    if mission in _SINGLE_CART_HAULS:
        gem, n = _SINGLE_CART_HAULS[mission]
        return any(h[gem.order] >= n for h in record.hauls)
    mine = stockpiles[seat] if seat < len(stockpiles) else NO_GEMS
    match mission:
        case Mission.BEHIND_ENEMY_LINES:
            return record.left_from_opponent_surface
        case Mission.BUMPER_CARTS:
            return record.derailed_opponent
        case Mission.HEAD_TO_HEAD:
            return record.head_on
        case Mission.JEWEL_HEIST:
            return record.made_opponent_drop
        case Mission.GEM_COLLECTOR:
            return record.filled_with_precious or any(
                h[Gem.ROCK.order] == 0 and sum(h) >= 5 for h in holds_on_board
            )
        case Mission.SPICE_OF_LIFE:
            return all(mine[g.order] >= 1 for g in PRECIOUS)
        case Mission.DIRTY_GOBLINS:
            rocks = mine[Gem.ROCK.order]
            others = [s[Gem.ROCK.order] for i, s in enumerate(stockpiles) if i != seat]
            return rocks >= 1 and all(rocks > o for o in others)
    raise AssertionError(mission)
