"""What each asker may see: a verdict's question only for its seat (and the host, unless it is a
hidden choice: a hidden split is its seat's alone), a dealt card or a hidden split only for the
seat it belongs to (the host sees the log's actions as a spectator does), a demo's seed for nobody
but the host's game record, a game's secret for nobody but the host's record of a finished game
(no snapshot or row holds it: the log's `secrets` table, read by `EventLog.secret`)."""

from __future__ import annotations

from typing import Any

from controller.game.access import Asker, Role
from controller.game.store import Event, EventKind
from controller.referee.verdict import VerdictKind
from rules.core import IllegalAction, State
from rules.registry import GAMES, game_info


def verdict_for(data: dict[str, Any], who: Asker) -> dict[str, Any]:
    """A verdict as the asker may see it: the question's options only for its seat and the host;
    a hidden choice's (`"hidden": true`, a hidden split) for its seat alone, not the host."""
    seat = data.get("seat")
    if (who.role is Role.SEAT and who.seat == seat and seat is not None) or (
        who.role is Role.HOST and not data.get("hidden")
    ):
        return data
    hidden = dict(data)
    if data.get("kind") in (VerdictKind.CHOICE.value, VerdictKind.NEEDS_INPUT.value):
        hidden["options"] = []
        hidden["withheld"] = True  # its words say who is asked, not what (controller/words)
    hidden["actions"] = [a for a in data.get("actions", []) if not _is_draw(a)]
    return hidden


def _is_draw(action: dict[str, Any]) -> bool:
    return bool(action.get("hidden")) or action.get("chance", False) is True


def event_for(event: Event, game: str | None, viewer: State | None, who: Asker) -> dict[str, Any]:
    """A log row as the asker may see it (a dealt card, a hidden split stay with their seat).

    `game` names the row's game; `viewer` is any state of it (its `action_view` says what a seat
    sees of an action, whatever the position), or None for a game this table no longer knows."""
    out = event.to_json()
    if event.kind is EventKind.ACTION:
        out["data"] = {"action": _action_for(event, game, viewer, who)}  # its words: at the edge
    elif event.kind is EventKind.VERDICT:
        out["data"] = verdict_for(event.data, who)
    return out


def _action_for(event: Event, game: str | None, viewer: State | None, who: Asker) -> dict[str, Any]:
    if game is None or game not in GAMES:
        return {"type": "hidden"}
    try:
        action = game_info(game).state_class.CODEC.parse(event.data["action"])
    except IllegalAction:
        return {"type": "hidden"}
    seat = who.seat if who.role is Role.SEAT else None  # the host sees what a spectator sees
    actor = -1 if event.seat is None else event.seat
    if viewer is not None:
        return viewer.action_view(action, actor, seat)
    return {"type": action.TYPE} if action.CHANCE_OUTCOME else action.to_json()


def audiences(players: int) -> tuple[Asker, ...]:
    """Everyone who may see the game differently: the host, a spectator, each seat."""
    return (Asker.host(), Asker.spectator(), *(Asker.at(s) for s in range(players)))


def audience(who: Asker, players: int) -> Asker:
    """The audience whose view `who` gets: a seat beyond the game's players sees a spectator's."""
    if who.role is Role.SEAT and (who.seat is None or not 0 <= who.seat < players):
        return Asker.spectator()
    return who
