"""Derailed! (bygr games): companies race to link their stations across four lanes of rail cards."""

from collections.abc import Iterable, Mapping
from random import Random
from typing import Any

from rules.core import Action
from rules.derailed import legality, physical
from rules.derailed.actions import Play
from rules.derailed.bot import bot_action
from rules.derailed.heuristic import HEURISTIC
from rules.derailed.state import GAME, OPTIONS, Derailed
from rules.derailed.words import WORDS
from rules.game import Game
from rules.physical import Catalogue, Layout, PlacedPiece, Table


class DerailedGame(Game[Derailed]):
    """Derailed! as the registry knows it: 2 to 6 players, one mat of lanes of card slots."""

    name = GAME
    title = "Derailed!"
    min_players = 2
    max_players = 6
    options = OPTIONS
    state_class = Derailed
    words = WORDS
    heuristic = HEURISTIC

    def layout(self, options: Mapping[str, Any]) -> Layout:
        return physical.layout(int(options.get("players", 4)))

    def catalogue(self) -> Catalogue:
        return physical.catalogue()

    def expected_table(self, state: Derailed) -> Table:
        return physical.expected_table(state)

    def table_while_played(self, state: Derailed, action: Action) -> Table | None:
        """The card that ends a round lies in its slot before the players clear the railway and
        move the columns (seed 003, New Round); any other play is the table after it."""
        if not isinstance(action, Play):
            return None
        laid = PlacedPiece(physical.rail_piece(action.card), physical.ROTATION[action.facing])
        with state.applied([action]):
            after = physical.slot_pieces(state, action.slot)
        if laid in after:
            return None
        pieces = dict(physical.expected_table(state))
        pieces[action.slot] = (laid,)
        return pieces

    def candidates(self, state: Derailed) -> Iterable[Action]:
        return legality.candidates(state.rules, state.d)

    def bot(self, state: Derailed, rng: Random) -> Action:
        return bot_action(state, rng)


DERAILED = DerailedGame()

__all__ = ["DERAILED", "OPTIONS", "Derailed", "DerailedGame"]
