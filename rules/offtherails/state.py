"""Off the Rails behind the shared `State` interface: a thin front over the rule modules.

The rules live in plain functions over a `Tabletop`: `legality` (what may be done, and why not),
`play` (carrying an action out) with `turns`, `movement` and `deposits`, `chance`, `scoring` and
`codec` (JSON and views). This class holds the tabletop, answers the interface, and offers a small
read-only query API (`phase`, `carts`, `tile`, ...) for the bot and the physical table.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import Any, Self

from rules.core import CHANCE, Action, JsonDict, State, Why
from rules.offtherails import actions, chance, codec, legality, movement, play, scoring
from rules.offtherails.components import (
    Board,
    Colour,
    Components,
    Direction,
    Gems,
    gems_list,
    gems_sub,
)
from rules.offtherails.settings import GAME, OPTIONS, Settings
from rules.offtherails.tabletop import (
    Cart,
    CartStatus,
    Move,
    Phase,
    Tabletop,
    Tile,
    current_player,
    exits_ahead,
    invariants,
    track_mask,
    ways_on,
)
from rules.offtherails.turns import new_tabletop
from rules.said import Say, same

__all__ = ["GAME", "OPTIONS", "Cart", "CartStatus", "OffTheRails", "Phase", "Tile"]


class OffTheRails(State):
    """An Off the Rails game for 1 (solo) to 4 players."""

    GAME = GAME
    CODEC = actions.CODEC

    def __init__(
        self, options: Mapping[str, Any], seed: int, tabletop: Tabletop | None = None
    ) -> None:
        super().__init__(options, seed)
        self.settings = Settings.from_options(options)
        self._tabletop = tabletop if tabletop is not None else new_tabletop(self.settings)

    # ------------------------------------------------------------------ read-only queries
    @property
    def board(self) -> Board:
        return self.settings.board

    @property
    def components(self) -> Components:
        return self.settings.components

    @property
    def solo(self) -> bool:
        return self.settings.solo

    @property
    def phase(self) -> Phase:
        return self._tabletop.phase

    @property
    def active(self) -> int:
        """The seat whose turn it is."""
        return self._tabletop.active

    @property
    def move(self) -> Move | None:
        """The move phase in progress, if any."""
        return self._tabletop.move

    @property
    def endgame(self) -> bool:
        """The chasm card is out: the last turns, then the chasm swallows the mine."""
        return self._tabletop.chasm_card_drawn_by is not None or self._tabletop.chasm_open

    def carts(self) -> tuple[Cart, ...]:
        """Every minecart of the game, wherever it is."""
        return tuple(self._tabletop.carts.values())

    def cart(self, name: str) -> Cart:
        return self._tabletop.carts[name]

    def tile(self, square: int) -> Tile | None:
        """The track tile on a square (starting tracks are printed, not tiles)."""
        return self._tabletop.tiles[square]

    def chasm(self, square: int) -> Colour | None:
        """The colour of the chasm token on a square, if one has fallen there."""
        return self._tabletop.chasm[square]

    def tiles(self) -> tuple[Tile | None, ...]:
        """The track tile on every square, by square number (None: no tile)."""
        return tuple(self._tabletop.tiles)

    def chasms(self) -> tuple[Colour | None, ...]:
        """The chasm token's colour on every square, by square number (None: none)."""
        return tuple(self._tabletop.chasm)

    def jewels(self, square: int) -> Gems:
        """The deposit lying on a square."""
        return self._tabletop.jewels[square]

    def track_exits(self, square: int) -> int:
        """The exits (a bit mask) of the track on a square: tile or printed starting track."""
        return track_mask(self._tabletop, square)

    def exits_ahead(self, cart: Cart) -> tuple[Direction, ...]:
        """The exits of the cart's track other than the one it came in by."""
        return exits_ahead(self._tabletop, cart)

    def ways_on(self, cart: Cart) -> tuple[Direction, ...]:
        """The exits the cart may take (never onto a chasm while another is open)."""
        return ways_on(self._tabletop, cart)

    def winners(self) -> list[int]:
        """Seats with the most points, then most gems, then fewest rocks; more means shared."""
        return scoring.winners(self._tabletop)

    def solo_result(self) -> scoring.SoloResult:
        return scoring.solo_result(self._tabletop)

    # ------------------------------------------------------------------ the State interface
    @property
    def current_player(self) -> int | None:
        return current_player(self._tabletop)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.current_player != CHANCE:
            return []
        return chance.chance_outcomes(self._tabletop)

    def observed_chance(self) -> bool:
        """With the physical deposit deck, every draw happens on the table (cards, gem and
        token bags, the chasm die): the service waits to see it or to be told it."""
        return self._tabletop.settings.physical_deck and self.current_player == CHANCE

    @property
    def revealed(self) -> str:
        """The deposit card turned up last (\"red-3\", \"chasm\"; \"\" before any)."""
        return self._tabletop.revealed

    def legal_actions(self) -> list[Action]:
        player = self.current_player
        if player is None:
            return []
        if player == CHANCE:
            return [outcome for outcome, p in self.chance_outcomes() if p > 0]
        return legality.legal_actions(self._tabletop)

    def legal_actions_naming(
        self, changed: AbstractSet[str], known: AbstractSet[str]
    ) -> list[Action]:
        player = self.current_player
        if player is None or player == CHANCE:
            return super().legal_actions_naming(changed, known)
        return legality.actions_naming(self._tabletop, changed, known)

    def action_groups(self) -> legality.ActionGroups:
        """In the action phase, the legal actions by kind (see `legality.ActionGroups`)."""
        assert self._tabletop.phase is Phase.ACTIONS
        return legality.action_groups(self._tabletop)

    def placings_at(self, square: int) -> tuple[actions.PlaceTile, ...]:
        """The legal tile placements on `square` (see `legality.placings_at`)."""
        return legality.placings_at(self._tabletop, square)

    def normalise(self, action: Action) -> Action:
        return legality.normalise(action)

    def why_not(self, action: Action) -> Why | None:
        if action.CHANCE_OUTCOME:
            if any(outcome == action for outcome, p in self.chance_outcomes() if p > 0):
                return None
            possible = [outcome.describe() for outcome, p in self.chance_outcomes() if p > 0]
            shown = ", ".join(possible[:6])
            if len(possible) > 6:
                shown += f" and {len(possible) - 6} more"
            return Why("chance cannot give that now", f"possible: {shown}")
        return legality.why_not(self._tabletop, action)

    def _apply(self, action: Action) -> None:
        play.carry_out(self._tabletop, action)

    def scores(self) -> list[float]:
        return scoring.scores(self._tabletop)

    def score_parts(self, say: Say = same) -> list[list[tuple[str, float]]]:
        return scoring.score_parts(self._tabletop, say)

    def provisional_parts(self) -> list[set[str]]:
        return scoring.provisional_parts(self._tabletop)

    def invariants(self) -> list[str]:
        """Conservation laws: gems, tiles, chasm tokens; carts on legal squares, holds of 5."""
        return invariants(self._tabletop)

    def _view_json(self, seat: int | None) -> JsonDict:
        """Everything is open but a hit cart's hidden split, seen only by its owner."""
        return codec.view_json(self._tabletop, seat)

    def action_view(self, action: Action, actor: int, seat: int | None) -> JsonDict:
        """A split is seen only by the player who made it; the others see its size."""
        if isinstance(action, actions.Split) and seat != actor:
            return {"type": actions.Split.TYPE, "hidden": True, "size": len(action.pile)}
        return action.to_json()

    def redeal_secrets(self, seat: int, rng: random.Random) -> Self | None:
        """Another split of the hit cart's jewels by `seat`, while the mover picks a pile."""
        tabletop = self._tabletop
        move = tabletop.move
        if move is None or move.pile is None or tabletop.carts[move.hit].owner != seat:
            return None
        hold = tabletop.carts[move.hit].hold
        others = [
            pile
            for pile in movement.splits(hold)
            if pile != move.pile and pile != gems_sub(hold, pile)  # still two different piles
        ]
        if not others:
            return None
        pile = rng.choice(others)
        twin = copy.copy(self)
        twin._tabletop = tabletop.copy()
        twin._tabletop.move = replace(move, pile=pile)
        made = [i for i, (action, _) in enumerate(self._undo) if isinstance(action, actions.Split)]
        twin._undo = list(self._undo)
        if made:  # a state read from JSON has no history
            twin._undo[made[-1]] = (actions.Split(tuple(gems_list(pile))), self._undo[made[-1]][1])
        twin._actors = list(self._actors)
        return twin

    def determinise(self, seat: int, rng: random.Random) -> Self:
        """A hit cart's split that `seat` may not see is drawn afresh among every split of its
        hold (all open but that: the deposit deck keeps no hidden order)."""
        twin = self.fork()
        move = twin._tabletop.move
        if move is None or move.pile is None or twin._tabletop.carts[move.hit].owner == seat:
            return twin
        piles = movement.splits(twin._tabletop.carts[move.hit].hold)
        twin._tabletop.move = replace(move, pile=rng.choice(piles))
        return twin

    # ------------------------------------------------------------------ snapshots and JSON
    def _snapshot(self) -> object:
        return self._tabletop.copy()

    def _restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, Tabletop)
        self._tabletop = snapshot  # each snapshot is restored at most once (undo pops it)

    def _state_json(self) -> JsonDict:
        return codec.state_json(self._tabletop)

    @classmethod
    def _from_state_json(cls, options: dict[str, Any], seed: int, data: JsonDict) -> Self:
        state = cls(options, seed)
        state._tabletop = codec.tabletop_from_json(state.settings, data)
        return state
