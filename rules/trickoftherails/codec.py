"""The state's JSON form (what scenarios `expect` and `set`) and each seat's allow-listed view."""

from __future__ import annotations

from typing import Any

from rules.core import JsonDict
from rules.trickoftherails.actions import Remedy
from rules.trickoftherails.cards import (
    CARDS,
    COMPANIES,
    COMPANY_NAMES,
    NUMBER_OF,
    RAILWAY_CARDS,
    Company,
)
from rules.trickoftherails.data import Data, Hands, Phase, Revoke, Rules, Void
from rules.trickoftherails.legality import current_player, led_company
from rules.trickoftherails.scoring import scores, share_values, winners


def _revoke_json(r: Revoke) -> JsonDict:
    return {
        "seat": r.seat,
        "trick": r.trick,
        "company": r.company.value,
        "card": r.card,
        "proven_in_trick": r.proven_in_trick,
        "undo_to": r.undo_to,
        "remedy": None if r.remedy is None else r.remedy.value,
        "text": revoke_text(r),
    }


def revoke_text(r: Revoke) -> str:
    """One line for the table: who revoked where, and the card that proves it."""
    company = COMPANY_NAMES[r.company]
    return (
        f"seat {r.seat} did not follow {company} in trick {r.trick} but held {company} "
        f"{NUMBER_OF[r.card]}, played in trick {r.proven_in_trick}"
    )


def public_json(rules: Rules, d: Data) -> JsonDict:
    """Everything every seat may see: the table, counts of cards in hand, revokes, scores."""
    out: JsonDict = {
        "phase": d.phase.value,
        "current_player": current_player(rules, d),
        "trick_number": d.trick_number,
        "leader": d.leader,
        "lane": list(d.lane),
        "lane_plan": list(d.plan),
        "lane_taken": d.lane_taken,
        "held": list(d.held),
        "trick": [{"seat": s, "card": c} for s, c in d.trick],
        "led": None if (led := led_company(d)) is None else led.value,
        "winner": d.winner,
        "to_lay": list(d.to_lay),
        "railways": {
            c.value: {"cards": list(rail), "locomotive": loco, "left_added": left}
            for c, rail, loco, left in zip(
                COMPANIES, d.railways, d.locomotives, d.left_added, strict=True
            )
        },
        "shares": [list(s) for s in d.shares],
        "removed": list(d.removed),
        "unused": list(d.unused),
        "share_tricks": d.share_tricks,
        "voids": [
            {v.company.value: {"trick": v.trick, "undo_to": v.ply} for v in vs} for vs in d.voids
        ],
        "revokes": [_revoke_json(r) for r in d.revokes],
        "resume": None if d.resume is None else d.resume.value,
        "share_values": {c.value: v for c, v in share_values(rules, d).items()},
        "scores": scores(rules, d),
    }
    if d.phase is Phase.OVER:
        out["winners"] = winners(rules, d)
    return out


def state_json(rules: Rules, d: Data) -> JsonDict:
    """The whole state, hidden cards included (for the event log, replays and scenarios)."""
    out = public_json(rules, d)
    out["deck"] = sorted(d.deck, key=RAILWAY_CARDS.index)
    out["hands"] = [list(h) for h in d.hands]
    return out


def view_json(rules: Rules, d: Data, seat: int | None) -> JsonDict:
    """What `seat` may see (None: a spectator): the public table and only its own hand."""
    out = public_json(rules, d)
    if seat is not None and rules.hands is Hands.DEALT and 0 <= seat < rules.players:
        out["hand"] = list(d.hands[seat])
    return out


def _cards(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c in CARDS for c in value):
        raise ValueError(f"state JSON: {where} must be a list of card ids, got {value!r}")
    return tuple(value)


def data_from_json(rules: Rules, j: JsonDict) -> Data:
    """Rebuild the data from `state_json` output (computed fields are ignored)."""
    d = Data(players=rules.players)
    d.phase = Phase(j["phase"])
    d.plan = tuple(str(x) for x in j["lane_plan"])
    d.lane = _cards(j["lane"], "lane")
    d.lane_taken = int(j["lane_taken"])
    d.deck = frozenset(_cards(j["deck"], "deck"))
    d.hands = tuple(_cards(h, f"hands.{i}") for i, h in enumerate(j["hands"]))
    d.held = tuple(int(x) for x in j["held"])
    rails = j["railways"]
    d.railways = tuple(_cards(rails[c.value]["cards"], f"railways.{c.value}") for c in COMPANIES)
    d.locomotives = tuple(rails[c.value]["locomotive"] for c in COMPANIES)
    d.left_added = tuple(int(rails[c.value].get("left_added", 0)) for c in COMPANIES)
    d.shares = tuple(_cards(s, f"shares.{i}") for i, s in enumerate(j["shares"]))
    d.removed = _cards(j["removed"], "removed")
    d.unused = _cards(j["unused"], "unused")
    d.trick_number = int(j["trick_number"])
    d.leader = int(j["leader"])
    d.trick = tuple((int(t["seat"]), str(t["card"])) for t in j["trick"])
    d.winner = None if j["winner"] is None else int(j["winner"])
    d.to_lay = tuple(int(s) for s in j["to_lay"])
    d.share_tricks = int(j["share_tricks"])
    d.voids = tuple(
        tuple(sorted(Void(Company(c), int(v["trick"]), int(v["undo_to"])) for c, v in vs.items()))
        for vs in j["voids"]
    )
    d.revokes = tuple(
        Revoke(
            int(r["seat"]),
            int(r["trick"]),
            Company(r["company"]),
            str(r["card"]),
            int(r["proven_in_trick"]),
            int(r["undo_to"]),
            None if r["remedy"] is None else Remedy(r["remedy"]),
        )
        for r in j["revokes"]
    )
    d.resume = None if j.get("resume") is None else Phase(j["resume"])
    return d
