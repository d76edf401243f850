"""The table's buttons and lights, driven through gpiozero's mock pins."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.table.gpio import GpioPins, TableIO

PINS = GpioPins(seat_buttons=(5, 6), seat_leds=(17, 27), buzzer=12, shutdown_button=3,
                shutdown_hold_s=0.1)  # fmt: skip


def _wait(check: object, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_a_seat_button_says_done_for_its_seat() -> None:
    factory = MockFactory()
    io = TableIO(PINS, factory)
    pressed: list[int] = []
    io.on_done = pressed.append
    try:
        factory.pin(6).drive_low()  # a button pulls its pin low
        assert _wait(lambda: pressed == [1])
        factory.pin(6).drive_high()
    finally:
        io.close()


def test_turn_leds_and_the_buzzer() -> None:
    factory = MockFactory()
    io = TableIO(PINS, factory)
    try:
        io.show_turn(1)
        assert (factory.pin(17).state, factory.pin(27).state) == (False, True)
        io.show_turn(None)
        assert not factory.pin(27).state
        io.alert(0.05)
        assert factory.pin(12).state
        assert _wait(lambda: not factory.pin(12).state)
        assert io.health()["pins"] == "mock"
    finally:
        io.close()


def test_holding_the_shutdown_button_asks_to_shut_down() -> None:
    factory = MockFactory()
    io = TableIO(PINS, factory)
    asked: list[bool] = []
    io.on_shutdown = lambda: asked.append(True)
    try:
        factory.pin(3).drive_low()
        assert _wait(lambda: asked == [True])
    finally:
        io.close()


@pytest.mark.parametrize(
    ("pins", "says"),
    [(GpioPins(seat_buttons=(5, 5)), "GPIO pin 5 is used twice"),
     (GpioPins(buzzer=40), "GPIO pin 40 is not one of the Pi's 0..27")],
)  # fmt: skip
def test_bad_pins_are_one_clear_line(pins: GpioPins, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        TableIO(pins, MockFactory())
