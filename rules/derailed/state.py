"""The Derailed! `State`: a thin front over legality, moves, scoring and the codec."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from enum import StrEnum
from typing import Any, Self

from rules.core import Action, IllegalAction, JsonDict, Option, State, Why
from rules.derailed import codec, legality, moves, scoring
from rules.derailed.actions import CODEC, Draw, Play
from rules.derailed.cards import Facing
from rules.derailed.data import (
    ARRIVALS_TO_END,
    HAND_SIZE,
    ROUNDS,
    Arrival,
    Data,
    DryDeck,
    Hands,
    NextStarter,
    Phase,
    RoundEnd,
    Rules,
)
from rules.hidden import deal
from rules.said import Say, same

GAME = "derailed"


def _values(kind: type[StrEnum]) -> tuple[str, ...]:
    return tuple(m.value for m in kind)


OPTIONS: tuple[Option, ...] = (
    Option("players", 4, tuple(ARRIVALS_TO_END), main=True),
    Option(
        "hands",
        Hands.DIGITAL.value,
        _values(Hands),
        "digital: the engine deals and draws; table: real cards, learnt as they are played",
        main=True,
    ),
    Option(
        "stub_connects",
        True,
        (True, False),
        "may a dead-end stub be the track that connects a played card (decision 3)",
    ),
    Option(
        "arrival",
        Arrival.ANY_CARD.value,
        _values(Arrival),
        "does a company arrive when another player's card completes its route (decision 5)",
    ),
    Option(
        "round_end",
        RoundEnd.AT_ONCE.value,
        _values(RoundEnd),
        "at_once, or play on until everyone has had as many turns (decision 7)",
    ),
    Option(
        "exchange",
        False,
        (False, True),
        "later rulebook: each player may discard up to 2 cards between rounds and draw again",
    ),
    Option(
        "next_starter",
        NextStarter.FEWEST_LAST_ROUND.value,
        _values(NextStarter),
        "who begins rounds 2-3: fewest points last round; the later rulebook adds the total",
    ),
    Option(
        "dry_deck",
        DryDeck.END_ROUND.value,
        _values(DryDeck),
        "the deck is out and no discard pile can replace it: end the round, or play on",
    ),
    Option("card_file", "", None, "a JSON file of rail cards; empty: the designers' 90 cards"),
)


class Derailed(State):
    """A game of Derailed!; see docs/rules/derailed.md for the readings taken."""

    GAME = GAME
    CODEC = CODEC

    def __init__(self, options: Mapping[str, Any], seed: int, data: Data | None = None) -> None:
        super().__init__(options, seed)
        self.rules = Rules.of(self.options)
        self.d = data if data is not None else moves.start(self.rules)
        self._current = legality.current_player(self.rules, self.d)

    @property
    def current_player(self) -> int | None:
        """Kept up to date after every change of the data (asked several times per action)."""
        return self._current

    def legal_actions(self) -> list[Action]:
        return legality.legal_actions(self.rules, self.d)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return legality.chance_outcomes(self.rules, self.d)

    def normalise(self, action: Action) -> Action:
        """A symmetric card turned half round shows the same tracks: written facing the
        destination, as `legal_actions` lists it."""
        if isinstance(action, Play) and action.facing is Facing.START:
            cards = self.rules.cards
            design = cards.index.get(action.card)
            if design is not None and cards.cards[design].symmetric:
                return replace(action, facing=Facing.DESTINATION)
        return action

    def why_not(self, action: Action) -> Why | None:
        return legality.why_not(self.rules, self.d, action)

    def _apply(self, action: Action) -> None:
        moves.apply(self.rules, self.d, action)
        self._current = legality.current_player(self.rules, self.d)

    def _snapshot(self) -> object:
        return self.d.copy()

    def _restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, Data)
        self.d = snapshot.copy()
        self._current = legality.current_player(self.rules, self.d)

    def scores(self) -> list[float]:
        return scoring.scores(self.d)

    def score_parts(self, say: Say = same) -> list[list[tuple[str, float]]]:
        return scoring.score_parts(self.d, say)

    def winners(self) -> list[int]:
        return scoring.winners(self.d)

    def _state_json(self) -> JsonDict:
        return codec.state_json(self.rules, self.d)

    @classmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self:
        rules = Rules.of(options)
        return cls(options, seed, codec.data_from_json(rules, data))

    def _view_json(self, seat: int | None) -> JsonDict:
        """The table, counts of cards, discards, points, and only `seat`'s own hand (digital)."""
        return codec.view_json(self.rules, self.d, seat)

    def action_view(self, action: Action, actor: int, seat: int | None) -> JsonDict:
        """A drawn card is shown to the seat it went to; the others see that a card was drawn."""
        if isinstance(action, Draw) and action.seat != seat:
            return {"type": action.TYPE, "seat": action.seat, "hidden": True}
        return action.to_json()

    def redeal_secrets(self, seat: int, rng: random.Random) -> Self | None:
        """A copy in which a card of `seat`'s hand came out of the deck as another card: the last
        draw that brought a card still in the hand is drawn afresh and the game replayed from
        there. None in table mode (no hand is known), or when no replay stays legal."""
        d = self.d
        if self.rules.hands is Hands.TABLE or not d.hands[seat]:
            return None
        if not self._undo:
            return self._swapped_in_state(seat, rng)
        history = self.history
        for i in range(len(history) - 1, -1, -1):
            drawn = history[i]
            if not isinstance(drawn, Draw) or drawn.seat != seat:
                continue
            if self.rules.cards.index[drawn.card] in d.hands[seat]:
                return self._redrawn(i, drawn, rng)
        return None

    def determinise(self, seat: int, rng: random.Random) -> Self:
        """The other hands dealt afresh from the cards `seat` has not seen (the rail deck and
        those hands), each hand its size, the rest back in the deck. Table mode: a fork (the
        engine knows no hand). What a discard says of a hand (nothing in it could be placed)
        is not used: the deal is less informed than the seat, never more."""
        twin = self.fork()
        d = twin.d
        if self.rules.hands is Hands.TABLE or not 0 <= seat < self.rules.players:
            return twin
        others = [s for s in range(self.rules.players) if s != seat]
        pool = [design for design, n in enumerate(d.deck) for _ in range(n)]
        for s in others:
            pool.extend(d.hands[s])
        pool.sort()
        sizes = [len(d.hands[s]) for s in others]
        dealt = deal(pool, [*sizes, len(pool) - sum(sizes)], rng)
        hands = list(d.hands)
        for s, hand in zip(others, dealt, strict=False):
            hands[s] = tuple(sorted(hand))
        deck = [0] * len(d.deck)
        for design in dealt[-1]:
            deck[design] += 1
        d.hands = tuple(hands)
        d.deck = tuple(deck)
        return twin

    def _redrawn(self, i: int, drawn: Draw, rng: random.Random) -> Self | None:
        before = self._undo[i][1]
        assert isinstance(before, Data)
        cards = self.rules.cards
        others = [c.id for c, n in zip(cards.cards, before.deck, strict=True) if n]
        others = [c for c in others if c != drawn.card]
        rng.shuffle(others)
        tail = self.history[i + 1 :]
        for card in others[:4]:
            twin = type(self)(self.options, self.seed, before.copy())
            twin._undo = list(self._undo[:i])
            twin._actors = list(self._actors[:i])
            try:
                twin.apply(Draw(drawn.seat, card))
                for action in tail:
                    twin.apply(action)
            except IllegalAction:
                continue
            return twin
        return None

    def _swapped_in_state(self, seat: int, rng: random.Random) -> Self | None:
        d = self.d
        mine = rng.choice(d.hands[seat])
        others = [i for i, n in enumerate(d.deck) if n and i != mine]
        if not others:
            return None
        other = rng.choice(others)
        twin = d.copy()
        hand = list(d.hands[seat])
        hand.remove(mine)
        twin.hands = moves._with(d.hands, seat, tuple(sorted((*hand, other))))
        deck = list(d.deck)
        deck[mine] += 1
        deck[other] -= 1
        twin.deck = tuple(deck)
        return type(self)(self.options, self.seed, twin)

    def invariants(self) -> list[str]:
        return invariants(self.rules, self.d)


def invariants(rules: Rules, d: Data) -> list[str]:
    """Every rail card in one place; hands, counts and points as they must be."""
    broken: list[str] = []
    cards = rules.cards
    counts = [a + b for a, b in zip(d.deck, d.discard, strict=True)]
    for stack in d.stacks:
        for tile in stack:
            counts[tile // 2] += 1
    for hand in d.hands:
        for design in hand:
            counts[design] += 1
    if tuple(counts) != cards.copies:
        wrong = [
            f"{c.id} {n}/{c.copies}"
            for c, n in zip(cards.cards, counts, strict=True)
            if n != c.copies
        ]
        broken.append(f"rail cards misplaced: {', '.join(wrong)}")
    if rules.hands is Hands.TABLE:
        if any(d.hands):
            broken.append("table mode, yet the engine knows a hand")
        if sum(d.held) + d.deck_size != sum(d.deck):
            broken.append(
                f"{sum(d.held)} cards in hands and {d.deck_size} in the deck, but "
                f"{sum(d.deck)} cards unseen"
            )
    else:
        if d.deck_size != sum(d.deck):
            broken.append(f"deck size {d.deck_size} but {sum(d.deck)} cards in the deck")
        if [len(h) for h in d.hands] != list(d.held):
            broken.append("a hand's size differs from its count")
    if any(not 0 <= h <= HAND_SIZE for h in d.held):
        broken.append(f"hands of {list(d.held)} cards")
    if [sum(r[s] for r in d.round_points) for s in range(rules.players)] != list(d.points):
        broken.append("points differ from the sum of the rounds' points")
    if len(d.round_points) != d.round or not 1 <= d.round <= ROUNDS:
        broken.append(f"round {d.round} with {len(d.round_points)} rounds of points")
    if len(set(d.arrived)) != len(d.arrived):
        broken.append(f"a company arrived twice: {list(d.arrived)}")
    n = rules.players
    if len(set(d.start)) != len(d.start) or len(set(d.dest)) != len(d.dest):
        broken.append("a company has two stations in one column")
    if len(d.dest) == n and any(a == b for a, b in zip(d.start, d.dest, strict=True)):
        broken.append("a lane has one company at both ends")
    if d.phase is Phase.PLAY and (d.held[d.turn] == 0 or d.turn in d.arrived):
        broken.append(f"seat {d.turn} is to play but cannot")
    return broken
