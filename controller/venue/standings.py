"""Standings from finished games: per game and per player; places with ties shared; CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.words.language import Tongue, tongue

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Finished:
    """A game a table finished: who sat where and what each scored."""

    table: str
    game_id: int
    game: str
    title: str
    at: float
    players: tuple[str, ...]  # seat order
    scores: tuple[float, ...]
    round: int | None = None  # the tournament round it was played for, if any

    def places(self) -> list[int]:
        """Each seat's place: 1 + how many scored more (a tie shares the place)."""
        return [1 + sum(other > mine for other in self.scores) for mine in self.scores]

    def to_json(self) -> JsonDict:
        return {
            "table": self.table,
            "game_id": self.game_id,
            "game": self.game,
            "title": self.title,
            "at": self.at,
            "round": self.round,
            "results": [
                {"seat": seat, "player": player, "score": score, "place": place}
                for seat, (player, score, place) in enumerate(
                    zip(self.players, self.scores, self.places(), strict=True)
                )
            ],
        }


@dataclass
class Line:
    """One player's line of a standings table."""

    player: str
    games: int = 0
    wins: int = 0
    beaten: int = 0  # opponents who finished below: the fair sum over games of any size
    points: float = 0.0  # the games' own scores, added up
    tables: set[str] = field(default_factory=set)

    def add(self, table: str, place: int, score: float, below: int) -> None:
        self.games += 1
        self.wins += place == 1
        self.beaten += below
        self.points += score
        self.tables.add(table)

    def to_json(self, rank: int) -> JsonDict:
        return {
            "rank": rank,
            "player": self.player,
            "games": self.games,
            "wins": self.wins,
            "beaten": self.beaten,
            "points": self.points,
        }


def _key(line: Line) -> tuple[int, int, float]:
    return (line.wins, line.beaten, line.points)


def ranked(lines: Iterable[Line]) -> list[JsonDict]:
    """Lines sorted by wins, then opponents beaten, then points; equal keys share a rank."""
    ordered = sorted(lines, key=lambda line: (*(-k for k in _key(line)), line.player))
    out: list[JsonDict] = []
    for index, line in enumerate(ordered):
        rank = index + 1
        if index and _key(ordered[index - 1]) == _key(line):
            rank = out[-1]["rank"]
        out.append(line.to_json(rank))
    return out


def standings(games: Sequence[Finished]) -> JsonDict:
    """{"players": the evening's table, "games": per game its own table}."""
    overall: dict[str, Line] = {}
    per_game: dict[str, dict[str, Line]] = {}
    titles: dict[str, str] = {}
    for game in games:
        titles[game.game] = game.title
        places = game.places()
        for player, score, place in zip(game.players, game.scores, places, strict=True):
            below = sum(other > place for other in places)
            for table in (overall, per_game.setdefault(game.game, {})):
                table.setdefault(player, Line(player)).add(game.table, place, score, below)
    return {
        "players": ranked(overall.values()),
        "games": [
            {"game": name, "title": titles[name], "players": ranked(lines.values())}
            for name, lines in sorted(per_game.items())
        ],
    }


def games_csv(games: Sequence[Finished], say: Tongue | None = None) -> str:
    """Every finished game, one line per seat: what a spreadsheet or a ranking site reads (its
    headings in `say`'s language, English by default; the values as they are)."""
    say = say or tongue()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([say.tr("finished_at"), say.tr("table"), say.tr("game"), say.tr("game_id"),
                     say.tr("round"), say.tr("seat"), say.tr("player"), say.tr("score"),
                     say.tr("place")])  # fmt: skip
    for game in sorted(games, key=lambda g: (g.at, g.table)):
        for result in game.to_json()["results"]:
            writer.writerow([
                f"{game.at:.0f}", game.table, game.game, game.game_id,
                "" if game.round is None else game.round, result["seat"],
                _safe(result["player"]), f"{result['score']:g}", result["place"],
            ])  # fmt: skip
    return out.getvalue()


def standings_csv(games: Sequence[Finished], say: Tongue | None = None) -> str:
    """The standings, per game and overall ("all"), one line per player (its headings in
    `say`'s language)."""
    say = say or tongue()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([say.tr("game"), say.tr("rank"), say.tr("player"), say.tr("games"),
                     say.tr("wins"), say.tr("beaten"), say.tr("points")])  # fmt: skip
    table = standings(games)
    sections = [("all", table["players"])] + [(g["game"], g["players"]) for g in table["games"]]
    for name, lines in sections:
        for line in lines:
            writer.writerow([name, line["rank"], _safe(line["player"]), line["games"],
                             line["wins"], line["beaten"], f"{line['points']:g}"])  # fmt: skip
    return out.getvalue()


def _safe(text: str) -> str:
    """A name as a spreadsheet cell that a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
