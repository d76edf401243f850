"""The simulated table: a virtual sensor board, a synthetic camera, and bot players moving pieces.

With no hardware configured the service runs on this. The bots play physically: they lay the
pieces a legal action calls for on the simulated table (magnets for the virtual board, markers for
the camera's renderer), say on a phone what no sensor sees, now and then make a mistake the referee
must catch (a piece on a square no legal move reaches), and put it right after the alert.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from controller.game.access import Asker, Refused
from controller.game.live import TableSession
from controller.referee.judge import Alternative, VerdictKind
from controller.referee.tables import Pieces
from rules.core import CHANCE, Action, GameInfo, State, Visibility
from rules.physical import Catalogue, Layout, PlacedPiece
from rules.playout import Policy, choose
from vision.render import PlacedMarker

# How the renderer draws each kind of piece: its body around the marker (mm) and colour (BGR).
_LOOKS: dict[str, tuple[float, tuple[int, int, int]]] = {
    "tile": (46.0, (170, 140, 110)),
    "minecart": (26.0, (60, 60, 70)),
    "wagon": (26.0, (60, 60, 70)),
    "rock": (26.0, (90, 90, 90)),
    "chasm_token": (30.0, (40, 40, 40)),
}
_CARD = (60.0, (245, 245, 245))


class BotStep(StrEnum):
    """What a bot did on its go."""

    PLAYED = "played"  # moved pieces on the table
    SAID = "said"  # told a phone what no sensor sees
    MISTAKE = "mistake"  # laid a piece wrong, on purpose
    CORRECTED = "corrected"  # put its mistake right after the alert
    FOLLOWED = "followed"  # carried out the referee's instructions
    ANSWERED = "answered"  # answered the referee's question
    WAITED = "waited"


@dataclass
class BotStats:
    """What the bots did, for tests and the status page."""

    played: int = 0
    said: int = 0
    mistakes: int = 0
    mistakes_alerted: int = 0
    mistakes_applied: int = 0  # a mistake the referee took for a legal move: must stay 0
    corrected: int = 0


class PhysicalTable:
    """What lies on the simulated table, per location; thread-safe; feeds the renderer and the
    virtual sensor board (through `on_magnets`)."""

    def __init__(self, layout: Layout, catalogue: Catalogue) -> None:
        self.layout = layout
        self.by_piece = catalogue.by_piece()
        self.magnetic = frozenset(e.piece for e in catalogue.entries if e.magnetic)
        self.sensors = {loc.name: loc.sensor for loc in layout.locations if loc.sensor}
        self._pieces: dict[str, Pieces] = {}
        self._lock = threading.Lock()
        self.version = 0
        self.on_magnets: Callable[[frozenset[tuple[int, int]]], None] | None = None

    def pieces(self) -> dict[str, Pieces]:
        with self._lock:
            return dict(self._pieces)

    def lay(self, table: dict[str, Pieces]) -> None:
        """Make the table hold exactly `table`."""
        laid = {n: tuple(p) for n, p in table.items() if p}
        with self._lock:
            if laid == self._pieces:
                return  # nothing moved: no hand crosses the camera's view
            self._pieces = laid
            self.version += 1
        if self.on_magnets is not None:
            self.on_magnets(self.magnets())

    def magnets(self) -> frozenset[tuple[int, int]]:
        with self._lock:
            return frozenset(
                self.sensors[name]
                for name, pieces in self._pieces.items()
                if name in self.sensors and any(p.piece in self.magnetic for p in pieces)
            )

    def content(self) -> dict[str, tuple[PlacedMarker, ...]]:
        """The table for the camera's renderer: one marker per piece, turned as it lies."""
        out: dict[str, tuple[PlacedMarker, ...]] = {}
        for name, pieces in self.pieces().items():
            loose = [p for p in pieces if p.piece in self.magnetic]
            spread = self._spread(name, len(loose))
            markers = []
            for placed in pieces:
                entry = self.by_piece.get(placed.piece)
                if entry is None:
                    continue
                body, colour = _LOOKS.get(placed.piece.kind, _CARD)
                dx, dy = spread.pop(0) if placed in loose and spread else (0.0, 0.0)
                markers.append(
                    PlacedMarker(
                        entry.marker_id, placed.rotation % 4, entry.size_mm, body, colour, dx, dy
                    )
                )
            out[name] = tuple(markers)
        return out

    def _spread(self, name: str, count: int) -> list[tuple[float, float]]:
        """Where several loose pieces stand side by side in one area (a starting area's wagons),
        so each one's marker can be read; one piece stands in the middle."""
        if count < 2:
            return []
        where = self.layout.location(name)
        step = min(max(where.w_mm, where.h_mm) / count, 60.0)
        offsets = [(i - (count - 1) / 2) * step for i in range(count)]
        if where.w_mm >= where.h_mm:
            return [(x, 0.0) for x in offsets]
        return [(0.0, y) for y in offsets]


class Bots:
    """Bot players at the simulated table: each go, the seat to act plays one step physically."""

    def __init__(
        self,
        session: TableSession,
        table: PhysicalTable,
        seed: int = 0,
        mistake_rate: float = 0.06,
    ) -> None:
        self.session = session
        self.table = table
        self.rng = random.Random(seed)
        self.mistake_rate = mistake_rate
        self.stats = BotStats()
        self._mistake: str | None = None  # the location of the bot's last mistake
        self._played: list[Action] = []  # what the bots really did since the referee last asked

    def go(self) -> BotStep:
        """One step by whoever is to act, answering the referee first."""
        session, state, info = self.session, self.session.state, self.session.info
        if state is None or info is None or state.is_over or session.referee is None:
            return BotStep.WAITED
        verdict = session.verdict
        expected = session.referee.table_of(state)
        if self._mistake is not None and verdict is not None and verdict.actions:
            self.stats.mistakes_applied += 1
        if verdict is not None and verdict.kind is VerdictKind.ALERT:
            if self._mistake is not None:
                self.stats.mistakes_alerted += 1
            self._mistake = None
            self.table.lay(expected)  # put it right: the table as the rules have it
            self.stats.corrected += 1
            return BotStep.CORRECTED
        if verdict is not None and verdict.kind in (VerdictKind.CHOICE, VerdictKind.NEEDS_INPUT):
            seat = verdict.seat if verdict.seat is not None else 0
            session.answer(Asker.at(seat), self._truth(verdict.options))
            return BotStep.ANSWERED
        if verdict is not None and verdict.kind is VerdictKind.TAKE_BACK:
            session.accept_table(Asker.host())
            self.table.lay(expected)
            return BotStep.FOLLOWED
        if self.table.pieces() != expected and verdict is not None:
            self.table.lay(expected)  # carry out the instructions
            return BotStep.FOLLOWED
        turn = state.current_player
        if turn is None or turn == CHANCE:
            return BotStep.WAITED
        seat = turn
        action = state.parse_action(choose(state, self.rng, Policy.BOT))
        if action.VISIBILITY is not Visibility.TABLE or not self._shows(state, info, action):
            try:
                session.act(Asker.at(seat), action.to_json())
            except Refused:
                return BotStep.WAITED
            self.stats.said += 1
            return BotStep.SAID
        if self.rng.random() < self.mistake_rate and self._make_mistake(expected):
            return BotStep.MISTAKE
        state.apply(action)
        try:
            after = session.referee.table_of(state)
        finally:
            state.undo()
        self._played = [*self._played[-5:], action]
        self.table.lay(after)
        self.stats.played += 1
        return BotStep.PLAYED

    def _truth(self, options: tuple[Alternative, ...]) -> int:
        """The option that holds what the bot really did (players answer truthfully)."""
        for index, option in enumerate(options):
            if any(a in self._played for a in option.actions if not a.CHANCE_OUTCOME):
                return index
        return 0

    def _shows(self, state: State, info: GameInfo, action: object) -> bool:
        """Whether the action changes the table (else it comes from a phone)."""
        assert self.session.referee is not None
        before = self.session.referee.table_of(state)
        state.apply(action)  # type: ignore[arg-type]
        try:
            return self.session.referee.table_of(state) != before
        finally:
            state.undo()

    def _make_mistake(self, expected: dict[str, Pieces]) -> bool:
        """Lay a copy of a one-of-a-kind piece on an empty location: no legal move does that."""
        unique = [
            p for ps in expected.values() for p in ps if self.table.by_piece[p.piece].copies == 1
        ]
        empty = sorted(
            loc.name
            for loc in self.table.layout.locations
            if not expected.get(loc.name) and loc.sensor is not None
        )
        if not unique or not empty:
            return False
        piece = self.rng.choice(sorted(unique))
        where = self.rng.choice(empty)
        wrong = dict(expected)
        wrong[where] = (PlacedPiece(piece.piece, piece.rotation),)
        self.table.lay(wrong)
        self._mistake = where
        self.stats.mistakes += 1
        return True
