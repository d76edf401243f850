"""The moves themselves: each legal action changes the data; tricks resolve by the lane card."""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from rules.core import Action
from rules.trickoftherails import actions as act
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    COMPANY_OF,
    FULL_SET,
    LOCO_6,
    LOCO_INF,
    NUMBER_OF,
    RAILWAY_CARDS,
    RESERVATION,
    Company,
    Kind,
    station_id,
)
from rules.trickoftherails.data import Data, FirstLeader, Hands, Phase, Revoke, Rules, Void
from rules.trickoftherails.lane import LaneStyle, lane_plan, lay
from rules.trickoftherails.legality import first_free_railway, led_company, railway_card_of, to_play

T = TypeVar("T")


def _with(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """A copy of `items` with item `i` replaced."""
    return (*items[:i], value, *items[i + 1 :])


def start(rules: Rules) -> Data:
    """A fresh game: station cards begin the railways; the lane is about to be laid."""
    n = rules.players
    d = Data(players=n)
    d.railways = tuple((station_id(c),) for c in COMPANIES)
    d.deck = frozenset(RAILWAY_CARDS)
    d.hands = tuple(() for _ in range(n))
    d.held = tuple(0 for _ in range(n))
    d.shares = tuple(() for _ in range(n))
    d.voids = tuple(() for _ in range(n))
    d.lane, d.plan = lay((), lane_plan(n, rules.lane), None)
    return d


def apply(rules: Rules, d: Data, a: Action, ply: int) -> None:
    """Carry out a legal action; `ply` is how many actions the history held before it."""
    if isinstance(a, act.Play):
        _play(rules, d, a.card, ply)
    elif isinstance(a, act.LayTrack):
        _lay_track(rules, d, a.end)
    elif isinstance(a, act.PlaceCity):
        _place_city(rules, d, a.company, a.end)
    elif isinstance(a, act.PlaceLocomotive):
        _place_locomotive(rules, d, a.company)
    elif isinstance(a, act.SettleRevoke):
        _settle(rules, d, a.remedy)
    elif isinstance(a, act.LayLane):
        _lay_lane(rules, d, a.card)
    elif isinstance(a, act.Deal):
        _deal(rules, d, a.seat, a.card)
    elif isinstance(a, act.StartRailway):
        _start_railway(rules, d, a.card)
    elif isinstance(a, act.FirstLead):
        d.leader = a.seat
        d.phase = Phase.PLAY
    else:  # pragma: no cover - legality checks come first
        raise AssertionError(f"unhandled action {a!r}")


# ------------------------------------------------------------------ setting up


def _lay_lane(rules: Rules, d: Data, card: str) -> None:
    d.lane, d.plan = lay(d.lane, d.plan, card)
    if d.plan:
        return
    in_lane = list(d.lane)
    unused = []
    for c in FULL_SET:
        if CARDS[c].kind in (Kind.RAILWAY, Kind.STATION):
            continue
        if c in in_lane:
            in_lane.remove(c)
        else:
            unused.append(c)
    d.unused = tuple(unused)
    d.phase = Phase.DEAL if rules.hands is Hands.DEALT else Phase.RAILWAYS


def _deal(rules: Rules, d: Data, seat: int, card: str) -> None:
    dealt = sum(d.held)
    d.hands = _with(d.hands, seat, tuple(sorted((*d.hands[seat], card), key=RAILWAY_CARDS.index)))
    d.held = _with(d.held, seat, d.held[seat] + 1)
    d.deck = d.deck - {card}
    if dealt + 1 == rules.players * rules.hand_size:
        for c in sorted(d.deck, key=RAILWAY_CARDS.index):
            _start_railway_card(d, c)
        d.deck = frozenset()
        _setup_done(rules, d)


def _start_railway_card(d: Data, card: str) -> None:
    """An undealt card joins its railway after the station, the undealt ones in number order."""
    i = COMPANIES.index(COMPANY_OF[card])
    station, *rest = d.railways[i]
    rest.append(card)
    rest.sort(key=NUMBER_OF.__getitem__)
    d.railways = _with(d.railways, i, (station, *rest))


def _start_railway(rules: Rules, d: Data, card: str) -> None:
    d.deck = d.deck - {card}
    _start_railway_card(d, card)
    if len(d.deck) == rules.players * rules.hand_size:
        d.held = tuple(rules.hand_size for _ in range(rules.players))
        _setup_done(rules, d)


def _setup_done(rules: Rules, d: Data) -> None:
    d.phase = Phase.FIRST_LEAD if rules.first_lead is FirstLeader.RANDOM else Phase.PLAY


# ------------------------------------------------------------------ tricks


def _play(rules: Rules, d: Data, card: str, ply: int) -> None:
    seat = to_play(rules, d)
    led = led_company(d)
    if rules.hands is Hands.DEALT:
        d.hands = _with(d.hands, seat, tuple(c for c in d.hands[seat] if c != card))
    else:
        d.deck = d.deck - {card}
        _referee_table_play(d, seat, card, led, ply)
    d.held = _with(d.held, seat, d.held[seat] - 1)
    d.trick = (*d.trick, (seat, card))
    if d.phase is Phase.PLAY and len(d.trick) == rules.players:
        _resolve(rules, d)


def _referee_table_play(d: Data, seat: int, card: str, led: Company | None, ply: int) -> None:
    """Table mode: a card of a company the seat failed to follow proves that earlier revoke."""
    company = COMPANY_OF[card]
    voids = {v.company: v for v in d.voids[seat]}
    if company in voids:
        void = voids.pop(company)
        d.revokes = (
            *d.revokes,
            Revoke(seat, void.trick, company, card, d.trick_number, void.ply),
        )
        d.resume = d.phase
        d.phase = Phase.REVOKE
    if led is not None and company is not led and led not in voids:
        voids[led] = Void(led, d.trick_number, ply)
    d.voids = _with(d.voids, seat, tuple(sorted(voids.values())))


def _settle(rules: Rules, d: Data, remedy: act.Remedy) -> None:
    last = d.revokes[-1]
    d.revokes = (*d.revokes[:-1], replace(last, remedy=remedy))
    d.phase = d.resume or Phase.PLAY
    d.resume = None
    if d.phase is Phase.PLAY and len(d.trick) == rules.players:
        _resolve(rules, d)


def trick_winner(d: Data) -> int:
    """Whoever played the highest number of the led company."""
    led = led_company(d)
    best = max((c for _, c in d.trick if COMPANY_OF[c] is led), key=NUMBER_OF.__getitem__)
    return next(s for s, c in d.trick if c == best)


def _resolve(rules: Rules, d: Data) -> None:
    """The leftmost lane card decides: shares, a city, or a locomotive."""
    d.winner = trick_winner(d)
    kind = CARDS[d.lane[0]].kind
    if kind is Kind.CITY:
        d.phase = Phase.PLACE_CITY
    elif kind is Kind.LOCOMOTIVE:
        d.phase = Phase.PLACE_LOCOMOTIVE
    else:
        _share_trick(rules, d, d.winner)


def _share_trick(rules: Rules, d: Data, winner: int) -> None:
    """The winner takes the lane card; their own card fills the leftmost reservation (or leaves)."""
    taken, *lane = d.lane
    shares = list(d.shares)
    for seat, card in d.trick:
        if seat == winner:
            shares[seat] = (*shares[seat], taken)
            if RESERVATION in lane:
                lane[lane.index(RESERVATION)] = card
                d.removed = (*d.removed, RESERVATION)
            else:
                d.removed = (*d.removed, card)
        else:
            shares[seat] = (*shares[seat], card)
    d.shares = tuple(shares)
    d.lane = tuple(lane)
    d.lane_taken += 1
    d.share_tricks += 1
    _next_trick(d)


def _next_trick(d: Data) -> None:
    d.leader = d.winner if d.winner is not None else d.leader
    d.winner = None
    d.trick = ()
    d.to_lay = ()
    d.trick_number += 1
    d.phase = Phase.PLAY if d.lane else Phase.OVER


def _add(rules: Rules, d: Data, company: Company, card: str, end: act.End) -> None:
    i = COMPANIES.index(company)
    rail = d.railways[i]
    if end is act.End.LEFT:
        d.railways = _with(d.railways, i, (card, *rail))
        d.left_added = _with(d.left_added, i, d.left_added[i] + 1)
    else:
        d.railways = _with(d.railways, i, (*rail, card))


def _start_laying(rules: Rules, d: Data) -> None:
    winner = d.winner if d.winner is not None else d.leader
    d.to_lay = tuple((winner + k) % rules.players for k in range(rules.players))
    d.phase = Phase.LAY_TRACK


def _place_city(rules: Rules, d: Data, company: Company, end: act.End) -> None:
    city, *lane = d.lane
    _add(rules, d, company, city, end)
    d.lane = tuple(lane)
    d.lane_taken += 1
    _start_laying(rules, d)


def _place_locomotive(rules: Rules, d: Data, company: Company) -> None:
    loco, *lane = d.lane
    d.locomotives = _with(d.locomotives, COMPANIES.index(company), loco)
    d.lane = tuple(lane)
    d.lane_taken += 1
    if loco == LOCO_6 and lane and lane[0] == LOCO_INF:
        if rules.lane is LaneStyle.EXPERT:
            d.phase = Phase.PLACE_INFINITE
            return
        _place_locomotive(rules, d, first_free_railway(d))
        return
    _start_laying(rules, d)


def _lay_track(rules: Rules, d: Data, end: act.End) -> None:
    seat, *rest = d.to_lay
    card = railway_card_of(d, seat)
    _add(rules, d, COMPANY_OF[card], card, end)
    d.trick = tuple((s, c) for s, c in d.trick if s != seat)
    d.to_lay = tuple(rest)
    if not rest:
        _next_trick(d)
