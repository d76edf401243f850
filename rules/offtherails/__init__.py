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

from collections.abc import Mapping
from typing import Any

from rules.core import GameInfo
from rules.offtherails import physical
from rules.offtherails.bot import bot_action
from rules.offtherails.candidates import candidates
from rules.offtherails.state import GAME, OPTIONS, OffTheRails, Phase
from rules.offtherails.words import WORDS
from rules.physical import Layout


def _start(options: dict[str, object], seed: int) -> OffTheRails:
    return OffTheRails(options, seed)


def _layout(options: Mapping[str, Any]) -> Layout:
    return physical.layout(str(options.get("board", "standard")))


GAME_INFO = GameInfo(
    name=GAME,
    title="Off the Rails",
    min_players=1,
    max_players=4,
    options=OPTIONS,
    start=_start,
    state_class=OffTheRails,
    bot=bot_action,
    layout=_layout,
    catalogue=physical.catalogue,
    expected_table=physical.expected_table,
    expected_pieces=physical.expected_pieces,
    candidates=candidates,
    words=WORDS,
)

__all__ = ["GAME_INFO", "OPTIONS", "OffTheRails", "Phase"]
