"""The hardware layer: the few pin operations the firmware logic needs, Pico and simulated."""


class Hardware:
    """What the firmware logic asks of the board; the Pico and the simulation implement it."""

    def select_row(self, row: int) -> None:
        """Put the row multiplexer's address lines on this row."""
        raise NotImplementedError

    def select_column(self, col: int) -> None:
        """Put the column multiplexers' address lines on this column."""
        raise NotImplementedError

    def magnet_present(self) -> bool:
        """Read the selected square's hall sensor."""
        raise NotImplementedError

    def show_leds(self, colors: bytearray) -> None:
        """Send three bytes (r, g, b) per square, row by row, to the LED strip."""
        raise NotImplementedError

    def feed_watchdog(self) -> None:
        """Tell the watchdog the main loop is alive."""
        raise NotImplementedError


class SimulatedHardware(Hardware):
    """Magnets placed by hand on a set of squares; LEDs kept in memory; no watchdog."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.magnets: set[tuple[int, int]] = set()
        self.leds = bytearray(3 * rows * cols)
        self._row = 0
        self._col = 0

    def select_row(self, row: int) -> None:
        self._row = row

    def select_column(self, col: int) -> None:
        self._col = col

    def magnet_present(self) -> bool:
        return (self._row, self._col) in self.magnets

    def show_leds(self, colors: bytearray) -> None:
        self.leds[:] = colors

    def feed_watchdog(self) -> None:
        pass
