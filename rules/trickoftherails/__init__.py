"""Trick of the Rails (Hisashi Hayashi, 2011): tricks decide shares and who builds which railway."""

from collections.abc import Mapping
from typing import Any

from rules.core import Action, GameInfo
from rules.physical import Layout, TableObservation
from rules.trickoftherails import legality, physical
from rules.trickoftherails.actions import Play
from rules.trickoftherails.bot import bot_action
from rules.trickoftherails.state import GAME, OPTIONS, TrickOfTheRails
from rules.trickoftherails.words import WORDS


def _start(options: dict[str, object], seed: int) -> TrickOfTheRails:
    return TrickOfTheRails(options, seed)


def _candidates(state: TrickOfTheRails) -> list[Action]:
    return legality.candidates(state.rules, state.d)


def _while_played(state: TrickOfTheRails, action: Action) -> TableObservation | None:
    """A card played lies in its trick slot before the trick it ends is resolved by hand."""
    if not isinstance(action, Play) or state.current_player is None or state.current_player < 0:
        return None
    if len(state.d.trick) < int(state.options["players"]) - 1:
        return None  # not the trick's last card: the table after the play is the one laid
    return physical.table_when_played(state, action.card)


def _layout(options: Mapping[str, Any]) -> Layout:
    return physical.layout(int(options.get("players", 5)))  # one mat for 3 to 5 players


GAME_INFO = GameInfo(
    name=GAME,
    title="Trick of the Rails",
    min_players=3,
    max_players=5,
    options=OPTIONS,
    start=_start,
    state_class=TrickOfTheRails,
    bot=bot_action,
    layout=_layout,
    catalogue=physical.catalogue,
    expected_table=physical.expected_table,
    expected_pieces=physical.expected_pieces,
    candidates=_candidates,
    table_while_played=_while_played,
    words=WORDS,
)

__all__ = ["GAME_INFO", "OPTIONS", "TrickOfTheRails"]
