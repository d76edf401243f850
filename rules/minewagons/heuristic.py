"""What the mine-wagon race tells the computer player's search (see rules.ai.hooks).

In the race, playouts (and a new node's first try) follow a cheap racer: a wagon across
whenever one can go, else mostly (`GREEDY`) the wagon move or entry that brings a wagon furthest
towards its far end, judged from the action alone (no action tried and taken back, as the simple
bot does: that made an iteration 50 times slower); the rest of the time any legal action, so
rotations and the Rock are tried too. A playout is cut short after a few actions and judged by
how far each seat's wagons stand (`bot.standing`: wagons across, how far the others have come,
the road open before them). The setup's playouts are played at random, as the simple bot
does, and judged by each colour's roads across the board (`roads`: the cheapest way from each
square of its first line to its far end, counting the tiles to turn and the rivals' tiles that
stand in the way), since no wagon stands on the board yet.
"""

from __future__ import annotations

import functools
import heapq
import random
from collections.abc import Sequence

from rules.ai.hooks import Heuristic, ahead
from rules.core import Action, State
from rules.minewagons.actions import GOAL, EndTurn, EnterWagon, MoveWagon
from rules.minewagons.bot import progress
from rules.minewagons.bot import standing as wagons_standing
from rules.minewagons.components import Board, Colour, Shape, Tile, shape_exits
from rules.minewagons.position import Phase
from rules.minewagons.state import MineWagons

SCALE = 4.0
"""A lead worth about three chances in four of winning (see `rules.ai.hooks.ahead`)."""

GREEDY = 0.7
"""How often the racer takes its furthest move rather than any legal action."""

ENTRY_GAIN = 1
"""What bringing a wagon onto the board counts for, in lines of progress."""

ORDER = 16
"""Visits after which a node of the tree grows its children in `ranked` order (the root at
once): ranking a race position tries every action, about as long as 50 playouts."""


ROTATE = 1.0
"""What a road's square costs when its tile must be turned first (a green tile or one's own)."""

UNKNOWN = 0.5
"""What a road's square costs with no tile yet, or a green tile still face down."""

SQUARE = 0.05
"""What each square of a road costs (a shorter road is a little better)."""

NO_ROAD = 8.0
"""The cost of a colour with no road at all to its far end (every tile in the way its rivals')."""

SETUP_SCALE = 1.0
"""In the setup, a road shorter by this much is worth about three chances in four."""


def evaluate(state: State) -> list[float]:
    """Each seat's reward in [0, 1]: in the race, from how far its wagons stand; in the setup
    (no wagon on the board yet), from how cheap its roads across the board are (`roads`)."""
    assert isinstance(state, MineWagons)
    board, pos = state.board, state.pos
    players = len(state.setup.seats)
    if pos.phase not in (Phase.PLAY, Phase.OVER):
        wagons = state.setup.wagons
        return ahead(
            [-roads(board, pos.tiles, state.colour(s), wagons) for s in range(players)],
            SETUP_SCALE,
        )
    return ahead(
        [wagons_standing(board, pos, seat, state.colour(seat)) for seat in range(players)],
        SCALE,
    )


@functools.cache
def _turned(shape: Shape, entry: int) -> int:
    """The sides a tile of `shape`, turned as one likes, may lead on to from side `entry`."""
    out = 0
    for mask in shape_exits(shape):
        if mask >> entry & 1:
            out |= mask & ~(1 << entry)
    return out


def _enter(
    board: Board, tiles: Sequence[Tile | None], sq: int, entry: int, colour: Colour
) -> tuple[float, int] | None:
    """What entering `sq` by side `entry` costs `colour`, and the sides it may go on by; None if
    it cannot (no rail there, and a rival's tile that it may not turn)."""
    rails = board.printed.get(sq)
    if rails is not None:
        return (0.0, rails[entry]) if rails[entry] else None
    tile = tiles[sq]
    if tile is None or tile.shape is None:
        return UNKNOWN, 0b1111 & ~(1 << entry)
    if tile.exits >> entry & 1:
        return 0.0, tile.exits & ~(1 << entry)
    if tile.colour is Colour.GREEN or tile.colour is colour:
        return ROTATE, _turned(tile.shape, entry)
    return None


def road(board: Board, tiles: Sequence[Tile | None], colour: Colour, entry: int) -> float:
    """The cheapest road for a wagon of `colour` entering the board on square `entry` to its far
    end, in tiles to turn (`ROTATE`), squares not settled yet (`UNKNOWN`) and squares passed
    (`SQUARE`): rivals' tiles that do not lead on are walls, sides wrap round as in the race
    (`rules.minewagons.rails.reach`). `NO_ROAD` when there is none."""
    home = board.home_edge[colour]
    far = home.opposite
    best: dict[tuple[int, int], float] = {}
    heap: list[tuple[float, int, int, int]] = []
    found = _enter(board, tiles, entry, int(home), colour)
    if found is not None:
        heap.append((found[0] + SQUARE, entry, int(home), found[1]))
    while heap:
        cost, sq, side_in, onward = heapq.heappop(heap)
        if best.get((sq, side_in), NO_ROAD) <= cost:
            continue
        best[sq, side_in] = cost
        for side in range(4):
            if not onward >> side & 1:
                continue
            nxt = board.neighbour[sq][side]
            if nxt < 0:
                if side == far:
                    return cost
                if side == home:
                    continue
                nxt = board.wrap[sq][side]
            back = (side + 2) % 4
            found = _enter(board, tiles, nxt, back, colour)
            if found is not None and cost + found[0] + SQUARE < best.get((nxt, back), NO_ROAD):
                heapq.heappush(heap, (cost + found[0] + SQUARE, nxt, back, found[1]))
    return NO_ROAD


def roads(board: Board, tiles: Sequence[Tile | None], colour: Colour, wagons: int) -> float:
    """How open the board is for `colour`: the mean cost of its `wagons` cheapest roads, one
    from each square of its first line (`road`), so that one open road is not all."""
    costs = sorted(road(board, tiles, colour, sq) for sq in board.first_line(colour))
    return sum(costs[:wagons]) / wagons


def racer(state: State, rng: random.Random) -> Action:
    """A wagon across if one can go; else, `GREEDY` of the time, a move that brings a wagon
    furthest forward (more than half a line: entries and forward moves), else any legal action."""
    assert isinstance(state, MineWagons)
    actions = state.legal_actions()
    pos = state.pos
    if pos.phase is not Phase.PLAY:
        return rng.choice(actions)
    board = state.board
    colour = state.colour(pos.seat)
    best: list[Action] = []
    most = 0.5
    for action in actions:
        if isinstance(action, MoveWagon):
            if action.to == GOAL:
                return action
            gain: float = progress(board, colour, board.square(action.to)) - progress(
                board, colour, board.square(action.start)
            )
        elif isinstance(action, EnterWagon):
            gain = ENTRY_GAIN
        else:
            continue
        if gain > most:
            best, most = [action], gain
        elif gain == most:
            best.append(action)
    if best and rng.random() < GREEDY:
        return rng.choice(best)
    return rng.choice(actions)


def ranked(state: State) -> list[Action]:
    """In the race, every legal action best first by how the player stands after it (the simple
    bot's judge: a wagon across first, ending the turn as good as standing still plus a little);
    nothing in the setup (the search then expands with the racer)."""
    assert isinstance(state, MineWagons)
    pos = state.pos
    if pos.phase is not Phase.PLAY:
        return []
    board, seat = state.board, pos.seat
    colour = state.colour(seat)
    now = wagons_standing(board, pos, seat, colour)
    scored: list[tuple[float, int, Action]] = []
    for i, action in enumerate(state.legal_actions()):
        if isinstance(action, MoveWagon) and action.to == GOAL:
            value = float("inf")
        elif isinstance(action, EndTurn):
            value = now + 0.1
        else:
            after = state.fork()
            after.advance(action)
            assert isinstance(after, MineWagons)
            value = wagons_standing(board, after.pos, seat, colour)
        scored.append((-value, i, action))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [action for _, _, action in scored]


HEURISTIC = Heuristic(
    playout=racer, evaluate=evaluate, cutoff=12, expand=racer, order=ranked, order_visits=ORDER
)
