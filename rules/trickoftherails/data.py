"""What a Trick of the Rails game holds while it runs: phases, options as rules, mutable data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.core import BadOptions
from rules.trickoftherails.actions import Remedy
from rules.trickoftherails.cards import HAND_SIZE, Company
from rules.trickoftherails.lane import LaneStyle


class Phase(StrEnum):
    """Where the game is: setting up by chance, playing a trick, resolving it, or over."""

    LANE = "lane"  # chance: the trick lane's random cards are laid
    DEAL = "deal"  # chance, digital deal: the hands are dealt
    RAILWAYS = "railways"  # chance, table mode: the undealt cards are seen starting railways
    FIRST_LEAD = "first_lead"  # chance, option first_lead=random
    PLAY = "play"  # players play cards to the trick
    PLACE_CITY = "place_city"  # the winner places the lane's city
    PLACE_LOCOMOTIVE = "place_locomotive"  # the winner places the lane's locomotive
    PLACE_INFINITE = "place_infinite"  # expert lane: the winner also places the infinite one
    LAY_TRACK = "lay_track"  # each player, winner first, adds their card to its railway
    REVOKE = "revoke"  # table mode: a revoke was just proven; the host settles it
    OVER = "over"


CHANCE_PHASES = frozenset({Phase.LANE, Phase.DEAL, Phase.RAILWAYS, Phase.FIRST_LEAD})


class Hands(StrEnum):
    """Option `hands`: who knows the hands."""

    DEALT = "dealt"  # the engine deals and knows every hand
    TABLE = "table"  # real cards: the engine learns each card as it is played


class FirstLeader(StrEnum):
    """Option `first_lead`."""

    SEAT_0 = "seat_0"  # seat the player who was last aboard a train as seat 0 (printed rule)
    RANDOM = "random"


class NoLocomotive(StrEnum):
    """Option `no_locomotive`: the share value of a company whose railway got no locomotive."""

    WORTHLESS = "worthless"  # no train runs: share value 0 (the BGA implementation)
    WHOLE_RAILWAY = "whole_railway"  # every card counts and there is no locomotive to pay for


@dataclass(frozen=True)
class Rules:
    """The options as the rules use them (checked once, when the game starts)."""

    players: int
    hands: Hands = Hands.DEALT
    lane: LaneStyle = LaneStyle.BASIC
    teams: bool = False
    first_lead: FirstLeader = FirstLeader.SEAT_0
    front_of_station: bool = True
    no_locomotive: NoLocomotive = NoLocomotive.WORTHLESS
    revoke_penalty: int = 50

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def undealt(self) -> int:
        return 50 - self.players * self.hand_size

    @staticmethod
    def of(options: Mapping[str, Any]) -> Rules:
        players = int(options.get("players", 4))
        teams = bool(options.get("teams", False))
        if teams and players != 4:
            raise BadOptions(f"option 'teams' needs exactly 4 players, not {players}")
        penalty = int(options.get("revoke_penalty", 50))
        if penalty < 0:
            raise BadOptions(f"option 'revoke_penalty' must not be negative, got {penalty}")
        return Rules(
            players=players,
            hands=Hands(options.get("hands", Hands.DEALT)),
            lane=LaneStyle(options.get("lane", LaneStyle.BASIC)),
            teams=teams,
            first_lead=FirstLeader(options.get("first_lead", FirstLeader.SEAT_0)),
            front_of_station=bool(options.get("front_of_station", True)),
            no_locomotive=NoLocomotive(options.get("no_locomotive", NoLocomotive.WORTHLESS)),
            revoke_penalty=penalty,
        )


@dataclass(frozen=True, order=True)
class Void:
    """A seat played another company when `company` was led in `trick` (the game's action `ply`)."""

    company: Company
    trick: int
    ply: int


@dataclass(frozen=True)
class Revoke:
    """A proven revoke: `seat` did not follow `company` in trick `trick` though it held `card`.

    `proven_in_trick` is the trick where `card` was played, which proves it; `undo_to` is how many
    actions of the history to keep to go back to just before the revoking play (in `trick`).
    """

    seat: int
    trick: int
    company: Company
    card: str
    proven_in_trick: int
    undo_to: int
    remedy: Remedy | None = None


@dataclass(slots=True)
class Data:
    """Everything that changes during a game, as immutable values: a snapshot is a shallow copy.

    Railways, locomotives and `left_added` are indexed by company (COMPANIES order); hands, held
    counts, shares and voids by seat. `deck` holds the railway cards nobody has seen yet: the
    cards still to deal (digital deal) or the cards in hands and still to start railways (table
    mode). `voids` lists, per seat, each company it failed to follow: the first such trick, and
    the history length just before that play (where an undo to the revoke goes).
    """

    players: int
    phase: Phase = Phase.LANE
    plan: tuple[str, ...] = ()
    lane: tuple[str, ...] = ()
    lane_taken: int = 0  # lane cards taken from the left so far: lane[0] lies in slot lane_taken
    deck: frozenset[str] = frozenset()
    hands: tuple[tuple[str, ...], ...] = ()
    held: tuple[int, ...] = ()
    railways: tuple[tuple[str, ...], ...] = ()
    left_added: tuple[int, ...] = (0, 0, 0, 0, 0)
    locomotives: tuple[str | None, ...] = (None, None, None, None, None)
    shares: tuple[tuple[str, ...], ...] = ()
    removed: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()
    trick_number: int = 1
    leader: int = 0
    trick: tuple[tuple[int, str], ...] = ()
    winner: int | None = None
    to_lay: tuple[int, ...] = ()
    share_tricks: int = 0
    voids: tuple[tuple[Void, ...], ...] = ()
    revokes: tuple[Revoke, ...] = ()
    resume: Phase | None = None  # the phase a settled revoke returns to

    def copy(self) -> Data:
        c = Data.__new__(Data)
        for name in Data.__slots__:
            setattr(c, name, getattr(self, name))
        return c
