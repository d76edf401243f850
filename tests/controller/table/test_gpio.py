"""The table's buttons and lights, driven through gpiozero's mock pins."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from gpiozero import LED, Device
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory
from pytest_mock import MockerFixture

from controller.table.gpio import GpioPins, TableIO, make_factory, pi_model
from tests.support.waiting import wait_until

PINS = GpioPins(seat_buttons=(5, 6), seat_leds=(17, 27), buzzer=12, shutdown_button=3,
                shutdown_hold_s=0.1)  # fmt: skip


def test_a_seat_button_says_done_for_its_seat() -> None:
    factory = MockFactory()
    io = TableIO(PINS, factory)
    pressed: list[int] = []
    io.on_done = pressed.append
    try:
        factory.pin(6).drive_low()  # a button pulls its pin low
        wait_until(lambda: pressed == [1])
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
        wait_until(lambda: not factory.pin(12).state)
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
        wait_until(lambda: asked == [True])
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


def test_pins_that_cannot_be_opened_leave_the_table_without_them(
    mocker: MockerFixture, caplog: pytest.LogCaptureFixture
) -> None:
    """A Pi 5 in a venv without lgpio: gpiozero finds no pin factory. One warning line naming
    the fix, a degraded part in the status, and no device: never an exception."""
    make = mocker.Mock(side_effect=BadPinFactory("Unable to load any default pin factory!"))
    with caplog.at_level(logging.WARNING, logger="railtable"):
        io = TableIO(PINS, make=make)
    make.assert_called_once_with("auto")
    health = io.health()
    assert health["state"] == "degraded" and health["pins"] == "none"
    assert "Unable to load any default pin factory" in health["detail"]
    assert "python3-lgpio" in health["detail"] and "GPIOZERO_PIN_FACTORY=lgpio" in health["detail"]
    assert (health["seat_buttons"], health["seat_leds"], health["buzzer"]) == (0, 0, False)
    (line,) = [r.getMessage() for r in caplog.records]
    assert "goes on without its buttons and lights" in line
    io.show_turn(1)  # nothing to light, nothing raised
    io.alert()
    io.close()


def test_a_device_that_fails_to_open_closes_the_ones_opened_before(mocker: MockerFixture) -> None:
    """A Pi 4 on kernel 6.6 with the native factory: LEDs open, a button's edge detection fails
    (EINVAL through /sys/class/gpio). What was opened is let go again."""
    factory = MockFactory()
    real_pin = factory.pin

    def pin(spec: object) -> object:
        if spec == 3:  # the shutdown button, opened last
            raise OSError(22, "Invalid argument")
        return real_pin(spec)

    mocker.patch.object(factory, "pin", side_effect=pin)
    io = TableIO(PINS, factory)
    health = io.health()
    assert health["state"] == "degraded" and "Invalid argument" in health["detail"]
    assert health["pins"] == "mock" and "the mock pins failed" in health["detail"]
    mocker.stopall()
    for number in (5, 6, 17, 27, 12):  # the pins opened first were let go: free to open again
        LED(number, pin_factory=factory).close()


def test_the_status_names_the_pins_in_use() -> None:
    io = TableIO(PINS, MockFactory())
    try:
        health = io.health()
        assert (health["state"], health["pins"], health["seat_buttons"]) == ("mock", "mock", 2)
    finally:
        io.close()
    nothing = TableIO(GpioPins(), make=lambda name: pytest.fail("no pin, no factory"))
    assert nothing.health()["state"] == "none"


def test_the_factory_is_mock_off_a_pi_and_gpiozeros_choice_on_one(mocker: MockerFixture) -> None:
    assert isinstance(make_factory("auto", model=lambda: ""), MockFactory)
    ensure = mocker.patch.object(Device, "ensure_pin_factory", side_effect=BadPinFactory("none"))
    with pytest.raises(BadPinFactory):
        make_factory("auto", model=lambda: "Raspberry Pi 5 Model B Rev 1.0")
    ensure.assert_called_once()
    with pytest.raises(ValueError, match='must be "auto" or "mock"'):
        make_factory("pigpio")


def test_the_pi_model_is_read_from_the_device_tree(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert pi_model(model) == "Raspberry Pi 5 Model B Rev 1.0"
    model.write_text("QEMU Virtual Machine")
    assert pi_model(model) == ""
    assert pi_model(tmp_path / "absent") == ""


def test_a_service_whose_pins_fail_starts_and_says_so(
    tmp_path: Path, mocker: MockerFixture
) -> None:
    from controller.table.service import ServiceSettings, TableService

    mocker.patch(
        "controller.table.gpio.make_factory",
        side_effect=BadPinFactory("Unable to load any default pin factory!"),
    )
    settings = ServiceSettings(data_dir=tmp_path, pin="1234", players=2, seed=2, bots=False,
                               camera="none", board="none", gpio=PINS)  # fmt: skip
    service = TableService(settings)
    service.start(thread=False)
    try:
        gpio = service.status()["gpio"]
        assert gpio["state"] == "degraded" and "python3-lgpio" in gpio["detail"]
        assert service.game.open is not None  # the game goes on
    finally:
        service.stop()


def test_the_shutdown_button_pressed_briefly_clears_the_lock_out_and_held_shuts_down() -> None:
    """Released within 0.3-2 s (before its hold time): the wrong-PIN lock-out is cleared and
    nothing stops; a brush shorter than that does nothing; held, it shuts down and clears not."""
    factory = MockFactory()
    io = TableIO(GpioPins(shutdown_button=3, shutdown_hold_s=1.5), factory)
    cleared: list[bool] = []
    stopped: list[bool] = []
    io.on_clear_lockout = lambda: cleared.append(True)
    io.on_shutdown = lambda: stopped.append(True)
    button = factory.pin(3)
    try:
        button.drive_low()  # a brush
        time.sleep(0.05)
        button.drive_high()
        time.sleep(0.3)
        assert (cleared, stopped) == ([], [])
        button.drive_low()  # pressed briefly
        time.sleep(0.6)
        button.drive_high()
        wait_until(lambda: cleared == [True])
        assert stopped == []
        button.drive_low()  # held
        wait_until(lambda: stopped == [True], 4.0)
        button.drive_high()
        time.sleep(0.2)
        assert cleared == [True]
    finally:
        io.close()
