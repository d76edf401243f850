"""Matrix scanning through the multiplexers and per-square debounce; pure logic over a Hardware."""

from hardware.firmware.hal import Hardware


class Debouncer:
    """Accepts a square's new reading only once it has held for debounce_ms."""

    def __init__(self, squares: int, debounce_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.stable = bytearray(squares)
        # Time the reading first differed from the stable state, or -1 while it agrees.
        self._since = [-1] * squares

    def update(self, raw: bytearray, now_ms: int) -> bool:
        """Take one scan; return True when a square's stable state changed."""
        changed = False
        stable = self.stable
        since = self._since
        for index in range(len(stable)):
            if raw[index] == stable[index]:
                since[index] = -1
            elif since[index] < 0:
                since[index] = now_ms
                if self.debounce_ms <= 0:
                    stable[index] = raw[index]
                    since[index] = -1
                    changed = True
            elif now_ms - since[index] >= self.debounce_ms:
                stable[index] = raw[index]
                since[index] = -1
                changed = True
        return changed


def scan_matrix(hardware: Hardware, rows: int, cols: int, into: bytearray) -> None:
    """Read every square, row-mux by row-mux, into one 0/1 byte per square."""
    index = 0
    for row in range(rows):
        hardware.select_row(row)
        for col in range(cols):
            hardware.select_column(col)
            into[index] = 1 if hardware.magnet_present() else 0
            index += 1
