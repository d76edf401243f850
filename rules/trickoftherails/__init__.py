"""Trick of the Rails (Hisashi Hayashi, 2011): tricks decide shares and who builds which railway."""

from rules.core import GameInfo
from rules.trickoftherails.state import GAME, OPTIONS, TrickOfTheRails


def _start(options: dict[str, object], seed: int) -> TrickOfTheRails:
    return TrickOfTheRails(options, seed)


GAME_INFO = GameInfo(
    name=GAME,
    title="Trick of the Rails",
    min_players=3,
    max_players=5,
    options=OPTIONS,
    start=_start,
    state_class=TrickOfTheRails,
)

__all__ = ["GAME_INFO", "OPTIONS", "TrickOfTheRails"]
