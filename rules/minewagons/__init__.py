"""The dwarf mine-wagon race (seed 004, untitled): wagons across a maze of turning platforms."""

from rules.core import GameInfo
from rules.minewagons.state import GAME, OPTIONS, MineWagons


def _start(options: dict[str, object], seed: int) -> MineWagons:
    return MineWagons(options, seed)


GAME_INFO = GameInfo(
    name=GAME,
    title="Dwarf Mine-Wagon Race",
    min_players=2,
    max_players=4,
    options=OPTIONS,
    start=_start,
    state_class=MineWagons,
)

__all__ = ["GAME_INFO", "OPTIONS", "MineWagons"]
