"""Derailed! (bygr games): companies race to link their stations across four lanes of rail cards."""

from collections.abc import Mapping
from typing import Any

from rules.core import Action, GameInfo
from rules.derailed import legality, physical
from rules.derailed.bot import bot_action
from rules.derailed.state import GAME, OPTIONS, Derailed
from rules.derailed.words import WORDS
from rules.physical import Layout


def _start(options: dict[str, object], seed: int) -> Derailed:
    return Derailed(options, seed)


def _candidates(state: Derailed) -> list[Action]:
    return legality.candidates(state.rules, state.d)


def _layout(options: Mapping[str, Any]) -> Layout:
    return physical.layout(int(options.get("players", 4)))


GAME_INFO = GameInfo(
    name=GAME,
    title="Derailed!",
    min_players=2,
    max_players=6,
    options=OPTIONS,
    start=_start,
    state_class=Derailed,
    bot=bot_action,
    layout=_layout,
    catalogue=physical.catalogue,
    expected_table=physical.expected_table,
    candidates=_candidates,
    words=WORDS,
)

__all__ = ["GAME_INFO", "OPTIONS", "Derailed"]
