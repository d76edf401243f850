"""Off the Rails (Rotten Games, 2018): goblin minecarts racing for jewels before the chasm."""

from collections.abc import Mapping
from typing import Any

from rules.core import GameInfo
from rules.offtherails import physical
from rules.offtherails.bot import bot_action
from rules.offtherails.candidates import candidates
from rules.offtherails.state import GAME, OPTIONS, OffTheRails, Phase
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
    candidates=candidates,
)

__all__ = ["GAME_INFO", "OPTIONS", "OffTheRails", "Phase"]
