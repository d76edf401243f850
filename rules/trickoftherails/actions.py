"""Trick of the Rails actions and chance outcomes: frozen values with a stable JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.core import Action, ActionCodec, Decision, Visibility
from rules.said import spoken
from rules.trickoftherails.cards import Company


class End(StrEnum):
    """An end of a railway: left is the locomotive's side (the station card's side at the start)."""

    LEFT = "left"
    RIGHT = "right"


class Remedy(StrEnum):
    """What the host does about a proven revoke (besides undoing to it)."""

    PENALTY = "penalty"  # the offender loses the `revoke_penalty` points at the end
    WAIVE = "waive"  # play on, no penalty


# ---- chance: setting up


@dataclass(frozen=True)
class LayLane(Action):
    """The next random card of the trick lane: an exchange, a city, or an expert lane pool card."""

    TYPE = "lay_lane"
    WORDS = spoken("lay {card} in the trick lane")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.TABLE  # laid face up in its lane slot
    card: str


@dataclass(frozen=True)
class Deal(Action):
    """Digital deal: the next card, to `seat`, the seat whose hand is next to fill (round robin)."""

    TYPE = "deal"
    WORDS = spoken("deal {card} to {seat:seat}")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.INPUT  # the phone tells its owner; nothing on the table shows it
    seat: int
    card: str


@dataclass(frozen=True)
class StartRailway(Action):
    """Table mode: an undealt railway card, seen as it starts its company's railway."""

    TYPE = "start_railway"
    WORDS = spoken("start a railway with {card}")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.TABLE
    card: str


@dataclass(frozen=True)
class FirstLead(Action):
    """Option first_lead=random: the seat that leads the first trick."""

    TYPE = "first_lead"
    WORDS = spoken("{seat:seat} leads first")
    CHANCE_OUTCOME = True
    VISIBILITY = Visibility.INPUT
    seat: int


# ---- players


@dataclass(frozen=True)
class Play(Action):
    """Play a card from one's hand to one's trick slot (lead or follow)."""

    TYPE = "play"
    WORDS = spoken("play {card}")
    VISIBILITY = Visibility.TABLE
    card: str


@dataclass(frozen=True)
class PlaceCity(Action):
    """City trick: the winner adds the city card to either end of any company's railway."""

    TYPE = "place_city"
    WORDS = spoken("place the city at the {end} end of the {company} railway")
    VISIBILITY = Visibility.TABLE
    company: Company
    end: End


@dataclass(frozen=True)
class PlaceLocomotive(Action):
    """Locomotive trick: the winner puts the locomotive left of a railway that has none yet.

    Also the expert lane's infinite locomotive, placed by the same winner after the 6.
    """

    TYPE = "place_locomotive"
    WORDS = spoken("put the locomotive on the {company} railway")
    VISIBILITY = Visibility.TABLE
    company: Company


@dataclass(frozen=True)
class LayTrack(Action):
    """City or locomotive trick: add one's played card to an end of its own company's railway."""

    TYPE = "lay_track"
    WORDS = spoken("lay the card at the {end} end of its railway")
    VISIBILITY = Visibility.TABLE
    end: End


@dataclass(frozen=True)
class SettleRevoke(Action):
    """Table mode: the host's remedy for the revoke just proven (given on the host's phone)."""

    TYPE = "settle_revoke"
    WORDS = spoken("settle the revoke: {remedy}")
    VISIBILITY = Visibility.INPUT
    DECISION = Decision.HOST  # the host's ruling, not the offender's
    remedy: Remedy


CHANCE_CLASSES: tuple[type[Action], ...] = (LayLane, Deal, StartRailway, FirstLead)
PLAYER_CLASSES: tuple[type[Action], ...] = (
    Play,
    PlaceCity,
    PlaceLocomotive,
    LayTrack,
    SettleRevoke,
)
CODEC = ActionCodec((*CHANCE_CLASSES, *PLAYER_CLASSES))
