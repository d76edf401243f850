"""The railway area: slot names, neighbours, and which track sides a station's network reaches."""

# Lanes are numbered from 1 at the south edge of the mat; columns A-D run from the starting
# column (west) to the destination column (east), so `A1` is the first slot of lane 1. A slot's
# index is `4 * (lane - 1) + column`.

from __future__ import annotations

import functools
from collections.abc import Sequence

from rules.derailed.cards import Compass

LENGTH = 4  # the railway area is as long as 4 rail cards
COLUMNS = "ABCD"
OUTSIDE = -1  # beyond the outermost lanes: no track goes on
DESTINATION = -2  # the destination station at the east end of the slot's lane
START = -3  # a starting station at the west end: the end of a line, not a way through
BITS = tuple(tuple(x for x in range(4) if mask >> x & 1) for mask in range(16))


def slot_name(slot: int) -> str:
    return f"{COLUMNS[slot % LENGTH]}{slot // LENGTH + 1}"


def slot_index(name: str, lanes: int) -> int | None:
    """The index of a slot name such as `B3`, or None if no such slot is in the railway area."""
    return _slot_indexes(lanes).get(name)


@functools.cache
def slot_names(lanes: int) -> tuple[str, ...]:
    return tuple(slot_name(s) for s in range(lanes * LENGTH))


@functools.cache
def _slot_indexes(lanes: int) -> dict[str, int]:
    return {name: s for s, name in enumerate(slot_names(lanes))}


@functools.cache
def neighbours(lanes: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per slot, per mat side (N, E, S, W): the slot across it, or OUTSIDE, DESTINATION, START."""
    out = []
    for s in range(lanes * LENGTH):
        lane, col = divmod(s, LENGTH)
        north = s + LENGTH if lane + 1 < lanes else OUTSIDE
        south = s - LENGTH if lane > 0 else OUTSIDE
        east = s + 1 if col + 1 < LENGTH else DESTINATION
        west = s - 1 if col > 0 else START
        out.append((north, east, south, west))
    return tuple(out)


@functools.cache
def steps(lanes: int) -> tuple[int, ...]:
    """Per `4 * slot + side`: where a track leaving the slot by that side goes, as `4 * slot +
    side entered by` of the slot across, or OUTSIDE, DESTINATION, START."""
    out = []
    for across in neighbours(lanes):
        for x, n in enumerate(across):
            out.append(4 * n + ((x + 2) & 3) if n >= 0 else n)
    return tuple(out)


def reach(
    exits: Sequence[tuple[int, int, int, int]],
    tops: Sequence[int],
    lanes: int,
    start_lane: int,
    skip: int = -1,
) -> tuple[list[int], int]:
    """Follow the tracks from the starting station of lane `start_lane` (0 is lane 1).

    Returns, per slot, the bit mask of its sides that a track of the network reaches (the station's
    own track reaches the west side of the lane's first slot), and the bit mask of lanes whose
    destination station the network reaches. `tops` holds the tile on top of each slot (-1: empty);
    the slot `skip` is taken as empty (the card a new one would cover).
    """
    reached = [0] * len(tops)
    arrive, _ = spread(
        exits, tops, steps(lanes), reached, [4 * LENGTH * start_lane + int(Compass.W)], skip
    )
    return reached, arrive


def spread(
    exits: Sequence[tuple[int, int, int, int]],
    tops: Sequence[int],
    step: Sequence[int],
    reached: list[int],
    todo: list[int],
    skip: int = -1,
) -> tuple[int, list[int]]:
    """Follow the tracks on from the sides in `todo` (each `4 * slot + side entered by`), adding
    to `reached` (per slot, the bit mask of its sides reached) in place; the slot `skip` is taken
    as empty. Returns the bit mask of lanes whose destination station the tracks reach, and the
    slots reached for the first time (a network grown by one card is followed from that card
    alone: `rules.derailed.heuristic.play_values`)."""
    arrive = 0
    new: list[int] = []
    while todo:
        code = todo.pop()
        s = code >> 2
        bit = 1 << (code & 3)
        have = reached[s]
        if have & bit:
            continue
        reached[s] = have | bit
        if not have:
            new.append(s)
        tile = tops[s]
        if tile < 0 or s == skip:
            continue
        for x in BITS[exits[tile][code & 3]]:
            n = step[4 * s + x]
            if n >= 0:
                todo.append(n)
            elif n == DESTINATION:
                arrive |= 1 << (s // LENGTH)
    return arrive, new


def through(
    exits: Sequence[tuple[int, int, int, int]],
    link: Sequence[int],
    tops: Sequence[int],
    lanes: int,
    slot: int,
) -> tuple[list[int], list[int]]:
    """Follow the tracks outwards from each joined side of the card on top of `slot`.

    Returns, per lane, the bit mask of the card's sides from which a track leads to that lane's
    starting station, and the same for its destination station. Tracks run both ways, so a route
    from a starting station into the card at side `a` and out at side `b` to a destination exists
    when the starting station is reached from `a` and the destination from `b`, for a pair of
    sides the card joins. One search carries the sides it came from as labels.
    """
    step = steps(lanes)
    seen = [0] * (4 * len(tops))
    starts = [0] * lanes
    dests = [0] * lanes
    todo: list[tuple[int, int]] = []  # (4 * slot + side entered by, labels)
    lane = slot // LENGTH
    for x in BITS[link[tops[slot]]]:
        n = step[4 * slot + x]
        if n >= 0:
            todo.append((n, 1 << x))
        elif n == DESTINATION:
            dests[lane] |= 1 << x
        elif n == START:
            starts[lane] |= 1 << x
    while todo:
        code, labels = todo.pop()
        have = seen[code]
        labels &= ~have
        if not labels:
            continue
        seen[code] = have | labels
        s = code >> 2
        tile = tops[s]
        if tile < 0:
            continue
        for x in BITS[exits[tile][code & 3]]:
            n = step[4 * s + x]
            if n >= 0:
                todo.append((n, labels))
            elif n == DESTINATION:
                dests[s // LENGTH] |= labels
            elif n == START:
                starts[s // LENGTH] |= labels
    return starts, dests
