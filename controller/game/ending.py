"""A game's end screen: who won, the scores and what they are made of, and why the game ended,
said in every language the page speaks (made once, when the game ends or is recalled)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from controller.words.language import Language

if TYPE_CHECKING:
    from controller.game.opened import OpenGame
    from controller.game.phrasing import Phrasebook
    from controller.game.players import Player

JsonDict = dict[str, Any]


class EndedBy(StrEnum):
    """Who ended a game (the END row's "by"): its words are said again in each language."""

    RULES = "rules"  # the rules say it is over: the game's own words say why
    HOST = "host"  # the host ended it from the page
    BENCH = "bench"  # `railtable bench table` started the table afresh


HOST_ENDED = "ended by the host"
BENCH_ENDED = "the bench table started afresh"


def ended_by(data: Mapping[str, Any]) -> EndedBy:
    """Who ended a game, from its END row's data (rows written before "by" was kept: from the
    English reason they hold)."""
    by = data.get("by")
    if isinstance(by, str) and by in EndedBy.__members__.values():
        return EndedBy(by)
    reason = data.get("reason")
    if reason == HOST_ENDED:
        return EndedBy.HOST
    if reason == BENCH_ENDED:
        return EndedBy.BENCH
    return EndedBy.RULES


def why_ended(game: OpenGame, book: Phrasebook, by: EndedBy) -> str:
    """Why the game ended, in the book's language."""
    say = book.words.say
    if by is EndedBy.HOST:
        return say.tr("ended by the host")
    if by is EndedBy.BENCH:
        return say.tr("the bench table started afresh")
    return book.words.why_ended(game.state)


def end_screens(
    game: OpenGame, players: Sequence[Player], book: Phrasebook, by: EndedBy
) -> dict[Language, JsonDict]:
    """The game's end screen in each language: winners, scores, the score parts and the
    reason said in that language."""
    scores = game.state.scores()
    top = max(scores) if scores else 0
    common = {
        "id": game.record.id,
        "game": game.record.game,
        "title": game.info.title,
        "options": dict(game.state.options),
        "by": by.value,
        "scores": scores,
        "winners": [seat for seat, points in enumerate(scores) if points == top],
    }
    screens: dict[Language, JsonDict] = {}
    for language in Language:
        said = book.speaking(language)
        say = said.words.say
        parts = (
            game.state.score_parts()
            if language is Language.EN
            else game.state.score_parts(lambda line, say=say: say.tr(line))  # type: ignore[misc]
        )
        screens[language] = {
            **common,
            "title": said.words.title or game.info.title,
            "players": [p.to_json() for p in said.players],
            "reason": why_ended(game, said, by),
            "score_parts": [
                [{"what": what, "points": points} for what, points in seat_parts]
                for seat_parts in parts
            ],
        }
    return screens
