"""What a game is, as the registry knows it: `Game`, typed on the game's own `State`.

OpenSpiel keeps a Game (what a game is) apart from its State (where a game stands); so does this
project. Each game's package subclasses `Game` once, on its own State class, and the registry
(`rules.registry`) holds one instance a game.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rules.ai.hooks import Heuristic
from rules.core import Action, Option, State
from rules.physical import Catalogue, Layout, Table
from rules.words import GameWords

S = TypeVar("S", bound=State)


@dataclass(frozen=True)
class Good:
    """A thing on a location that carries no marker, as everyone may see it: `kind` ("jewel" on
    a deposit, "hold" in a minecart, "die"), `identity` ("ruby"; "speed"), `count` (how many; a
    die's face)."""

    kind: str
    identity: str
    count: int


@dataclass(frozen=True)
class Goods:
    """What lies on one location with no marker (`items`) and the same in players' words."""

    items: tuple[Good, ...]
    words: str


class Game(ABC, Generic[S]):
    """One game: its names, player counts and options, how one starts, its physical form (the
    mat's layout in mm, the printed pieces, what should lie on the table for a state), the words
    players use, a plausible player (`bot`) and what the computer player's search is told
    (`heuristic`). Every game today has a physical form: those hooks are required.

    A subclass sets the attributes and fills in the abstract hooks, typed on its own State.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    state_class: type[S]
    words: GameWords  # what players call things: the mat's places, the options, seat colours
    heuristic: Heuristic = Heuristic()  # the search's defaults: uniform playouts, to the end

    def start(self, options: dict[str, Any], seed: int) -> S:
        """A new game with options already resolved (see `rules.registry.new_game`)."""
        return self.state_class(options, seed)

    @abstractmethod
    def layout(self, options: Mapping[str, Any]) -> Layout:
        """The mat for a game's options: its locations in mm and printed corner markers."""

    @abstractmethod
    def catalogue(self) -> Catalogue:
        """Every printed piece of the game, as the camera and the referee know it."""

    @abstractmethod
    def expected_table(self, state: S) -> Table:
        """What should physically lie on each location now (unsorted; empty locations may be
        absent or empty). The referee's search asks it at every node it tries; build a
        `TableObservation` from it (`TableObservation.of`) where a sorted one is needed."""

    def table_while_played(self, state: S, action: Action) -> Table | None:
        """What the table shows the moment a player's `action` is laid, before the rules'
        consequences of it are carried out by hand (the last card of a trick lands in its
        slot, then the trick is resolved), from the state before it; None where that is the
        table after the action, as it is in every game that does not override this."""
        return None

    def goods(self, state: S) -> Mapping[str, Goods]:
        """What lies on each location that the camera does not read and everyone may see
        (jewels on a deposit and in a minecart's hold, a speed die): drawn and said on the
        phones. Nothing private: a game whose hidden part lies on the table leaves it out. None
        in a game that does not override this."""
        return {}

    @abstractmethod
    def candidates(self, state: S) -> Iterable[Action]:
        """Every action the game's JSON can spell near `state`, legal or not: the conformance
        test checks `is_legal(a) == (a in legal_actions())` over them."""

    @abstractmethod
    def bot(self, state: S, rng: random.Random) -> Action:
        """A plausible player's action for the seat to act: the easy computer player."""
