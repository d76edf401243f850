"""Trick of the Rails (Hisashi Hayashi, 2011): tricks decide shares and who builds which railway."""

from collections.abc import Mapping
from typing import Any

from rules.core import Action, GameInfo
from rules.physical import Layout
from rules.trickoftherails import legality, physical
from rules.trickoftherails.bot import bot_action
from rules.trickoftherails.state import GAME, OPTIONS, TrickOfTheRails


def _start(options: dict[str, object], seed: int) -> TrickOfTheRails:
    return TrickOfTheRails(options, seed)


def _candidates(state: TrickOfTheRails) -> list[Action]:
    return legality.candidates(state.rules, state.d)


def _layout(options: Mapping[str, Any]) -> Layout:
    return physical.layout()  # one mat for 3 to 5 players


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
    candidates=_candidates,
)

__all__ = ["GAME_INFO", "OPTIONS", "TrickOfTheRails"]
