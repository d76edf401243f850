"""Tournament mode: rounds, seatings per round for the game's player counts, results from tables.

Round 1 seats the players in a shuffled order (seeded by the round, so it can be shown again);
later rounds seat them Swiss-style, by the tournament's standings so far, so players of like
results meet. A table size is as even as the game's player counts allow; when no split fits
(5 players of a 3-4 player game), the lowest-ranked players who have not had one sit out (a
bye). A round's result at a table is the first game of the round's game that the table finishes
after the round began, with the seating's players in seat order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from controller.venue.standings import Finished, standings

JsonDict = dict[str, Any]


class TournamentError(ValueError):
    """A round that cannot be seated, or input the tournament cannot use; one line."""


@dataclass(frozen=True)
class Seating:
    """Who sits at which table in a round, in seat order (seat 0 first)."""

    table: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    number: int
    game: str
    title: str
    started_at: float
    seatings: tuple[Seating, ...]
    byes: tuple[str, ...] = ()
    results: tuple[Finished, ...] = ()

    def seating_at(self, table: str) -> Seating | None:
        return next((s for s in self.seatings if s.table == table), None)

    def result_at(self, table: str) -> Finished | None:
        return next((r for r in self.results if r.table == table), None)

    @property
    def complete(self) -> bool:
        return len(self.results) == len(self.seatings)

    def to_json(self) -> JsonDict:
        return {
            "number": self.number,
            "game": self.game,
            "title": self.title,
            "started_at": self.started_at,
            "complete": self.complete,
            "byes": list(self.byes),
            "tables": [
                {
                    "table": s.table,
                    "players": list(s.players),
                    "result": None if (r := self.result_at(s.table)) is None else r.to_json(),
                }
                for s in self.seatings
            ],
        }


def table_sizes(players: int, low: int, high: int) -> tuple[list[int], int]:
    """How many sit at each table, and how many sit out: fewest out, then fewest tables, sizes
    as even as can be."""
    for out in range(players + 1):
        seated = players - out
        if seated == 0:
            break
        tables = -(-seated // high)
        if low * tables <= seated <= high * tables:
            base, extra = divmod(seated, tables)
            return [base + 1] * extra + [base] * (tables - extra), out
    raise TournamentError(f"{players} players cannot make a table of {low} to {high} players")


@dataclass(frozen=True)
class Tournament:
    """The players and the rounds so far."""

    name: str
    players: tuple[str, ...]
    rounds: tuple[Round, ...] = field(default=())

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def results(self) -> list[Finished]:
        return [r for rnd in self.rounds for r in rnd.results]

    def standings(self) -> JsonDict:
        return standings(self.results())

    def seat_round(
        self, game: str, title: str, low: int, high: int, tables: Sequence[str], at: float
    ) -> Tournament:
        """The next round of `game` (low..high players) at `tables` (in the order to fill)."""
        now = self.current
        if now is not None and not now.complete:
            waiting = [s.table for s in now.seatings if not now.result_at(s.table)]
            raise TournamentError(
                f"round {now.number} is not over: waiting for {', '.join(waiting)}"
            )
        number = len(self.rounds) + 1
        order = self._order(number)
        sizes, out = table_sizes(len(order), low, high)
        if len(sizes) > len(tables):
            raise TournamentError(
                f"round {number} needs {len(sizes)} tables for {len(order) - out} players of "
                f"{title}; the venue knows {len(tables)}"
            )
        had_bye = {p for rnd in self.rounds for p in rnd.byes}
        byes = [p for p in reversed(order) if p not in had_bye][:out]
        if len(byes) < out:  # everyone had one: the lowest ranked sit out again
            byes += [p for p in reversed(order) if p not in byes][: out - len(byes)]
        seated = [p for p in order if p not in byes]
        seatings = []
        for table, size in zip(tables, sizes, strict=False):
            group, seated = seated[:size], seated[size:]
            turn = (number - 1) % size  # who sits at seat 0 moves round by round
            seatings.append(Seating(table, tuple(group[turn:] + group[:turn])))
        made = Round(number, game, title, at, tuple(seatings), tuple(byes))
        return replace(self, rounds=(*self.rounds, made))

    def _order(self, number: int) -> list[str]:
        if number == 1:
            order = list(self.players)
            random.Random(f"{self.name}/{number}").shuffle(order)
            return order
        ranked = [line["player"] for line in self.standings()["players"]]
        return ranked + [p for p in self.players if p not in ranked]

    def record(self, finished: Finished, started_at: float | None) -> tuple[Tournament, Finished]:
        """A table finished a game: the current round's result there if it is one (named by the
        seating), else the game as it was."""
        rnd = self.current
        if rnd is None or rnd.result_at(finished.table) is not None:
            return self, finished
        seating = rnd.seating_at(finished.table)
        began = started_at if started_at is not None else finished.at
        if (
            seating is None
            or finished.game != rnd.game
            or began < rnd.started_at
            or len(seating.players) != len(finished.scores)
        ):
            return self, finished
        named = replace(finished, players=seating.players, round=rnd.number)
        done = replace(rnd, results=(*rnd.results, named))
        return replace(self, rounds=(*self.rounds[:-1], done)), named

    def to_json(self) -> JsonDict:
        return {
            "name": self.name,
            "players": list(self.players),
            "rounds": [r.to_json() for r in self.rounds],
            "standings": self.standings(),
        }


def check_players(names: Sequence[str]) -> tuple[str, ...]:
    """Players' names as entered: trimmed, none empty, none twice."""
    cleaned = tuple(" ".join(str(n).split()) for n in names)
    if len(cleaned) < 2:
        raise TournamentError("a tournament needs at least 2 players")
    if any(not n or len(n) > 40 for n in cleaned):
        raise TournamentError("every player needs a name of 1 to 40 characters")
    twice = sorted({n for n in cleaned if cleaned.count(n) > 1})
    if twice:
        raise TournamentError(f"a name is given twice: {', '.join(twice)}")
    return cleaned


def from_json(data: JsonDict) -> Tournament:
    """A tournament as `Tournament.to_json` wrote it (the venue keeps it across restarts)."""
    rounds = []
    for r in data["rounds"]:
        results = []
        for t in r["tables"]:
            got = t["result"]
            if got is not None:
                rows = got["results"]
                results.append(
                    Finished(
                        got["table"], got["game_id"], got["game"], got["title"], got["at"],
                        tuple(x["player"] for x in rows), tuple(x["score"] for x in rows),
                        got["round"],
                    )
                )  # fmt: skip
        rounds.append(
            Round(
                r["number"], r["game"], r["title"], r["started_at"],
                tuple(Seating(t["table"], tuple(t["players"])) for t in r["tables"]),
                tuple(r["byes"]), tuple(results),
            )
        )  # fmt: skip
    return Tournament(data["name"], tuple(data["players"]), tuple(rounds))
