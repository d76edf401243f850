"""The dwarf mine-wagon race (seed 004, untitled): wagons across a maze of turning platforms."""

from collections.abc import Iterable, Mapping
from random import Random
from typing import Any

from rules.core import Action
from rules.game import Game
from rules.minewagons import legality, physical
from rules.minewagons.bot import bot_action
from rules.minewagons.heuristic import HEURISTIC
from rules.minewagons.state import GAME, OPTIONS, MineWagons
from rules.minewagons.words import WORDS
from rules.physical import Catalogue, Layout, Table


class MineWagonsGame(Game[MineWagons]):
    """The mine-wagon race as the registry knows it: 2 to 4 players, a mat of squares."""

    name = GAME
    title = "Dwarf Mine-Wagon Race"
    min_players = 2
    max_players = 4
    options = OPTIONS
    state_class = MineWagons
    words = WORDS
    heuristic = HEURISTIC

    def layout(self, options: Mapping[str, Any]) -> Layout:
        return physical.layout(options)

    def catalogue(self) -> Catalogue:
        return physical.catalogue()

    def expected_table(self, state: MineWagons) -> Table:
        return physical.expected_table(state)

    def candidates(self, state: MineWagons) -> Iterable[Action]:
        return legality.candidates(state.now)

    def bot(self, state: MineWagons, rng: Random) -> Action:
        return bot_action(state, rng)


MINE_WAGONS = MineWagonsGame()

__all__ = ["MINE_WAGONS", "OPTIONS", "MineWagons", "MineWagonsGame"]
