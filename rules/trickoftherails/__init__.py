"""Trick of the Rails (Hisashi Hayashi, 2011): tricks decide shares and who builds which railway."""

from collections.abc import Iterable, Mapping
from random import Random
from typing import Any

from rules.core import Action
from rules.game import Game
from rules.physical import Catalogue, Layout, Table
from rules.trickoftherails import legality, physical
from rules.trickoftherails.actions import Play
from rules.trickoftherails.bot import bot_action
from rules.trickoftherails.state import GAME, OPTIONS, TrickOfTheRails
from rules.trickoftherails.words import WORDS


class TrickOfTheRailsGame(Game[TrickOfTheRails]):
    """Trick of the Rails as the registry knows it: 3 to 5 players, one mat of card slots; its
    search takes the defaults (no heuristic of its own)."""

    name = GAME
    title = "Trick of the Rails"
    min_players = 3
    max_players = 5
    options = OPTIONS
    state_class = TrickOfTheRails
    words = WORDS

    def layout(self, options: Mapping[str, Any]) -> Layout:
        return physical.layout(int(options.get("players", 5)))  # one mat for 3 to 5 players

    def catalogue(self) -> Catalogue:
        return physical.catalogue()

    def expected_table(self, state: TrickOfTheRails) -> Table:
        return physical.expected_table(state)

    def table_while_played(self, state: TrickOfTheRails, action: Action) -> Table | None:
        """A card played lies in its trick slot before the trick it ends is resolved by hand."""
        if not isinstance(action, Play) or state.current_player is None:
            return None
        if state.current_player < 0 or len(state.d.trick) < int(state.options["players"]) - 1:
            return None  # not the trick's last card: the table after the play is the one laid
        return physical.table_when_played(state, action.card)

    def candidates(self, state: TrickOfTheRails) -> Iterable[Action]:
        return legality.candidates(state.rules, state.d)

    def bot(self, state: TrickOfTheRails, rng: Random) -> Action:
        return bot_action(state, rng)


TRICK_OF_THE_RAILS = TrickOfTheRailsGame()

__all__ = ["OPTIONS", "TRICK_OF_THE_RAILS", "TrickOfTheRails", "TrickOfTheRailsGame"]
