"""Trick of the Rails: seeded random games with their invariants; table mode against a deal."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from typing import Any

import pytest

import rules
from rules.core import CHANCE, Action, IllegalAction
from rules.playout import Policy, choose
from rules.trickoftherails import TRICK_OF_THE_RAILS, TrickOfTheRails
from rules.trickoftherails import actions as act
from rules.trickoftherails.cards import (
    CARDS,
    COMPANY_NAMES,
    COMPANY_OF,
    HAND_SIZE,
    NUMBER_OF,
    RAILWAY_CARDS,
    VALUE_OF,
    Company,
)

VARIANTS: list[dict[str, Any]] = [
    {"players": p, "hands": hands, "lane": lane}
    for p in (3, 4, 5)
    for hands in ("dealt", "table")
    for lane in ("basic", "expert")
] + [
    {"players": 4, "teams": True},
    {"players": 3, "front_of_station": False, "first_lead": "random"},
    {"players": 5, "lane": "expert", "no_locomotive": "whole_railway"},
]


def _new(options: dict[str, Any], seed: int) -> TrickOfTheRails:
    state = rules.new_game("trickoftherails", options, seed)
    assert isinstance(state, TrickOfTheRails)
    return state


def _naive_share_value(cards: list[str], loco: str | None, no_loco: str) -> int:
    values = [VALUE_OF[c] for c in cards]
    if loco is None:
        return sum(values) if no_loco == "whole_railway" else 0
    info = CARDS[loco]
    d = len(values) if info.distance == 0 else info.distance
    runs = [sum(values[i : i + d]) for i in range(max(1, len(values) - d + 1))]
    return max(0, max(runs) - info.cost)


def _naive_scores(state: TrickOfTheRails) -> list[float]:
    j = state.to_json()
    no_loco = state.options["no_locomotive"]
    value = {
        c: _naive_share_value(r["cards"], r["locomotive"], no_loco)
        for c, r in j["railways"].items()
    }
    own = []
    for seat, shares in enumerate(j["shares"]):
        penalties = sum(1 for r in j["revokes"] if r["seat"] == seat and r["remedy"] == "penalty")
        own.append(sum(value[COMPANY_OF[c]] for c in shares) - 50 * penalties)
    if state.options["teams"]:
        return [float(own[s] + own[(s + 2) % 4]) for s in range(4)]
    return [float(x) for x in own]


def _secrets_absent(state: TrickOfTheRails, seat: int | None) -> None:
    view = state.view(seat)
    text = json.dumps(view)
    assert "seed" not in view and "deck" not in view and "hands" not in view
    for other, hand in enumerate(state.d.hands):
        if other != seat:
            for card in hand:
                assert f'"{card}"' not in text, (seat, card)


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
@pytest.mark.parametrize("seed", [0, 1])
def test_random_game_keeps_every_invariant(options: dict[str, Any], seed: int) -> None:
    state = _new(options, seed)
    rng = random.Random(seed)
    policy = Policy.BOT if seed % 2 else Policy.UNIFORM
    previous: list[Action] = []
    for _ in range(1000):
        if state.is_over:
            break
        before = state.to_json()
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        copy = TrickOfTheRails.from_json(before)
        assert copy.to_json() == before and copy.legal_actions() == legal
        if state.current_player == CHANCE:
            assert math.isclose(sum(p for _, p in state.chance_outcomes()), 1.0)
        for a in TRICK_OF_THE_RAILS.candidates(state):
            assert state.is_legal(a) == (a in legal), a
        for a in rng.sample(legal, min(len(legal), 6)):
            state.apply(a)
            assert state.undo() == a
            assert state.to_json() == before
        for stale in previous:
            if stale not in legal:
                with pytest.raises(IllegalAction):
                    state.apply(stale)
                assert state.to_json() == before
        for seat in [None, *range(options["players"])]:
            _secrets_absent(state, seat)
        state.apply(choose(state, rng, policy))
        assert state.invariants() == []
        previous = legal
    assert state.is_over and state.legal_actions() == []
    assert state.scores() == _naive_scores(state)
    j = state.to_json()
    players = options["players"]
    assert all(n == 0 for n in j["held"]) and j["deck"] == [] and j["lane"] == []
    assert j["trick_number"] == HAND_SIZE[players] + 1
    top = max(j["scores"])
    assert j["winners"] == [s for s, x in enumerate(j["scores"]) if x == top]


@pytest.mark.parametrize(("players", "share_tricks"), [(3, 8), (4, 6), (5, 5)])
def test_basic_lane_gives_every_player_the_shares_it_implies(
    players: int, share_tricks: int
) -> None:
    for seed in range(5):
        state = _new({"players": players}, seed)
        rng = random.Random(seed)
        while not state.is_over:
            state.apply(choose(state, rng, Policy.UNIFORM))
        assert [len(s) for s in state.d.shares] == [share_tricks] * players
        assert all(loco is not None for loco in state.d.locomotives)


def led_name(company: Company) -> str:
    return COMPANY_NAMES[company]


def _replay_in_table_mode(dealt: TrickOfTheRails, cheat: bool = False) -> TrickOfTheRails:
    """The same game played with real cards: lane and undealt cards observed, plays as they land."""
    table = _new({**dealt.options, "hands": "table"}, dealt.seed)
    dealt_cards = {a.card for a in dealt.history if isinstance(a, act.Deal)}
    undealt = [c for c in RAILWAY_CARDS if c not in dealt_cards]
    for a in dealt.history:
        if isinstance(a, act.Deal):
            continue
        if isinstance(a, act.Play | act.FirstLead) and table.d.phase.value == "railways":
            for card in undealt:
                table.apply(act.StartRailway(card))
        table.apply(a)
    return table


def test_table_mode_referees_an_honest_game_exactly_like_the_deal() -> None:
    for players in (3, 4, 5):
        dealt = _new({"players": players}, 3)
        rng = random.Random(3)
        while not dealt.is_over:
            dealt.apply(choose(dealt, rng, Policy.BOT))
        table = _replay_in_table_mode(dealt)
        assert table.is_over and table.d.revokes == ()
        assert table.scores() == dealt.scores()
        assert table.to_json()["railways"] == dealt.to_json()["railways"]


def test_a_revoke_is_proven_when_the_withheld_company_is_played_later() -> None:
    state = _new({"players": 3, "hands": "table"}, 1)
    rng = random.Random(1)
    while state.current_player == CHANCE:
        state.apply(choose(state, rng))
    unseen = sorted(state.d.deck, key=RAILWAY_CARDS.index)
    by_company = Counter(COMPANY_OF[c] for c in unseen)
    led = next(c for c in by_company if by_company[c] >= 2)
    other = next(c for c in by_company if c is not led)
    led_cards = [c for c in unseen if COMPANY_OF[c] is led]
    other_card = next(c for c in unseen if COMPANY_OF[c] is other)
    state.apply(act.Play(led_cards[0]))  # seat 0 leads
    revoking_ply = len(state.history)
    state.apply(act.Play(other_card))  # seat 1 does not follow
    assert state.to_json()["voids"][1] == {led.value: {"trick": 1, "undo_to": revoking_ply}}
    spare = [c for c in unseen if COMPANY_OF[c] is not led and c != other_card]
    state.apply(act.Play(spare[0]))  # seat 2 neither: seat 0 wins the share trick, leads again
    assert state.to_json()["phase"] == "play" and state.current_player == 0
    state.apply(act.Play(spare[1]))
    state.apply(act.Play(led_cards[1]))
    j = state.to_json()
    assert j["phase"] == "revoke" and j["current_player"] == 1
    assert j["revokes"] == [
        {"seat": 1, "trick": 1, "company": led.value, "card": led_cards[1],
         "proven_in_trick": j["trick_number"], "undo_to": revoking_ply, "remedy": None,
         "text": j["revokes"][0]["text"]}
    ]  # fmt: skip
    number = NUMBER_OF[led_cards[1]]
    assert j["revokes"][0]["text"].startswith(f"seat 1 did not follow {led_name(led)} in trick 1")
    assert j["revokes"][0]["text"].endswith(f"held {led_name(led)} {number}, played in trick 2")
    for seat in (None, 0, 2):
        assert "hand" not in state.view(seat)
    state.apply(act.SettleRevoke(act.Remedy.PENALTY))
    assert state.to_json()["revokes"][0]["remedy"] == "penalty"
    while len(state.history) > revoking_ply:
        state.undo()
    assert state.to_json()["revokes"] == [] and state.to_json()["voids"][1] == {}
    assert state.current_player == 1 and len(state.d.trick) == 1


def _seen(state: TrickOfTheRails, seat: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    history = [state.action_view(a, CHANCE, seat) for a in state.history]
    return state.view(seat), history


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_redealt_hand_changes_only_its_owners_view_and_history(players: int) -> None:
    state = _new({"players": players}, 918_273_645)
    rng = random.Random(players)
    redealt = 0
    while not state.is_over:
        seats: list[int | None] = [None, *range(players)]
        before = {seat: _seen(state, seat) for seat in seats}
        assert all("918273645" not in json.dumps(seen) for seen in before.values())
        for owner in range(players):
            twin = state.redeal_secrets(owner, rng)
            if twin is None:
                continue
            redealt += 1
            assert _seen(twin, owner) != before[owner]
            for seat in seats:
                if seat != owner:
                    assert _seen(twin, seat) == before[seat], (owner, seat)
        state.apply(choose(state, rng, Policy.BOT))
    assert redealt > 0


def test_a_deal_shows_its_card_to_its_seat_only() -> None:
    deal = act.Deal(1, "prr-5")
    state = _new({"players": 3}, 1)
    assert state.action_view(deal, CHANCE, 1) == {"type": "deal", "seat": 1, "card": "prr-5"}
    for seat in (None, 0, 2):
        assert state.action_view(deal, CHANCE, seat) == {"type": "deal", "seat": 1, "hidden": True}
    fresh = TrickOfTheRails.from_json(state.to_json())
    rng = random.Random(1)
    while fresh.d.phase.value != "deal" or fresh.d.held[0] == 0:
        fresh.apply(choose(fresh, rng))
    loaded = TrickOfTheRails.from_json(fresh.to_json())  # no history: the swap is in the state
    twin = loaded.redeal_secrets(0, rng)
    assert twin is not None and twin.view(0) != loaded.view(0)
    assert twin.view(1) == loaded.view(1) and twin.invariants() == []
