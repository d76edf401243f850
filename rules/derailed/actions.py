"""Derailed! actions and chance outcomes: frozen values with a stable JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rules.core import Action, ActionCodec, Decision, Visibility
from rules.derailed.cards import Facing
from rules.derailed.data import Column
from rules.said import spoken

# ---- chance


@dataclass(frozen=True)
class LayStation(Action):
    """The next station card of a shuffled column, laid at the end of the next lane (lane 1 first).

    After the last one of a destination column, lanes whose two stations are of one company are
    solved by swapping destination cards (seed, Setup 5).
    """

    TYPE = "lay_station"
    WORDS = spoken("lay the {company} station in the {column} column")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.TABLE  # laid face up in its station slot
    column: Column
    company: str


@dataclass(frozen=True)
class Draw(Action):
    """Digital hands: a rail card dealt or drawn from the rail deck into `seat`'s hand."""

    TYPE = "draw"
    WORDS = spoken("{seat:seat} draws {card}")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.INPUT  # the phone tells its owner; the table shows a face-down deck
    seat: int
    card: str


# ---- players


@dataclass(frozen=True)
class Play(Action):
    """Play a rail card from one's hand to a slot of the railway area, maybe on top of another.

    `facing` says which column the card's top edge points to: a card always lies along its lane.
    """

    TYPE = "play"
    WORDS = spoken("play {card} on {slot}, facing the {facing}")
    LOCATIONS = ("slot",)
    VISIBILITY = Visibility.TABLE
    slot: str
    card: str
    facing: Facing


@dataclass(frozen=True)
class Discard(Action):
    """Put a card from one's hand face up on the discard pile and draw another.

    In a turn only when no card in hand can be placed (decision); between rounds, up to 2 cards
    (option exchange, the later rulebook).
    """

    TYPE = "discard"
    WORDS = spoken("discard {card}")
    VISIBILITY = Visibility.TABLE  # it shows face up on the discard pile
    card: str


@dataclass(frozen=True)
class KeepHand(Action):
    """Option exchange: the seat to exchange keeps the rest of its hand."""

    TYPE = "keep_hand"
    WORDS = spoken("keep the hand")
    VISIBILITY = Visibility.IMPLIED  # nothing shows it; the next seat's card (or exchange) does
    PROVEN_BY_NEXT_SEAT: ClassVar[bool] = True


@dataclass(frozen=True)
class ChooseStarter(Action):
    """Rounds 2-3: among players tied for the start, the one the players say begins."""

    TYPE = "choose_starter"
    WORDS = spoken("{seat:seat} starts the round")
    VISIBILITY = Visibility.INPUT
    DECISION = Decision.FREE  # the tied players say; any of them may play first
    seat: int


CHANCE_CLASSES: tuple[type[Action], ...] = (LayStation, Draw)
PLAYER_CLASSES: tuple[type[Action], ...] = (Play, Discard, KeepHand, ChooseStarter)
CODEC = ActionCodec((*CHANCE_CLASSES, *PLAYER_CLASSES))
