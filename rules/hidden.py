"""Dealing unseen cards afresh, consistent with what a seat knows: for `State.determinise`.

A seat that cannot see the other hands knows how many cards each holds and which cards it has
not seen (the pool); it may also know that a hand holds none of some kind (a seat that did not
follow a company holds none of it). `deal` shares the pool out at random so that every hand gets
its size and nothing it cannot hold; with the same pool, sizes and random generator it deals the
same way, whatever the real hands were.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

Card = TypeVar("Card", bound=Hashable)


def deal(
    pool: Sequence[Card],
    sizes: Sequence[int],
    rng: random.Random,
    may_hold: Callable[[int, Card], bool] | None = None,
) -> list[list[Card]]:
    """The pool shared into hands of `sizes` (hand i gets sizes[i] cards), at random.

    `pool` must hold exactly sum(sizes) cards, in an order that depends only on what the seat
    knows (sorted, say). `may_hold(hand, card)` says whether a hand may get a card (default: any).
    Raises ValueError if no such deal exists (the real one always does).
    """
    if len(pool) != sum(sizes):
        raise ValueError(f"{len(pool)} unseen cards for hands of {list(sizes)}")
    cards = list(pool)
    rng.shuffle(cards)
    if may_hold is None:
        hands: list[list[Card]] = []
        at = 0
        for size in sizes:
            hands.append(cards[at : at + size])
            at += size
        return hands
    slots = [hand for hand, size in enumerate(sizes) for _ in range(size)]
    rng.shuffle(slots)
    holder = _match(cards, slots, may_hold)
    hands = [[] for _ in sizes]
    for card, slot in zip(cards, holder, strict=True):
        hands[slots[slot]].append(card)
    return hands


def _match(cards: list[Card], slots: list[int], may_hold: Callable[[int, Card], bool]) -> list[int]:
    """A slot for every card (a perfect matching, by augmenting paths): slot indexes by card."""
    fits = [[j for j, hand in enumerate(slots) if may_hold(hand, card)] for card in cards]
    card_in: list[int | None] = [None] * len(slots)

    def place(i: int, seen: set[int]) -> bool:
        for j in fits[i]:
            if j in seen:
                continue
            seen.add(j)
            other = card_in[j]
            if other is None or place(other, seen):
                card_in[j] = i
                return True
        return False

    for i in range(len(cards)):
        if not place(i, set()):
            raise ValueError("no way to deal the unseen cards that fits what is known")
    holder = [0] * len(cards)
    for j, placed in enumerate(card_in):
        assert placed is not None  # as many slots as cards, every card placed
        holder[placed] = j
    return holder
