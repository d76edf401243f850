"""The moves themselves: each legal action changes the data; turns, arrivals and rounds follow."""

from __future__ import annotations

from typing import TypeVar

from rules.core import Action
from rules.derailed import actions as act
from rules.derailed.cards import Compass
from rules.derailed.data import (
    COMPANIES,
    EXCHANGE_MAX,
    HAND_SIZE,
    ROUNDS,
    Arrival,
    Column,
    Data,
    DryDeck,
    EndReason,
    Hands,
    NextStarter,
    Phase,
    RoundEnd,
    Rules,
    Then,
)
from rules.derailed.grid import BITS, LENGTH, reach, slot_index, through
from rules.derailed.legality import canonical_tile, tops

T = TypeVar("T")


def _with(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """A copy of `items` with item `i` replaced."""
    return (*items[:i], value, *items[i + 1 :])


def start(rules: Rules) -> Data:
    """A fresh game: the deck shuffled; digital hands are about to be dealt, table hands are."""
    n = rules.players
    cards = rules.cards
    table = rules.hands is Hands.TABLE
    d = Data(
        phase=Phase.STATIONS if table else Phase.DEAL,
        round=1,
        start=(),
        dest=(),
        stacks=tuple(() for _ in range(rules.slots)),
        deck=cards.copies,
        deck_size=cards.total - (HAND_SIZE * n if table else 0),
        hands=tuple(() for _ in range(n)),
        held=tuple((HAND_SIZE if table else 0) for _ in range(n)),
        discard=tuple(0 for _ in cards.cards),
        discard_top=-1,
        turn=0,
        starter=0,
        arrived=(),
        points=tuple(0 for _ in range(n)),
        round_points=(tuple(0 for _ in range(n)),),
    )
    if not table:  # one card at a time round the table from seat 0
        d.owed = tuple(s for _ in range(HAND_SIZE) for s in range(n))
        d.then = Then.STATIONS
    return d


def apply(rules: Rules, d: Data, a: Action) -> None:
    """Carry out a legal action."""
    if isinstance(a, act.Play):
        _play(rules, d, a)
    elif isinstance(a, act.Draw):
        _draw(rules, d, a)
    elif isinstance(a, act.Discard):
        _discard(rules, d, a)
    elif isinstance(a, act.LayStation):
        _lay_station(rules, d, a)
    elif isinstance(a, act.KeepHand):
        _next_exchanger(rules, d)
    elif isinstance(a, act.ChooseStarter):
        _round_ready(rules, d, a.seat)
    else:  # pragma: no cover - legality checks come first
        raise AssertionError(f"unhandled action {a!r}")


# ------------------------------------------------------------------ cards in and out of hands


def _take(rules: Rules, d: Data, seat: int, design: int) -> None:
    """A card leaves `seat`'s hand (table mode: a card nobody had seen is seen)."""
    if rules.hands is Hands.TABLE:
        d.deck = _with(d.deck, design, d.deck[design] - 1)
    else:
        hand = list(d.hands[seat])
        hand.remove(design)
        d.hands = _with(d.hands, seat, tuple(hand))
    d.held = _with(d.held, seat, d.held[seat] - 1)


def _refill(d: Data) -> None:
    """Seed: if the rail deck runs out, the discard pile is shuffled into a new one."""
    if d.deck_size == 0 and any(d.discard):
        d.deck = tuple(a + b for a, b in zip(d.deck, d.discard, strict=True))
        d.deck_size = sum(d.discard)
        d.discard = tuple(0 for _ in d.discard)
        d.discard_top = -1


def _owe(rules: Rules, d: Data, seats: tuple[int, ...], then: Then) -> None:
    d.owed = seats
    d.then = then
    _settle_draws(rules, d)


def _settle_draws(rules: Rules, d: Data) -> None:
    """Draw the owed cards (table mode: count them; digital: wait for each draw by chance)."""
    while True:
        _refill(d)
        if not d.owed or d.deck_size == 0:  # nothing left to draw: the rest go without
            dry = bool(d.owed)
            d.owed = ()
            _then(rules, d, dry)
            return
        if rules.hands is Hands.DIGITAL:
            d.phase = Phase.DEAL if d.then is Then.STATIONS else Phase.DRAW
            return
        seat = d.owed[0]
        d.owed = d.owed[1:]
        d.deck_size -= 1
        d.held = _with(d.held, seat, d.held[seat] + 1)


def _draw(rules: Rules, d: Data, a: act.Draw) -> None:
    design = rules.cards.index[a.card]
    seat = d.owed[0]
    d.owed = d.owed[1:]
    d.deck = _with(d.deck, design, d.deck[design] - 1)
    d.deck_size -= 1
    d.hands = _with(d.hands, seat, tuple(sorted((*d.hands[seat], design))))
    d.held = _with(d.held, seat, d.held[seat] + 1)
    _settle_draws(rules, d)


def _then(rules: Rules, d: Data, dry: bool = False) -> None:
    """Go on once the owed cards are drawn; `dry`: a card was owed but none was left to draw."""
    then = d.then
    if then is Then.TURN_END:
        _end_turn(rules, d, dry)
    elif then is Then.EXCHANGE:
        if d.exchanged >= EXCHANGE_MAX:
            _next_exchanger(rules, d)
        else:
            d.phase = Phase.EXCHANGE
    elif then is Then.ROUND_START:
        _round_start(rules, d)
    else:
        d.phase = Phase.STATIONS


# ------------------------------------------------------------------ a turn


def _play(rules: Rules, d: Data, a: act.Play) -> None:
    cards = rules.cards
    seat = d.turn
    s = slot_index(a.slot, rules.players)
    assert s is not None  # legality checks come first
    tile = canonical_tile(cards, cards.tile(a.card, a.facing))
    _take(rules, d, seat, tile // 2)
    d.stacks = _with(d.stacks, s, (*d.stacks[s], tile))
    d.idle = 0
    _arrivals(rules, d, seat, s)
    _owe(rules, d, (seat,), Then.TURN_END)  # then the player draws a card


def _discard(rules: Rules, d: Data, a: act.Discard) -> None:
    design = rules.cards.index[a.card]
    seat = d.turn
    _take(rules, d, seat, design)
    d.discard = _with(d.discard, design, d.discard[design] + 1)
    d.discard_top = design
    if d.phase is Phase.EXCHANGE:
        d.exchanged += 1
        _owe(rules, d, (seat,), Then.EXCHANGE)
    else:  # stuck: no card was placed this turn
        d.idle += 1
        _owe(rules, d, (seat,), Then.TURN_END)


def _score(d: Data, seat: int, points: int) -> None:
    d.points = _with(d.points, seat, d.points[seat] + points)
    this = d.round_points[-1]
    d.round_points = (*d.round_points[:-1], _with(this, seat, this[seat] + points))


def arrived_now(rules: Rules, d: Data, seat: int) -> bool:
    """Whether a track runs from `seat`'s starting station to its destination station."""
    cards = rules.cards
    _, arrive = reach(cards.exits, tops(d), rules.players, d.start.index(seat))
    return bool(arrive >> d.dest.index(seat) & 1)


def _arrivals(rules: Rules, d: Data, seat: int, slot: int) -> None:
    """Companies whose route the card completed arrive: the player first, then clockwise.

    Option arrival=own_card: only the player, whose route may have been completed before by
    others. Otherwise any company: a route not there before runs through the new card.
    """
    n = rules.players
    if rules.arrival is Arrival.OWN_CARD:
        if seat not in d.arrived and arrived_now(rules, d, seat):
            _arrive(d, seat)
        return
    cards = rules.cards
    on_top = tops(d)
    link = cards.link
    east = 1 << Compass.E
    if not any(t >= 0 and link[t] & east for t in on_top[LENGTH - 1 :: LENGTH]):
        return  # no track runs into a destination station yet
    exits = cards.exits[on_top[slot]]
    starts, dests = through(cards.exits, cards.link, on_top, n, slot)
    for k in range(n):
        s = (seat + k) % n
        if s in d.arrived:
            continue
        goal = dests[d.dest.index(s)]
        if goal and any(exits[a] & goal for a in BITS[starts[d.start.index(s)]]):
            _arrive(d, s)


def _arrive(d: Data, seat: int) -> None:
    first = not d.arrived
    d.arrived = (*d.arrived, seat)
    _score(d, seat, 2 if first else 1)  # 1 for arriving, 1 more for the first this round


def _end_turn(rules: Rules, d: Data, dry: bool = False) -> None:
    if len(d.arrived) >= rules.arrivals_to_end and not d.finishing:
        if rules.round_end is RoundEnd.AT_ONCE:
            _end_round(rules, d, EndReason.ARRIVED)
            return
        d.finishing = True
    if dry and rules.dry_deck is DryDeck.END_ROUND:
        _end_round(rules, d, EndReason.DECK_EMPTY)
        return
    if d.idle and d.idle >= rules.players - len(d.arrived):
        _end_round(rules, d, EndReason.BLOCKED)
        return
    _advance(rules, d)


def _advance(rules: Rules, d: Data) -> None:
    """The turn passes clockwise: an arrived player scores instead of playing; a player with no
    card passes."""
    n = rules.players
    seat = d.turn
    while True:
        seat = (seat + 1) % n
        if d.finishing and seat == d.starter:
            _end_round(rules, d, EndReason.ARRIVED)
            return
        if seat in d.arrived:
            _score(d, seat, 1)
            continue
        if d.held[seat] == 0:
            d.idle += 1
            if d.idle >= n - len(d.arrived):
                _end_round(rules, d, EndReason.BLOCKED)
                return
            continue
        d.turn = seat
        d.phase = Phase.PLAY
        return


# ------------------------------------------------------------------ rounds


def solve_conflicts(start: tuple[int, ...], dest: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Seed, Setup 5: while a lane has one company at both ends, swap that lane's destination card
    with the destination card of the next company playing in alphabetical order (lanes from 1)."""
    out = list(dest)
    while True:
        lane = next((i for i in range(n) if start[i] == out[i]), None)
        if lane is None:
            return tuple(out)
        other = out.index((out[lane] + 1) % n)
        out[lane], out[other] = out[other], out[lane]


def _lay_station(rules: Rules, d: Data, a: act.LayStation) -> None:
    company = COMPANIES.index(a.company)
    n = rules.players
    if a.column is Column.START:
        d.start = (*d.start, company)
        return
    d.dest = (*d.dest, company)
    if len(d.dest) < n:
        return
    d.dest = solve_conflicts(d.start, d.dest, n)
    if d.round == 1:
        d.starter = 0  # seed: the player who took a train most recently, seated as seat 0
        _start_play(rules, d)
        return
    last = d.round_points[-2]
    low = min(last)
    tied = [s for s in range(n) if last[s] == low]
    if rules.next_starter is NextStarter.THEN_TOTAL and len(tied) > 1:
        fewest = min(d.points[s] for s in tied)
        tied = [s for s in tied if d.points[s] == fewest]
    if len(tied) == 1:
        _round_ready(rules, d, tied[0])
    else:
        d.tied = tuple(tied)
        d.phase = Phase.STARTER


def _round_ready(rules: Rules, d: Data, starter: int) -> None:
    """Rounds 2-3: the starter is known; hands short of 4 cards are filled up first (decision)."""
    n = rules.players
    d.starter = starter
    d.tied = ()
    owed = tuple(
        s
        for k in range(n)
        for s in [(starter + k) % n]
        for _ in range(max(0, HAND_SIZE - d.held[s]))
    )
    _owe(rules, d, owed, Then.ROUND_START)


def _round_start(rules: Rules, d: Data) -> None:
    n = rules.players
    if rules.exchange:
        d.turn = d.starter
        d.exchanged = 0
        d.to_exchange = tuple((d.starter + k) % n for k in range(1, n))
        d.phase = Phase.EXCHANGE
    else:
        _start_play(rules, d)


def _next_exchanger(rules: Rules, d: Data) -> None:
    if d.to_exchange:
        d.turn, *rest = d.to_exchange
        d.to_exchange = tuple(rest)
        d.exchanged = 0
        d.phase = Phase.EXCHANGE
    else:
        d.exchanged = 0
        _start_play(rules, d)


def _start_play(rules: Rules, d: Data) -> None:
    d.turn = (d.starter - 1) % rules.players
    d.phase = Phase.PLAY
    _advance(rules, d)


def _end_round(rules: Rules, d: Data, reason: EndReason) -> None:
    """Seed, New Round: rail cards to the discard pile, the destination column becomes the
    starting column, and the set-aside starting stations are shuffled into a new destination
    column. After 3 rounds the game ends."""
    d.ends = (*d.ends, reason)
    d.finishing = False
    d.idle = 0
    if d.round == ROUNDS:
        d.phase = Phase.OVER
        return
    discard = list(d.discard)
    for stack in d.stacks:
        for tile in stack:
            discard[tile // 2] += 1
    d.discard = tuple(discard)
    d.discard_top = -1  # the pile is built face down on the mat (decision)
    d.stacks = tuple(() for _ in d.stacks)
    d.start, d.dest = d.dest, ()
    d.round += 1
    d.arrived = ()
    d.round_points = (*d.round_points, tuple(0 for _ in range(rules.players)))
    d.phase = Phase.STATIONS
