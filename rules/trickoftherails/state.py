"""The Trick of the Rails `State`: a thin front over legality, moves, scoring and the codec."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from enum import StrEnum
from typing import Any, Self

from rules.core import Action, JsonDict, Option, State, Why
from rules.hidden import deal
from rules.said import Say, same
from rules.trickoftherails import codec, legality, moves, scoring
from rules.trickoftherails.actions import CODEC, Deal, LayLane, Play, StartRailway
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    COMPANY_OF,
    FULL_SET,
    HAND_SIZE,
    LOCO_INF,
    RAILWAY_CARDS,
    RESERVATION,
    Company,
)
from rules.trickoftherails.data import Data, FirstLeader, Hands, NoLocomotive, Phase, Rules
from rules.trickoftherails.lane import LaneStyle

GAME = "trickoftherails"
CARD_ACTIONS = (Play, Deal, StartRailway, LayLane)


def _values(kind: type[StrEnum]) -> tuple[str, ...]:
    return tuple(m.value for m in kind)


OPTIONS: tuple[Option, ...] = (
    Option("players", 4, tuple(HAND_SIZE), main=True),
    Option(
        "hands",
        Hands.DEALT.value,
        _values(Hands),
        "dealt: the engine deals; table: real cards",
        main=True,
    ),
    Option("lane", LaneStyle.BASIC.value, _values(LaneStyle), "the basic or the expert lane"),
    Option(
        "teams",
        False,
        (False, True),
        "4 players: partners across the table add scores",
        players=(4,),
    ),
    Option("first_lead", FirstLeader.SEAT_0.value, _values(FirstLeader), "who leads trick 1"),
    Option("front_of_station", True, (True, False), "may a card go in front of the station"),
    Option(
        "no_locomotive",
        NoLocomotive.WORTHLESS.value,
        _values(NoLocomotive),
        "share value of a company that never got a locomotive (expert lane only)",
    ),
    Option("revoke_penalty", 50, None, "table mode: points a penalised revoke costs"),
)


class TrickOfTheRails(State):
    """A game of Trick of the Rails; see docs/rules/trickoftherails.md for the readings taken."""

    GAME = GAME
    CODEC = CODEC

    def __init__(self, options: Mapping[str, Any], seed: int, data: Data | None = None) -> None:
        super().__init__(options, seed)
        self.rules = Rules.of(self.options)
        self.d = data if data is not None else moves.start(self.rules)

    @property
    def current_player(self) -> int | None:
        return legality.current_player(self.rules, self.d)

    def legal_actions(self) -> list[Action]:
        return legality.legal_actions(self.rules, self.d)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return legality.chance_outcomes(self.rules, self.d)

    def normalise(self, action: Action) -> Action:
        """Card ids in one spelling: `PRR-5` and ` prr-5 ` are `prr-5`."""
        if isinstance(action, CARD_ACTIONS) and action.card not in CARDS:
            spelt = action.card.strip().lower()
            if spelt in CARDS:
                return replace(action, card=spelt)
        return action

    def why_not(self, action: Action) -> Why | None:
        return legality.why_not(self.rules, self.d, action)

    def _apply(self, action: Action) -> None:
        moves.apply(self.rules, self.d, action, len(self._undo))

    def _snapshot(self) -> object:
        return self.d.copy()

    def _restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, Data)
        self.d = snapshot.copy()

    def scores(self) -> list[float]:
        return scoring.scores(self.rules, self.d)

    def score_parts(self, say: Say = same) -> list[list[tuple[str, float]]]:
        return scoring.score_parts(self.rules, self.d, say)

    def winners(self) -> list[int]:
        return scoring.winners(self.rules, self.d)

    def _state_json(self) -> JsonDict:
        return codec.state_json(self.rules, self.d)

    @classmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self:
        rules = Rules.of(options)
        return cls(options, seed, codec.data_from_json(rules, data))

    def view(self, seat: int | None) -> JsonDict:
        """What `seat` may see: the game, its options and `_view_json`; never the seed."""
        return {"game": self.GAME, "options": dict(self.options), **self._view_json(seat)}

    def _view_json(self, seat: int | None) -> JsonDict:
        """The table, the counts of cards in hand, and only `seat`'s own hand (digital deal)."""
        return codec.view_json(self.rules, self.d, seat)

    def action_view(self, action: Action, actor: int, seat: int | None) -> JsonDict:
        """A dealt card is shown to the seat it went to; the others see that a card was dealt."""
        if isinstance(action, Deal) and action.seat != seat:
            return {"type": action.TYPE, "seat": action.seat, "hidden": True}
        return action.to_json()

    def redeal_secrets(self, seat: int, rng: random.Random) -> Self | None:
        """A copy in which one card of `seat`'s hand is swapped for one still to deal, the deal
        replayed to match; None when nothing can change unseen by the others (table mode, or once
        the deal is done: every other card is then in another hand or on the table)."""
        d = self.d
        if d.phase is not Phase.DEAL or not d.hands[seat] or not d.deck:
            return None
        mine = rng.choice(d.hands[seat])
        other = rng.choice(sorted(d.deck))
        swap = {mine: other, other: mine}
        if not self.history:  # read from JSON: swap in the state itself
            data = self.to_json()
            data["hands"][seat] = sorted(
                (swap.get(c, c) for c in data["hands"][seat]), key=RAILWAY_CARDS.index
            )
            data["deck"] = sorted((swap.get(c, c) for c in data["deck"]), key=RAILWAY_CARDS.index)
            return self.from_json(data)
        twin = type(self)(self.options, self.seed)
        for action in self.history:
            if isinstance(action, Deal):
                action = Deal(action.seat, swap.get(action.card, action.card))
            twin.apply(action)
        return twin

    def determinise(self, seat: int, rng: random.Random) -> Self:
        """The other hands (and any card still to deal) dealt afresh from the cards `seat` has
        not seen, each hand its size, and none of a company its seat failed to follow in a trick
        played so far (the plays in the history are open to all). Table mode: a fork (the
        engine knows no hand)."""
        twin = self.fork()
        d = twin.d
        if self.rules.hands is not Hands.DEALT or not 0 <= seat < self.rules.players:
            return twin
        others = [s for s in range(self.rules.players) if s != seat]
        pool = sorted((*(c for s in others for c in d.hands[s]), *d.deck), key=RAILWAY_CARDS.index)
        sizes = [len(d.hands[s]) for s in others] + [len(d.deck)]
        void = self._voids()
        dealt = deal(
            pool,
            sizes,
            rng,
            lambda i, card: i == len(others) or COMPANY_OF[card] not in void[others[i]],
        )
        hands = list(d.hands)
        for s, hand in zip(others, dealt, strict=False):
            hands[s] = tuple(sorted(hand, key=RAILWAY_CARDS.index))
        d.hands = tuple(hands)
        d.deck = frozenset(dealt[-1])
        return twin

    def _voids(self) -> list[set[Company]]:
        """Per seat, the companies it failed to follow in the tricks of the history."""
        void: list[set[Company]] = [set() for _ in range(self.rules.players)]
        played = [
            (actor, action.card)
            for action, actor in zip(self.history, self._actors, strict=True)
            if isinstance(action, Play)
        ]
        players = self.rules.players
        for start in range(0, len(played), players):
            trick = played[start : start + players]
            led = COMPANY_OF.get(trick[0][1])
            for actor, card in trick[1:]:
                if led is not None and COMPANY_OF.get(card) is not led:
                    void[actor].add(led)
        return void

    def invariants(self) -> list[str]:
        return invariants(self.rules, self.d)


def _played(rules: Rules, d: Data, seat: int) -> int:
    """How many cards `seat` has played so far."""
    done = d.trick_number - 1
    if d.phase in (Phase.PLAY, Phase.REVOKE):
        return done + (1 if (seat - d.leader) % rules.players < len(d.trick) else 0)
    if d.phase in (Phase.PLACE_CITY, Phase.PLACE_LOCOMOTIVE, Phase.PLACE_INFINITE):
        return done + 1
    if d.phase is Phase.LAY_TRACK:
        return done + 1
    return done


def invariants(rules: Rules, d: Data) -> list[str]:
    """Every card in exactly one place; hands, shares and the lane as the tricks so far imply."""
    broken: list[str] = []
    places = Counter(
        [
            *d.deck,
            *(c for h in d.hands for c in h),
            *d.lane,
            *(c for _, c in d.trick),
            *(c for r in d.railways for c in r),
            *(loco for loco in d.locomotives if loco is not None),
            *(c for s in d.shares for c in s),
            *d.removed,
            *d.unused,
        ]
    )
    full = Counter(FULL_SET)
    if d.phase is Phase.LANE:
        if places - full:
            broken.append(f"cards in two places or unknown: {sorted((places - full).elements())}")
    elif places != full:
        extra, missing = places - full, full - places
        broken.append(f"cards misplaced: extra {sorted(extra)}, missing {sorted(missing)}")
    if d.phase not in (Phase.LANE, Phase.DEAL, Phase.RAILWAYS):
        for seat in range(rules.players):
            want = rules.hand_size - _played(rules, d, seat)
            if d.held[seat] != want:
                broken.append(f"seat {seat} holds {d.held[seat]} cards, not {want}")
        for seat, shares in enumerate(d.shares):
            if len(shares) != d.share_tricks:
                broken.append(f"seat {seat} has {len(shares)} shares after {d.share_tricks} tricks")
    if d.phase is Phase.PLAY:
        tricks_left = rules.hand_size - d.trick_number + 1
        if len(d.lane) - (LOCO_INF in d.lane) != tricks_left:
            broken.append(f"{len(d.lane)} lane cards for {tricks_left} tricks")
        if d.lane and d.lane[0] == RESERVATION:
            broken.append("a reservation card is leftmost in the lane")
    for company, rail in zip(COMPANIES, d.railways, strict=True):
        strays = [c for c in rail if c in COMPANY_OF and COMPANY_OF[c] is not company]
        if strays:
            broken.append(f"the {company} railway holds {strays}")
    locos = [x for x in d.locomotives if x is not None]
    if len(set(locos)) != len(locos):
        broken.append(f"a locomotive on two railways: {locos}")
    if rules.hands is Hands.DEALT and any(
        len(h) != n for h, n in zip(d.hands, d.held, strict=True)
    ):
        broken.append("a hand's size differs from its count")
    return broken
