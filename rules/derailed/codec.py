"""The state's JSON form (what scenarios `expect` and `set`) and each seat's allow-listed view."""

from __future__ import annotations

from typing import Any

from rules.core import JsonDict
from rules.derailed.cards import FACINGS, CardSet, Facing
from rules.derailed.data import COMPANIES, Data, EndReason, Hands, Phase, Rules, Then
from rules.derailed.grid import slot_index, slot_name
from rules.derailed.legality import canonical_tile, current_player
from rules.derailed.scoring import scores, winners


def _ids(cards: CardSet, counts: tuple[int, ...]) -> list[str]:
    """A pile of counted cards as a list of card ids, in card-set order."""
    return [c.id for c, n in zip(cards.cards, counts, strict=True) for _ in range(n)]


def public_json(rules: Rules, d: Data) -> JsonDict:
    """Everything every seat may see: the railway area, stations, counts, discards, points."""
    cards = rules.cards
    out: JsonDict = {
        "phase": d.phase.value,
        "round": d.round,
        "current_player": current_player(rules, d),
        "turn": d.turn,
        "starter": d.starter,
        "companies": [COMPANIES[s] for s in range(rules.players)],
        "stations": {
            "start": [COMPANIES[c] for c in d.start],
            "destination": [COMPANIES[c] for c in d.dest],
        },
        "railway": {
            slot_name(s): [
                {"card": cards.card_of(t).id, "facing": CardSet.facing_of(t).value} for t in stack
            ]
            for s, stack in enumerate(d.stacks)
            if stack
        },
        "deck_size": d.deck_size,
        "held": list(d.held),
        "discard": _ids(cards, d.discard),
        "discard_top": None if d.discard_top < 0 else cards.cards[d.discard_top].id,
        "arrived": list(d.arrived),
        "points": list(d.points),
        "round_points": [list(r) for r in d.round_points],
        "idle": d.idle,
        "finishing": d.finishing,
        "owed": list(d.owed),
        "then": d.then.value,
        "exchanged": d.exchanged,
        "to_exchange": list(d.to_exchange),
        "tied": list(d.tied),
        "ends": [e.value for e in d.ends],
        "scores": scores(d),
    }
    if d.phase is Phase.OVER:
        out["winners"] = winners(d)
    return out


def state_json(rules: Rules, d: Data) -> JsonDict:
    """The whole state, hidden cards included (for the event log, replays and scenarios).

    `deck` is the rail deck with digital hands, and in table mode every card nobody has seen."""
    out = public_json(rules, d)
    out["deck"] = _ids(rules.cards, d.deck)
    out["hands"] = [[rules.cards.cards[i].id for i in h] for h in d.hands]
    return out


def view_json(rules: Rules, d: Data, seat: int | None) -> JsonDict:
    """What `seat` may see (None: a spectator): the public table and only its own hand."""
    out = public_json(rules, d)
    if seat is not None and rules.hands is Hands.DIGITAL and 0 <= seat < rules.players:
        out["hand"] = [rules.cards.cards[i].id for i in d.hands[seat]]
    return out


def _design(cards: CardSet, value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in cards.index:
        raise ValueError(f"state JSON: {where} holds {value!r}, not a rail card id")
    return cards.index[value]


def _counts(cards: CardSet, value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"state JSON: {where} must be a list of rail card ids")
    counts = [0] * len(cards.cards)
    for item in value:
        counts[_design(cards, item, where)] += 1
    return tuple(counts)


def _facing(value: Any, where: str) -> int:
    if value not in ("destination", "start"):
        raise ValueError(f"state JSON: {where} holds facing {value!r}, not destination or start")
    return FACINGS.index(Facing(value))


def _company(value: Any, where: str) -> int:
    if not isinstance(value, str) or len(value) != 1 or value not in COMPANIES:
        raise ValueError(f"state JSON: {where} holds {value!r}, not a company A-F")
    return COMPANIES.index(value)


def data_from_json(rules: Rules, j: JsonDict) -> Data:
    """Rebuild the data from `state_json` output (computed fields are ignored)."""
    cards = rules.cards
    n = rules.players
    stacks: list[tuple[int, ...]] = [() for _ in range(rules.slots)]
    for name, stack in dict(j["railway"]).items():
        s = slot_index(name, n)
        if s is None:
            raise ValueError(f"state JSON: railway slot {name!r} is not in the railway area")
        stacks[s] = tuple(
            canonical_tile(cards, 2 * _design(cards, c["card"], name) + _facing(c["facing"], name))
            for c in stack
        )
    hands = tuple(
        tuple(sorted(_design(cards, c, f"hands.{i}") for c in h)) for i, h in enumerate(j["hands"])
    )
    top = j.get("discard_top")
    return Data(
        phase=Phase(j["phase"]),
        round=int(j["round"]),
        start=tuple(_company(c, "stations.start") for c in j["stations"]["start"]),
        dest=tuple(_company(c, "stations.destination") for c in j["stations"]["destination"]),
        stacks=tuple(stacks),
        deck=_counts(cards, j["deck"], "deck"),
        deck_size=int(j["deck_size"]),
        hands=hands if hands else tuple(() for _ in range(n)),
        held=tuple(int(x) for x in j["held"]),
        discard=_counts(cards, j["discard"], "discard"),
        discard_top=-1 if top is None else _design(cards, top, "discard_top"),
        turn=int(j["turn"]),
        starter=int(j["starter"]),
        arrived=tuple(int(s) for s in j["arrived"]),
        points=tuple(int(p) for p in j["points"]),
        round_points=tuple(tuple(int(p) for p in r) for r in j["round_points"]),
        idle=int(j["idle"]),
        finishing=bool(j["finishing"]),
        owed=tuple(int(s) for s in j["owed"]),
        then=Then(j["then"]),
        exchanged=int(j["exchanged"]),
        to_exchange=tuple(int(s) for s in j["to_exchange"]),
        tied=tuple(int(s) for s in j["tied"]),
        ends=tuple(EndReason(e) for e in j["ends"]),
    )
