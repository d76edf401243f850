"""Derailed! (bygr games): companies race to link their stations across four lanes of rail cards."""

from collections.abc import Mapping
from typing import Any

from rules.core import Action, GameInfo
from rules.derailed import legality, physical
from rules.derailed.actions import Play
from rules.derailed.bot import bot_action
from rules.derailed.state import GAME, OPTIONS, Derailed
from rules.derailed.words import WORDS
from rules.physical import Layout, PlacedPiece, TableObservation


def _start(options: dict[str, object], seed: int) -> Derailed:
    return Derailed(options, seed)


def _candidates(state: Derailed) -> list[Action]:
    return legality.candidates(state.rules, state.d)


def _while_played(state: Derailed, action: Action) -> TableObservation | None:
    """The card that ends a round lies in its slot before the players clear the railway and
    move the columns (seed 003, New Round); any other play is the table after it."""
    if not isinstance(action, Play):
        return None
    laid = PlacedPiece(physical.rail_piece(action.card), physical.ROTATION[action.facing])
    with state.applied([action]):
        after = dict(physical.expected_table(state).pieces)
    if laid in after.get(action.slot, ()):
        return None
    pieces = dict(physical.expected_table(state).pieces)
    pieces[action.slot] = (laid,)
    return TableObservation.of(pieces)


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
    expected_pieces=physical.expected_pieces,
    candidates=_candidates,
    words=WORDS,
    table_while_played=_while_played,
)

__all__ = ["GAME_INFO", "OPTIONS", "Derailed"]
