"""Off the Rails (Rotten Games, 2018): goblin minecarts racing for jewels before the chasm.

The package's shape, one responsibility a module (the rules are plain functions over a Tabletop):
  components, missions, actions   the game's pieces, cards and actions as values; board data files
  settings                        OPTIONS and the Settings fixed for one game
  tabletop                        the mutable Tabletop, its values (Cart, Tile, Move) and queries
  legality                        each action's generator beside its "why not"
  play                            carrying out an action: hands it to turns, movement or deposits
  turns / movement / deposits     setup and turn order / carts moving, colliding / deck and chasm
  chance, scoring, codec          chance outcomes / points and winners / state JSON and views
  state                           OffTheRails: the thin State front with a read-only query API
  bot, candidates, physical       a plausible player / conformance candidates / the real table
"""

from collections.abc import Iterable, Mapping
from random import Random
from typing import Any

from rules.core import Action
from rules.game import Game, Goods
from rules.offtherails import goods, physical
from rules.offtherails.bot import careful_action
from rules.offtherails.candidates import candidates
from rules.offtherails.heuristic import HEURISTIC
from rules.offtherails.state import GAME, OPTIONS, OffTheRails, Phase
from rules.offtherails.words import WORDS
from rules.physical import Catalogue, Layout, Table


class OffTheRailsGame(Game[OffTheRails]):
    """Off the Rails as the registry knows it: 1 to 4 players, a board of squares."""

    name = GAME
    title = "Off the Rails"
    min_players = 1
    max_players = 4
    options = OPTIONS
    state_class = OffTheRails
    words = WORDS
    heuristic = HEURISTIC

    def layout(self, options: Mapping[str, Any]) -> Layout:
        return physical.layout(str(options.get("board", "standard")))

    def catalogue(self) -> Catalogue:
        return physical.catalogue()

    def expected_table(self, state: OffTheRails) -> Table:
        return physical.expected_table(state)

    def goods(self, state: OffTheRails) -> Mapping[str, Goods]:
        return goods.goods(state.view(None))

    def candidates(self, state: OffTheRails) -> Iterable[Action]:
        return candidates(state)

    def bot(self, state: OffTheRails, rng: Random) -> Action:
        return careful_action(state, rng)


OFF_THE_RAILS = OffTheRailsGame()

__all__ = ["OFF_THE_RAILS", "OPTIONS", "OffTheRails", "OffTheRailsGame", "Phase"]
