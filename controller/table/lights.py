"""What the table lights and sounds: the sensor board's LEDs under the squares a verdict names
(red in error, amber with something left to do) and where a lifted piece may go (green), the
seats' turn LEDs and the buzzer on an alert."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from controller.game.live import LiveGame
from controller.referee.observe import Observation
from controller.referee.verdict import Verdict, VerdictKind
from controller.table.gpio import TableIO
from firmware_bridge.messages import Color, Square

log = logging.getLogger("railtable")

ALERT_COLOUR = Color(255, 0, 0)
TODO_COLOUR = Color(255, 160, 0)
GO_COLOUR = Color(0, 200, 60)
OFF = Color(0, 0, 0)


class BoardLeds(Protocol):
    """The sensor board's LEDs (its link): ValueError names a square off the board."""

    def set_leds(self, colors: Mapping[Square, Color]) -> Any: ...


class Lights:
    """The table's LEDs and buzzer, lit from the live game's verdicts and lifted pieces."""

    def __init__(self, game: LiveGame, io: TableIO) -> None:
        self.game = game
        self.io = io
        self._leds: dict[Square, Color] = {}  # the verdict's squares lit now
        self._lifted: tuple[str, ...] = ()
        self._go_leds: set[Square] = set()

    def board_changed(self) -> None:
        """Another sensor board (the inputs were wired anew): none of its LEDs is lit by us."""
        self._leds = {}

    def show(self, verdict: Verdict | None, board: BoardLeds | None) -> None:
        """LEDs under the squares in error (red) and with something left to do (amber); the
        seat to act lit; a buzz on an alert."""
        opened = self.game.open
        self.io.show_turn(opened.state.current_player if opened is not None else None)
        if verdict is not None and verdict.kind is VerdictKind.ALERT:
            self.io.alert()
        if board is None or verdict is None:
            return
        sensors = self._sensors()
        if sensors is None:
            return
        colour = ALERT_COLOUR if verdict.kind is VerdictKind.ALERT else TODO_COLOUR
        wanted = _lit(verdict.locations, sensors, colour)
        off = {square: OFF for square in self._leds if square not in wanted}
        if (wanted or off) and _sent(board, {**off, **wanted}):
            self._leds = wanted

    def show_destinations(self, observed: Observation, board: BoardLeds | None) -> None:
        """While a magnetic piece is lifted off its square, light where the rules let it go."""
        opened = self.game.open
        if board is None or opened is None:
            return
        referee, state = opened.referee, opened.state
        lifted = sorted(
            name
            for name, pieces in opened.table.items()
            if any(referee.is_magnetic(p.piece) for p in pieces)
            and observed.view(name).seen.value in ("magnet", "exact", "on_top")
            and not referee.fits(observed.view(name), pieces)
        )
        key = tuple(lifted)
        if key == self._lifted:
            return
        self._lifted = key
        sensors = self._sensors()
        assert sensors is not None
        go: set[str] = set()
        for name in lifted[:2]:
            go |= referee.destinations(state, name)
        wanted = _lit(go, sensors, GO_COLOUR)
        merged = {**self._leds, **wanted} if wanted else dict(self._leds)
        off = {square: OFF for square in self._go_leds if square not in merged}
        self._go_leds = set(wanted)
        if merged or off:
            _sent(board, {**off, **merged})

    def _sensors(self) -> dict[str, tuple[int, int] | None] | None:
        """Each location's sensor square on the open game's mat (None: no mat)."""
        opened = self.game.open
        if opened is None:
            return None
        return {loc.name: loc.sensor for loc in opened.info.layout(opened.state.options).locations}


def _lit(
    names: Iterable[str], sensors: dict[str, tuple[int, int] | None], colour: Color
) -> dict[Square, Color]:
    """The squares under the named locations that have a sensor, in `colour`."""
    wanted: dict[Square, Color] = {}
    for name in names:
        sensor = sensors.get(name)
        if sensor is not None:
            wanted[Square(*sensor)] = colour
    return wanted


def _sent(board: BoardLeds, colours: Mapping[Square, Color]) -> bool:
    """Ask the board for these colours; False (logged) when it refuses them."""
    try:
        board.set_leds(colours)
    except ValueError as error:
        log.warning("LEDs: %s", error)
        return False
    return True
