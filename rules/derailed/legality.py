"""Who acts, and what they may do: each action's generator next to its "why not"."""

# `why_not(rules, d, action)` returns None for a legal action, else the `Why` (rule broken, and
# the detail); `legal_actions` lists exactly the actions for which it returns None.

from __future__ import annotations

import functools
import re

from rules.core import CHANCE, Action, Why
from rules.derailed import actions as act
from rules.derailed.cards import CardSet
from rules.derailed.data import COMPANIES, EXCHANGE_MAX, Column, Data, Hands, Phase, Rules
from rules.derailed.grid import COLUMNS, reach, slot_index, slot_name, slot_names

KEEP = act.KeepHand()


@functools.cache
def play_table(cards: CardSet, lanes: int) -> tuple[tuple[act.Play, ...], ...]:
    """Per slot, per tile: the play action (built once; actions are small frozen values)."""
    return tuple(
        tuple(
            act.Play(name, cards.card_of(t).id, CardSet.facing_of(t))
            for t in range(2 * len(cards.cards))
        )
        for name in slot_names(lanes)
    )


@functools.cache
def draw_table(cards: CardSet, players: int) -> tuple[tuple[act.Draw, ...], ...]:
    """Per seat, per design: the draw outcome."""
    return tuple(tuple(act.Draw(s, c.id) for c in cards.cards) for s in range(players))


@functools.cache
def discard_table(cards: CardSet) -> tuple[act.Discard, ...]:
    return tuple(act.Discard(c.id) for c in cards.cards)


_STATIONS = {(col, c): act.LayStation(col, COMPANIES[c]) for col in Column for c in range(6)}


def company(seat: int) -> str:
    """Seat 0 plays company A, seat 1 company B, and so on."""
    return COMPANIES[seat]


def canonical_tile(cards: CardSet, tile: int) -> int:
    """A symmetric card turned half round shows the same tracks: it is written facing the
    destination."""
    return cards.canon[tile]


def tiles_of(cards: CardSet, designs: set[int] | list[int] | tuple[int, ...]) -> list[int]:
    """The distinct ways to lay these designs (one for a symmetric card, else two)."""
    ways = _ways(cards)
    return [t for design in sorted(set(designs)) for t in ways[design]]


@functools.cache
def _ways(cards: CardSet) -> tuple[tuple[int, ...], ...]:
    """Per design, its distinct tiles."""
    canon = cards.canon
    return tuple(
        (2 * d,) if canon[2 * d + 1] == 2 * d else (2 * d, 2 * d + 1)
        for d in range(len(cards.cards))
    )


_kept_stacks: tuple[tuple[int, ...], ...] = ()
_kept_tops: tuple[int, ...] = ()


def tops(d: Data) -> tuple[int, ...]:
    """The tile on top of each slot, -1 for an empty one (the last answer is kept, with the
    railway area it was for)."""
    global _kept_stacks, _kept_tops
    stacks = d.stacks
    if stacks is not _kept_stacks:
        _kept_tops = tuple([st[-1] if st else -1 for st in stacks])
        _kept_stacks = stacks
    return _kept_tops


# ------------------------------------------------------------------ turns


def current_player(rules: Rules, d: Data) -> int | None:
    phase = d.phase
    if phase in (Phase.PLAY, Phase.EXCHANGE):
        return d.turn
    if phase is Phase.STARTER:
        return d.tied[0]
    if phase is Phase.OVER:
        return None
    return CHANCE


def drawer(rules: Rules, d: Data) -> int:
    """The seat the next card goes to (dealing: round the table from seat 0)."""
    return d.owed[0] if d.owed else d.turn


def column_to_lay(rules: Rules, d: Data) -> Column:
    return Column.START if len(d.start) < rules.players else Column.DESTINATION


# ------------------------------------------------------------------ where a card may go

_MASKS: dict[tuple[int, int, int], tuple[object, dict[int, int]]] = {}
"""Recent `open_sides` results by card set, starting lane and railway area (by identity: the
area's tuple is kept with the result, so its id is not reused while the result is kept)."""


def open_sides(rules: Rules, d: Data, seat: int) -> dict[int, int]:
    """Per slot that a track from `seat`'s starting station reaches, the bit mask of its sides
    where it arrives, the card now in the slot left out (a new card would cover it)."""
    lane = d.start.index(seat)
    stacks = d.stacks
    key = (id(rules.cards), lane, id(stacks))
    found = _MASKS.get(key)
    if found is not None and found[0] is stacks:
        return found[1]
    cards = rules.cards
    on_top = tops(d)
    reached, _ = reach(cards.exits, on_top, rules.players, lane)
    masks = {s: sides for s, sides in enumerate(reached) if sides}
    link = cards.link
    for s, sides in masks.items():
        tile = on_top[s]
        if tile >= 0 and sides & link[tile] and sides & (sides - 1):
            # the network runs on through this card and reaches it at two sides or more: which
            # of them does it reach without the card? (The side reached first it always does.)
            masks[s] = reach(cards.exits, on_top, rules.players, lane, s)[0][s]
    if len(_MASKS) > 512:
        _MASKS.clear()
    _MASKS[key] = (stacks, masks)
    return masks


def connects(rules: Rules) -> tuple[int, ...]:
    """Per tile, the sides that may make the connection (stubs too, unless option says not)."""
    return rules.cards.track if rules.stub_connects else rules.cards.link


def hand_designs(rules: Rules, d: Data, seat: int) -> list[int]:
    """Designs the seat may play: its hand, or in table mode any card nobody has seen."""
    if rules.hands is Hands.TABLE:
        return [i for i, n in enumerate(d.deck) if n] if d.held[seat] else []
    return sorted(set(d.hands[seat]))


def plays(rules: Rules, d: Data) -> list[Action]:
    seat = d.turn
    cards = rules.cards
    if rules.hands is Hands.TABLE:
        tiles = tiles_of(cards, hand_designs(rules, d, seat))
    else:  # a hand is sorted: its distinct designs in order
        ways = _ways(cards)
        tiles = [t for design in dict.fromkeys(d.hands[seat]) for t in ways[design]]
    if not tiles:
        return []
    masks = open_sides(rules, d, seat)
    table = play_table(cards, rules.players)
    conn = connects(rules)
    fitting: dict[int, list[int]] = {}  # per mask of open sides, the tiles that connect there
    out: list[Action] = []
    for s, mask in masks.items():
        fit = fitting.get(mask)
        if fit is None:
            fit = fitting[mask] = [t for t in tiles if conn[t] & mask]
        if fit:
            stack = d.stacks[s]
            top = stack[-1] if stack else -1
            row = table[s]
            out += [row[t] for t in fit if t != top]
    return out


def why_not_play(rules: Rules, d: Data, a: act.Play) -> Why | None:
    if d.phase is not Phase.PLAY:
        return Why("no card is played now", f"phase {d.phase}")
    s = slot_index(a.slot, rules.players)
    if s is None:
        return _off_the_grid(rules, a.slot)
    cards = rules.cards
    design = cards.index.get(a.card)
    if design is None:
        return Why("no such rail card", f"{a.card!r} at {a.slot}")
    seat = d.turn
    if rules.hands is Hands.TABLE:
        if not d.held[seat]:
            return Why("a card must come from the player's hand", f"seat {seat} holds no card")
        if not d.deck[design]:
            return Why(
                "every copy of that card is already on the table or the discard pile",
                f"{a.card} cannot be played at {a.slot}",
            )
    elif design not in d.hands[seat]:
        return Why(
            "a card must come from the player's hand",
            f"seat {seat} does not hold {a.card} to play at {a.slot}",
        )
    tile = canonical_tile(cards, cards.tile(a.card, a.facing))
    stack = d.stacks[s]
    if stack and stack[-1] == tile:
        return Why(
            f"{a.slot} already holds {a.card} turned the same way: on top of itself it would "
            "change nothing",
        )
    mask = open_sides(rules, d, seat).get(s, 0)
    if not connects(rules)[tile] & mask:
        station = f"company {company(seat)}'s starting station (lane {d.start.index(seat) + 1})"
        if cards.track[tile] & mask:
            return Why(
                f"a card played at {a.slot} must have a connecting path to the player's starting "
                "station, and a dead-end stub does not connect (option stub_connects)",
                f"only a stub of {a.card} meets the track from {station}",
            )
        return Why(
            f"a card played at {a.slot} must have a connecting path to the player's starting "
            "station",
            f"no track of {a.card} facing {a.facing} at {a.slot} meets a track from {station}",
        )
    return None


def _off_the_grid(rules: Rules, slot: str) -> Why:
    """Why a slot name is no slot of the railway area."""
    n = rules.players
    lanes = f"A1-D{n}: columns A-D, lanes 1-{n}"
    found = re.fullmatch(r"([A-Z])([1-9][0-9]*)", slot)
    if found is None:
        return Why(
            "cards must be placed within the grid, they cannot be between grid slots",
            f"{slot!r} is not a slot; slots are {lanes}",
        )
    if found.group(1) not in COLUMNS:
        return Why(
            "the railway area is as long as 4 rail cards",
            f"{slot} is beyond it; slots are {lanes}",
        )
    return Why(
        "cards must be placed within the lanes where there are stations",
        f"{slot} is outside them; slots are {lanes}",
    )


def _placeable(rules: Rules, d: Data, design: int) -> str | None:
    """A slot where the seat to play could put this card, if any."""
    masks = open_sides(rules, d, d.turn)
    conn = connects(rules)
    for t in tiles_of(rules.cards, [design]):
        for s, mask in masks.items():
            stack = d.stacks[s]
            if conn[t] & mask and not (stack and stack[-1] == t):
                return slot_name(s)
    return None


def discards(rules: Rules, d: Data) -> list[Action]:
    table = discard_table(rules.cards)
    if d.phase is Phase.EXCHANGE:
        if d.exchanged >= EXCHANGE_MAX:
            return []
        return [table[i] for i in hand_designs(rules, d, d.turn)]
    if rules.hands is Hands.TABLE:
        return [table[i] for i in hand_designs(rules, d, d.turn) if _placeable(rules, d, i) is None]
    if plays(rules, d):
        return []
    return [table[i] for i in hand_designs(rules, d, d.turn)]


def why_not_discard(rules: Rules, d: Data, a: act.Discard) -> Why | None:
    if d.phase not in (Phase.PLAY, Phase.EXCHANGE):
        return Why("no card is discarded now", f"phase {d.phase}")
    design = rules.cards.index.get(a.card)
    if design is None:
        return Why("no such rail card", repr(a.card))
    seat = d.turn
    if rules.hands is Hands.TABLE:
        if not d.held[seat]:
            return Why("a card must come from the player's hand", f"seat {seat} holds no card")
        if not d.deck[design]:
            return Why(
                "every copy of that card is already on the table or the discard pile", a.card
            )
    elif design not in d.hands[seat]:
        return Why("a card must come from the player's hand", f"seat {seat} does not hold {a.card}")
    if d.phase is Phase.EXCHANGE:
        if d.exchanged >= EXCHANGE_MAX:
            return Why(
                "at most 2 cards are exchanged between rounds", f"seat {seat} has exchanged 2"
            )
        return None
    if rules.hands is Hands.TABLE:
        where = _placeable(rules, d, design)
        if where is not None:
            return Why(
                "a player discards only when no card in hand can be placed",
                f"{a.card} can be placed at {where}",
            )
        return None
    possible = plays(rules, d)
    if possible:
        first = possible[0]
        assert isinstance(first, act.Play)
        return Why(
            "a player discards only when no card in hand can be placed",
            f"{first.card} can be placed at {first.slot}",
        )
    return None


# ------------------------------------------------------------------ chance


def chance_outcomes(rules: Rules, d: Data) -> list[tuple[Action, float]]:
    if d.phase is Phase.STATIONS:
        column = column_to_lay(rules, d)
        laid = d.start if column is Column.START else d.dest
        left = [c for c in range(rules.players) if c not in laid]
        return [(_STATIONS[column, c], 1 / len(left)) for c in left]
    if d.phase in (Phase.DEAL, Phase.DRAW):
        row = draw_table(rules.cards, rules.players)[drawer(rules, d)]
        size = d.deck_size
        return [(draw, n / size) for draw, n in zip(row, d.deck, strict=True) if n]
    return []


def _why_not_chance(rules: Rules, d: Data, a: Action) -> Why | None:
    if isinstance(a, act.LayStation):
        if d.phase is not Phase.STATIONS:
            return Why("no station card is laid now", f"phase {d.phase}")
        column = column_to_lay(rules, d)
        if a.column is not column:
            return Why(f"the {column} column is being laid", f"not the {a.column} column")
        c = COMPANIES.find(a.company) if len(a.company) == 1 else -1
        if not 0 <= c < rules.players:
            last = COMPANIES[rules.players - 1]
            return Why("no such company in this game", f"{a.company!r}; companies A-{last}")
        laid = d.start if column is Column.START else d.dest
        if c in laid:
            return Why("that company's station card is already in the column", a.company)
        return None
    if isinstance(a, act.Draw):
        if d.phase not in (Phase.DEAL, Phase.DRAW):
            return Why("no card is drawn now", f"phase {d.phase}")
        design = rules.cards.index.get(a.card)
        if design is None:
            return Why("no such rail card", repr(a.card))
        if a.seat != drawer(rules, d):
            return Why("that seat does not draw now", f"seat {drawer(rules, d)} draws")
        if not d.deck[design]:
            return Why("that card is not in the rail deck", a.card)
        return None
    return Why("not an action of Derailed!")


# ------------------------------------------------------------------ together


def legal_actions(rules: Rules, d: Data) -> list[Action]:
    phase = d.phase
    if phase is Phase.PLAY:
        found = plays(rules, d)
        if rules.hands is Hands.TABLE:
            return found + discards(rules, d)
        return found or discards(rules, d)
    if phase is Phase.EXCHANGE:
        return [*discards(rules, d), KEEP]
    if phase is Phase.STARTER:
        return [act.ChooseStarter(s) for s in d.tied]
    if phase is Phase.OVER:
        return []
    return [a for a, _ in chance_outcomes(rules, d)]


def why_not(rules: Rules, d: Data, a: Action) -> Why | None:
    """None if `a` is legal now, else the rule it breaks (the game's `State.why_not`)."""
    if d.phase is Phase.OVER:
        return Why("the game is over")
    if a.CHANCE_OUTCOME:
        return _why_not_chance(rules, d, a)
    if isinstance(a, act.Play):
        return why_not_play(rules, d, a)
    if isinstance(a, act.Discard):
        return why_not_discard(rules, d, a)
    if isinstance(a, act.KeepHand):
        if d.phase is not Phase.EXCHANGE:
            return Why("no cards are exchanged now", f"phase {d.phase}")
        return None
    if isinstance(a, act.ChooseStarter):
        if d.phase is not Phase.STARTER:
            return Why("the starting player is not being chosen now", f"phase {d.phase}")
        if a.seat not in d.tied:
            tied = ", ".join(str(s) for s in d.tied)
            return Why(
                "the player who made fewest points in the last round starts",
                f"seat {a.seat} is not among the tied seats {tied}",
            )
        return None
    return Why("not an action of Derailed!")


def candidates(rules: Rules, d: Data) -> list[Action]:
    """Every action the JSON can spell near this state, legal or not (for the conformance test):
    every canonical play, discard and draw, the starter choices, the station cards."""
    cards = rules.cards
    out: list[Action] = []
    every = tiles_of(cards, list(range(len(cards.cards))))
    for row in play_table(cards, rules.players):
        out += [row[t] for t in every]
    out += discard_table(cards)
    for draws in draw_table(cards, rules.players):
        out += draws
    out.append(KEEP)
    out += [act.ChooseStarter(s) for s in range(rules.players + 1)]
    out += [act.LayStation(col, c) for col in Column for c in COMPANIES]
    return out
