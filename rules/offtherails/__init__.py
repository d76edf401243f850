"""Off the Rails (Rotten Games, 2018): goblin minecarts racing for jewels before the chasm."""

from rules.offtherails.bot import bot_action
from rules.offtherails.state import GAME, OPTIONS, OffTheRails, Phase
from rules.registry import GameInfo, register


def _start(options: dict[str, object], seed: int) -> OffTheRails:
    return OffTheRails(options, seed)


register(
    GameInfo(
        name=GAME,
        title="Off the Rails",
        min_players=1,
        max_players=4,
        options=OPTIONS,
        start=_start,
        state_class=OffTheRails,
        bot=bot_action,
    )
)

__all__ = ["OPTIONS", "OffTheRails", "Phase"]
