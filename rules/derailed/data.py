"""What a Derailed! game holds while it runs: phases, the options as rules, the mutable data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.core import BadOptions
from rules.derailed.cards import CardDataError, CardSet, load_cards

COMPANIES = "ABCDEF"
HAND_SIZE = 4
ROUNDS = 3
EXCHANGE_MAX = 2  # later rulebook: discard up to 2 cards between rounds
# Seed, Play Structure: the round ends when this many players have reached their destination.
ARRIVALS_TO_END = {2: 1, 3: 2, 4: 3, 5: 3, 6: 3}


class Phase(StrEnum):
    """Where the game is."""

    DEAL = "deal"  # chance, digital hands: the starting hands are dealt one card at a time
    STATIONS = "stations"  # chance: the station cards of a column are laid lane by lane
    STARTER = "starter"  # rounds 2-3: the players tied for the start say who begins
    EXCHANGE = "exchange"  # option exchange: discard up to 2 cards and draw replacements
    PLAY = "play"  # a player plays a rail card (or, stuck, discards one)
    DRAW = "draw"  # chance, digital hands: the player draws from the rail deck
    OVER = "over"


class Hands(StrEnum):
    """Option `hands`: who knows the hands."""

    DIGITAL = "digital"  # the engine deals and draws, and knows every hand
    TABLE = "table"  # real cards: the engine learns each card as it is played


class Arrival(StrEnum):
    """Option `arrival`: whose card can make a company arrive."""

    ANY_CARD = "any_card"  # whoever's card completes the route
    OWN_CARD = "own_card"  # only a card the company's own player lays


class RoundEnd(StrEnum):
    """Option `round_end`: when the round stops once enough players have arrived."""

    AT_ONCE = "at_once"  # after the turn in which they arrived
    EQUAL_TURNS = "equal_turns"  # play on until every player has had as many turns


class DryDeck(StrEnum):
    """Option `dry_deck`: a player is to draw, the rail deck is out and no discard pile can
    replace it (the seed's reshuffle has nothing to shuffle)."""

    END_ROUND = "end_round"  # the round ends after that turn (hands are filled up next round)
    PLAY_ON = "play_on"  # no card is drawn; players play out their hands


class NextStarter(StrEnum):
    """Option `next_starter`: who begins rounds 2 and 3."""

    FEWEST_LAST_ROUND = "fewest_last_round"  # seed; a tie: the tied players say who
    THEN_TOTAL = "fewest_last_round_then_total"  # later rulebook: a tie goes to fewer points


class Then(StrEnum):
    """What follows the cards owed to players once they are drawn."""

    STATIONS = "stations"  # the deal is done: lay the station columns
    TURN_END = "turn_end"  # the turn is over: the next player, or the end of the round
    EXCHANGE = "exchange"  # back to the exchange between rounds
    ROUND_START = "round_start"  # hands are full again: the exchange, or the first turn


class Column(StrEnum):
    """A column of station cards."""

    START = "start"
    DESTINATION = "destination"


class EndReason(StrEnum):
    """Why a round ended."""

    ARRIVED = "arrived"  # most players reached their destination (seed)
    DECK_EMPTY = "deck_empty"  # nothing left to draw (option dry_deck=end_round)
    BLOCKED = "blocked"  # a whole round of turns without a card placed (decision 8)


@dataclass(frozen=True)
class Rules:
    """The options as the rules use them (checked once, when the game starts)."""

    players: int
    cards: CardSet
    hands: Hands = Hands.DIGITAL
    stub_connects: bool = True
    arrival: Arrival = Arrival.ANY_CARD
    round_end: RoundEnd = RoundEnd.AT_ONCE
    exchange: bool = False
    next_starter: NextStarter = NextStarter.FEWEST_LAST_ROUND
    dry_deck: DryDeck = DryDeck.END_ROUND

    @property
    def slots(self) -> int:
        return 4 * self.players

    @property
    def arrivals_to_end(self) -> int:
        return ARRIVALS_TO_END[self.players]

    @staticmethod
    def of(options: Mapping[str, Any]) -> Rules:
        players = int(options.get("players", 4))
        try:
            cards = load_cards(str(options.get("card_file", "")))
        except CardDataError as e:
            raise BadOptions(f"option 'card_file': {e}") from None
        if cards.total < HAND_SIZE * players + 1:
            raise BadOptions(
                f"option 'card_file': {cards.total} rail cards are too few for {players} players"
            )
        return Rules(
            players=players,
            cards=cards,
            hands=Hands(options.get("hands", Hands.DIGITAL)),
            stub_connects=bool(options.get("stub_connects", True)),
            arrival=Arrival(options.get("arrival", Arrival.ANY_CARD)),
            round_end=RoundEnd(options.get("round_end", RoundEnd.AT_ONCE)),
            exchange=bool(options.get("exchange", False)),
            next_starter=NextStarter(options.get("next_starter", NextStarter.FEWEST_LAST_ROUND)),
            dry_deck=DryDeck(options.get("dry_deck", DryDeck.END_ROUND)),
        )


@dataclass(slots=True)
class Data:
    """Everything that changes during a game, as immutable values: a snapshot is a shallow copy.

    Cards are counted per design (the index into the card set): `deck` is the rail deck with digital
    hands, and in table mode every card nobody has seen (deck and hands together); `deck_size` is
    the number of cards in the rail deck either way. `stacks` holds, per slot of the railway area,
    the tiles played there (`2 * design + facing`), the one on top last. Stations are company
    indexes per lane, lane 1 first.
    """

    phase: Phase
    round: int
    start: tuple[int, ...]
    dest: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    deck_size: int
    hands: tuple[tuple[int, ...], ...]
    held: tuple[int, ...]
    discard: tuple[int, ...]
    discard_top: int  # the face-up card on the discard pile (-1: none shows)
    turn: int  # the seat whose turn it is (or who exchanges, or draws)
    starter: int  # the seat that began this round
    arrived: tuple[int, ...]  # seats in the order they arrived this round
    points: tuple[int, ...]
    round_points: tuple[tuple[int, ...], ...]  # per round so far, per seat
    idle: int = 0  # turns in a row in which no card was placed
    finishing: bool = False  # option equal_turns: the round ends when the turn reaches the starter
    owed: tuple[int, ...] = ()  # seats still to draw a card each, in order
    then: Then = Then.STATIONS  # what follows once the owed cards are drawn
    exchanged: int = 0  # cards the seat to exchange has exchanged so far
    to_exchange: tuple[int, ...] = ()  # seats still to exchange after the current one
    tied: tuple[int, ...] = ()  # phase starter: the seats the next starter is chosen from
    ends: tuple[EndReason, ...] = ()  # why each finished round ended

    def copy(self) -> Data:
        """A shallow copy (every field holds an immutable value), written out field by field:
        a snapshot is taken before every action."""
        c = Data.__new__(Data)
        c.phase = self.phase
        c.round = self.round
        c.start = self.start
        c.dest = self.dest
        c.stacks = self.stacks
        c.deck = self.deck
        c.deck_size = self.deck_size
        c.hands = self.hands
        c.held = self.held
        c.discard = self.discard
        c.discard_top = self.discard_top
        c.turn = self.turn
        c.starter = self.starter
        c.arrived = self.arrived
        c.points = self.points
        c.round_points = self.round_points
        c.idle = self.idle
        c.finishing = self.finishing
        c.owed = self.owed
        c.then = self.then
        c.exchanged = self.exchanged
        c.to_exchange = self.to_exchange
        c.tied = self.tied
        c.ends = self.ends
        return c
