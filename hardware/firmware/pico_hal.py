"""The Hardware layer on a Raspberry Pi Pico under MicroPython: multiplexers, WS2812, watchdog."""

import time

import machine  # type: ignore[import-not-found]
import neopixel  # type: ignore[import-not-found]

from hardware.firmware import config
from hardware.firmware.hal import Hardware


class PicoHardware(Hardware):
    """Drives the address lines, reads the sensor line, writes the LED strip, feeds the WDT."""

    def __init__(self, rows: int, cols: int) -> None:
        self._columns = [machine.Pin(n, machine.Pin.OUT) for n in config.COLUMN_ADDRESS_PINS]
        self._rows = [machine.Pin(n, machine.Pin.OUT) for n in config.ROW_ADDRESS_PINS]
        self._sensor = machine.Pin(config.SENSOR_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        self._strip = neopixel.NeoPixel(machine.Pin(config.LED_DATA_PIN), rows * cols)
        self._count = rows * cols
        self._watchdog = machine.WDT(timeout=config.WATCHDOG_MS)

    def select_row(self, row: int) -> None:
        for bit, pin in enumerate(self._rows):
            pin.value((row >> bit) & 1)

    def select_column(self, col: int) -> None:
        for bit, pin in enumerate(self._columns):
            pin.value((col >> bit) & 1)
        time.sleep_us(config.SETTLE_US)  # type: ignore[attr-defined]

    def magnet_present(self) -> bool:
        # Open-drain hall sensors pull the line low when they see a magnet.
        return bool(self._sensor.value() == 0)

    def show_leds(self, colors: bytearray) -> None:
        for index in range(self._count):
            base = 3 * index
            self._strip[index] = (colors[base], colors[base + 1], colors[base + 2])
        self._strip.write()

    def feed_watchdog(self) -> None:
        self._watchdog.feed()


def board_id() -> bytes:
    """The Pico's flash unique id: 8 bytes."""
    return bytes(machine.unique_id())[:8]
