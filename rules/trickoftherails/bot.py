"""A simple Trick of the Rails player: wins tricks cheaply, builds railways it holds shares in.

It picks from `legal_actions()` only, so it serves the simulated table and the conformance tests.
"""

from __future__ import annotations

import random
from collections import Counter

from rules.core import CHANCE, Action
from rules.trickoftherails import actions as act
from rules.trickoftherails.cards import COMPANIES, COMPANY_OF, NUMBER_OF, Company
from rules.trickoftherails.data import Data, Rules
from rules.trickoftherails.legality import led_company, railway_card_of
from rules.trickoftherails.scoring import share_value
from rules.trickoftherails.state import TrickOfTheRails


def _stake(d: Data, seat: int) -> Counter[Company]:
    return Counter(COMPANY_OF[c] for c in d.shares[seat])


def _value_after(rules: Rules, d: Data, company: Company, card: str, end: act.End) -> int:
    i = COMPANIES.index(company)
    rail = d.railways[i]
    grown = (card, *rail) if end is act.End.LEFT else (*rail, card)
    return share_value(rules, grown, d.locomotives[i])


def _play(d: Data, choices: list[act.Play]) -> Action:
    led = led_company(d)
    if led is None:  # lead the strongest card
        return max(choices, key=lambda a: NUMBER_OF[a.card])
    best_led = max((NUMBER_OF[c] for _, c in d.trick if COMPANY_OF[c] is led), default=0)
    winning = [a for a in choices if COMPANY_OF[a.card] is led and NUMBER_OF[a.card] > best_led]
    if winning:  # win as cheaply as possible
        return min(winning, key=lambda a: NUMBER_OF[a.card])
    return min(choices, key=lambda a: NUMBER_OF[a.card])


def bot_action(state: TrickOfTheRails, rng: random.Random) -> Action:
    """A plausible action for the seat to act (or a chance draw by its probability)."""
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    legal = state.legal_actions()
    d, rules = state.d, state.rules
    seat = state.current_player
    assert seat is not None
    plays = [a for a in legal if isinstance(a, act.Play)]
    if plays:
        return _play(d, plays) if rng.random() < 0.8 else rng.choice(plays)
    stake = _stake(d, seat)
    locos = [a for a in legal if isinstance(a, act.PlaceLocomotive)]
    if locos:
        return max(locos, key=lambda a: (stake[a.company], rng.random()))
    cities = [a for a in legal if isinstance(a, act.PlaceCity)]
    if cities:
        city = d.lane[0]

        def gain(a: act.PlaceCity) -> tuple[int, float]:
            return stake[a.company] * _value_after(rules, d, a.company, city, a.end), rng.random()

        return max(cities, key=gain)
    tracks = [a for a in legal if isinstance(a, act.LayTrack)]
    if tracks:
        card = railway_card_of(d, seat)
        company = COMPANY_OF[card]
        return max(
            tracks, key=lambda a: (_value_after(rules, d, company, card, a.end), rng.random())
        )
    return rng.choice(legal)
