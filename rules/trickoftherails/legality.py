"""Who acts, and what they may do: each action's generator next to its "why not".

`why_not(rules, d, action)` returns None for a legal action, else the `Why` (rule broken, and
the detail); `legal_actions` lists exactly the actions for which it returns None.
"""

from __future__ import annotations

from rules.core import CHANCE, Action, Why
from rules.trickoftherails import actions as act
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    COMPANY_NAMES,
    COMPANY_OF,
    HAND_SIZE,
    RAILWAY_CARDS,
    Company,
    Kind,
    station_id,
)
from rules.trickoftherails.data import CHANCE_PHASES, Data, Hands, Phase, Rules
from rules.trickoftherails.lane import Draw, draw_choices

# Built once: the actions are small frozen values, so the same object serves every game.
PLAY = {c: act.Play(c) for c in CARDS}
DEAL = {(s, c): act.Deal(s, c) for s in range(max(HAND_SIZE)) for c in RAILWAY_CARDS}
START = {c: act.StartRailway(c) for c in RAILWAY_CARDS}
LANE = {c: act.LayLane(c) for c in CARDS}
CITY = {(c, e): act.PlaceCity(c, e) for c in COMPANIES for e in act.End}
LOCOMOTIVE = {c: act.PlaceLocomotive(c) for c in COMPANIES}
LAY = {e: act.LayTrack(e) for e in act.End}
SETTLE = {r: act.SettleRevoke(r) for r in act.Remedy}


def current_player(rules: Rules, d: Data) -> int | None:
    phase = d.phase
    if phase is Phase.PLAY:
        return to_play(rules, d)
    if phase is Phase.LAY_TRACK:
        return d.to_lay[0]
    if phase in (Phase.PLACE_CITY, Phase.PLACE_LOCOMOTIVE, Phase.PLACE_INFINITE):
        return d.winner
    if phase is Phase.REVOKE:
        return d.revokes[-1].seat
    if phase is Phase.OVER:
        return None
    return CHANCE


def to_play(rules: Rules, d: Data) -> int:
    """The seat whose card goes into the trick next."""
    return (d.leader + len(d.trick)) % rules.players


def next_to_deal(rules: Rules, d: Data) -> int:
    """Digital deal: the seat the next card goes to (one at a time round the table from seat 0)."""
    return sum(d.held) % rules.players


def led_company(d: Data) -> Company | None:
    return COMPANY_OF[d.trick[0][1]] if d.trick else None


def railway_card_of(d: Data, seat: int) -> str:
    """The card `seat` played to the trick now being laid."""
    for s, c in d.trick:
        if s == seat:
            return c
    raise AssertionError(f"seat {seat} has no card in the trick")


# ------------------------------------------------------------------ chance


def chance_outcomes(rules: Rules, d: Data) -> list[tuple[Action, float]]:
    phase = d.phase
    if phase is Phase.LANE:
        cards = draw_choices(Draw(d.plan[0]), d.lane)
        return [(LANE[c], 1 / len(cards)) for c in cards]
    if phase is Phase.DEAL:
        seat = next_to_deal(rules, d)
        p = 1 / len(d.deck)
        return [(DEAL[seat, c], p) for c in RAILWAY_CARDS if c in d.deck]
    if phase is Phase.RAILWAYS:
        p = 1 / len(d.deck)
        return [(START[c], p) for c in RAILWAY_CARDS if c in d.deck]
    if phase is Phase.FIRST_LEAD:
        p = 1 / rules.players
        return [(act.FirstLead(s), p) for s in range(rules.players)]
    return []


def _why_not_chance(rules: Rules, d: Data, a: Action) -> Why | None:
    if isinstance(a, act.LayLane):
        if d.phase is not Phase.LANE:
            return Why("the trick lane is already laid", f"phase {d.phase}")
        choices = draw_choices(Draw(d.plan[0]), d.lane)
        if a.card not in choices:
            return Why("that card cannot fill the next lane slot", f"one of {', '.join(choices)}")
        return None
    if isinstance(a, act.Deal | act.StartRailway):
        want = Phase.DEAL if isinstance(a, act.Deal) else Phase.RAILWAYS
        if d.phase is not want:
            return Why(f"no {a.TYPE} now", f"phase {d.phase}")
        if a.card not in d.deck:
            return Why("that card is not among the unseen railway cards", a.card)
        if isinstance(a, act.Deal) and a.seat != next_to_deal(rules, d):
            return Why(
                "cards are dealt one at a time round the table",
                f"the next card goes to seat {next_to_deal(rules, d)}",
            )
        return None
    if isinstance(a, act.FirstLead):
        if d.phase is not Phase.FIRST_LEAD:
            return Why("the first leader is already known", f"phase {d.phase}")
        if not 0 <= a.seat < rules.players:
            return Why("no such seat", f"seats 0-{rules.players - 1}")
        return None
    return Why("not an action of Trick of the Rails")


# ------------------------------------------------------------------ play a card


def plays(rules: Rules, d: Data) -> list[Action]:
    """Cards the player to act may play: any card to lead, else the led company if able."""
    if rules.hands is Hands.TABLE:
        # Nothing can see the hand: any card not yet seen may be the one played.
        return [PLAY[c] for c in RAILWAY_CARDS if c in d.deck]
    hand = d.hands[to_play(rules, d)]
    led = led_company(d)
    if led is not None:
        following: list[Action] = [PLAY[c] for c in hand if COMPANY_OF[c] is led]
        if following:
            return following
    return [PLAY[c] for c in hand]


def why_not_play(rules: Rules, d: Data, card: str) -> Why | None:
    if d.phase is not Phase.PLAY:
        return Why("no trick is being played now", f"phase {d.phase}")
    info = CARDS.get(card)
    if info is None:
        return Why("no such card", card)
    if info.kind is not Kind.RAILWAY:
        return Why(
            "only railway cards (numbered 1-10) are held and played", f"{card} is a {info.kind}"
        )
    seat = to_play(rules, d)
    if rules.hands is Hands.TABLE:
        if card not in d.deck:
            return Why(
                "that card has been played or laid before", f"{card} is already on the table"
            )
        return None
    hand = d.hands[seat]
    if card not in hand:
        return Why("a card must come from the player's hand", f"seat {seat} does not hold {card}")
    led = led_company(d)
    if led is not None and info.company is not led:
        held = sum(1 for c in hand if COMPANY_OF[c] is led)
        if held:
            return Why(
                f"a player who holds the led company {COMPANY_NAMES[led]} must follow it",
                f"seat {seat} holds {held} card(s) of it",
            )
    return None


# ------------------------------------------------------------------ resolve a trick


def may_add_left(rules: Rules, d: Data, company: Company) -> bool:
    """Whether a card may go to the railway's left end (in front of the station card)."""
    if rules.front_of_station:
        return True
    return d.railways[COMPANIES.index(company)][0] != station_id(company)


def _ends(rules: Rules, d: Data, company: Company) -> tuple[act.End, ...]:
    if may_add_left(rules, d, company):
        return (act.End.LEFT, act.End.RIGHT)
    return (act.End.RIGHT,)


def _why_not_end(rules: Rules, d: Data, company: Company, end: act.End) -> Why | None:
    if end is act.End.LEFT and not may_add_left(rules, d, company):
        return Why(
            "no card may go in front of the station card (option front_of_station)",
            f"the {COMPANY_NAMES[company]} railway begins with its station",
        )
    return None


def city_places(rules: Rules, d: Data) -> list[Action]:
    return [CITY[c, e] for c in COMPANIES for e in _ends(rules, d, c)]


def why_not_city(rules: Rules, d: Data, a: act.PlaceCity) -> Why | None:
    if d.phase is not Phase.PLACE_CITY:
        return Why("no city card to place now", f"phase {d.phase}")
    return _why_not_end(rules, d, a.company, a.end)


def free_railways(d: Data) -> list[Company]:
    return [c for c, loco in zip(COMPANIES, d.locomotives, strict=True) if loco is None]


def locomotive_places(rules: Rules, d: Data) -> list[Action]:
    return [LOCOMOTIVE[c] for c in free_railways(d)]


def why_not_locomotive(rules: Rules, d: Data, a: act.PlaceLocomotive) -> Why | None:
    if d.phase not in (Phase.PLACE_LOCOMOTIVE, Phase.PLACE_INFINITE):
        return Why("no locomotive to place now", f"phase {d.phase}")
    have = d.locomotives[COMPANIES.index(a.company)]
    if have is not None:
        return Why(
            "a locomotive goes only to a railway that has none yet",
            f"the {COMPANY_NAMES[a.company]} railway has {have}",
        )
    return None


def track_ends(rules: Rules, d: Data) -> list[Action]:
    company = COMPANY_OF[railway_card_of(d, d.to_lay[0])]
    return [LAY[e] for e in _ends(rules, d, company)]


def why_not_lay(rules: Rules, d: Data, a: act.LayTrack) -> Why | None:
    if d.phase is not Phase.LAY_TRACK:
        return Why("no card to add to a railway now", f"phase {d.phase}")
    company = COMPANY_OF[railway_card_of(d, d.to_lay[0])]
    return _why_not_end(rules, d, company, a.end)


def why_not_settle(rules: Rules, d: Data) -> Why | None:
    if d.phase is not Phase.REVOKE:
        return Why("no revoke waits to be settled", f"phase {d.phase}")
    return None


# ------------------------------------------------------------------ together


def legal_actions(rules: Rules, d: Data) -> list[Action]:
    phase = d.phase
    if phase in CHANCE_PHASES:
        return [a for a, _ in chance_outcomes(rules, d)]
    if phase is Phase.PLAY:
        return plays(rules, d)
    if phase is Phase.LAY_TRACK:
        return track_ends(rules, d)
    if phase is Phase.PLACE_CITY:
        return city_places(rules, d)
    if phase in (Phase.PLACE_LOCOMOTIVE, Phase.PLACE_INFINITE):
        return locomotive_places(rules, d)
    if phase is Phase.REVOKE:
        return list(SETTLE.values())
    return []


def why_not(rules: Rules, d: Data, a: Action) -> Why | None:
    """None if `a` is legal now, else the rule it breaks (the game's `State.why_not`)."""
    if d.phase is Phase.OVER:
        return Why("the game is over")
    if a.CHANCE_OUTCOME:
        return _why_not_chance(rules, d, a)
    if d.phase in CHANCE_PHASES:
        return Why("a player action, but the cards are still being laid out", f"phase {d.phase}")
    if isinstance(a, act.Play):
        return why_not_play(rules, d, a.card)
    if isinstance(a, act.LayTrack):
        return why_not_lay(rules, d, a)
    if isinstance(a, act.PlaceCity):
        return why_not_city(rules, d, a)
    if isinstance(a, act.PlaceLocomotive):
        return why_not_locomotive(rules, d, a)
    if isinstance(a, act.SettleRevoke):
        return why_not_settle(rules, d)
    return Why("not an action of Trick of the Rails")


def first_free_railway(d: Data) -> Company:
    """Basic lane: where the infinite locomotive goes by itself (the one railway left)."""
    return free_railways(d)[0]


def candidates(rules: Rules, d: Data) -> list[Action]:
    """Every action the JSON can spell, legal or not (for the conformance test)."""
    seats = range(rules.players + 1)
    return [
        *PLAY.values(),
        *(a for (s, _), a in DEAL.items() if s < rules.players),
        *START.values(),
        *LANE.values(),
        *CITY.values(),
        *LOCOMOTIVE.values(),
        *LAY.values(),
        *SETTLE.values(),
        *(act.FirstLead(s) for s in seats),
    ]
