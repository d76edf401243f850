"""The dwarf mine-wagon race (seed 004, untitled): wagons across a maze of turning platforms."""

from collections.abc import Iterable

from rules.core import Action, GameInfo
from rules.minewagons import legality, physical
from rules.minewagons.bot import bot_action
from rules.minewagons.state import GAME, OPTIONS, MineWagons
from rules.minewagons.words import WORDS


def _start(options: dict[str, object], seed: int) -> MineWagons:
    return MineWagons(options, seed)


def _candidates(state: MineWagons) -> Iterable[Action]:
    return legality.candidates(state.now)


GAME_INFO = GameInfo(
    name=GAME,
    title="Dwarf Mine-Wagon Race",
    min_players=2,
    max_players=4,
    options=OPTIONS,
    start=_start,
    state_class=MineWagons,
    bot=bot_action,
    layout=physical.layout,
    catalogue=physical.catalogue,
    expected_table=physical.expected_table,
    expected_pieces=physical.expected_pieces,
    candidates=_candidates,
    words=WORDS,
)

__all__ = ["GAME_INFO", "OPTIONS", "MineWagons"]
