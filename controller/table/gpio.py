"""The table's own buttons and lights (gpiozero): a "done" button and a turn LED per seat, a
buzzer for an illegal move, a hold-to-shut-down button. Off a Pi, gpiozero's mock pins stand in."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, Button, Buzzer


@dataclass(frozen=True)
class GpioPins:
    """BCM pin numbers (empty: not wired)."""

    seat_buttons: tuple[int, ...] = ()
    seat_leds: tuple[int, ...] = ()
    buzzer: int | None = None
    shutdown_button: int | None = None
    shutdown_hold_s: float = 3.0
    pin_factory: str = "auto"  # "auto": the Pi's own pins when on a Pi, else mock pins; "mock"

    def used(self) -> list[int]:
        pins = [*self.seat_buttons, *self.seat_leds]
        pins += [p for p in (self.buzzer, self.shutdown_button) if p is not None]
        return pins

    def check(self) -> None:
        """ValueError naming a pin used twice or outside 0..27."""
        seen: set[int] = set()
        for pin in self.used():
            if not 0 <= pin <= 27:
                raise ValueError(f"GPIO pin {pin} is not one of the Pi's 0..27")
            if pin in seen:
                raise ValueError(f"GPIO pin {pin} is used twice")
            seen.add(pin)


def make_factory(name: str) -> Any:
    """The pin factory: mock pins off a Pi (or when asked), gpiozero's choice on one."""
    from gpiozero.pins.mock import MockFactory

    if name == "mock":
        return MockFactory()
    if name != "auto":
        raise ValueError(f'pin_factory {name!r}: must be "auto" or "mock"')
    try:
        with open("/proc/device-tree/model") as model:
            on_pi = "Raspberry Pi" in model.read()
    except OSError:
        on_pi = False
    return None if on_pi else MockFactory()


class TableIO:
    """Seat buttons, turn LEDs, the buzzer, the shutdown button; callbacks run on gpiozero's
    threads, so the service hands them to its event loop."""

    def __init__(self, pins: GpioPins, factory: Any = None) -> None:
        pins.check()
        self.pins = pins
        self.factory = factory if factory is not None else make_factory(pins.pin_factory)
        self.on_done: Callable[[int], None] | None = None
        self.on_shutdown: Callable[[], None] | None = None
        self.buttons = [
            Button(pin, pin_factory=self.factory, bounce_time=0.05) for pin in pins.seat_buttons
        ]
        for seat, button in enumerate(self.buttons):
            button.when_pressed = self._pressed(seat)
        self.leds = [LED(pin, pin_factory=self.factory) for pin in pins.seat_leds]
        self.buzzer = (
            Buzzer(pins.buzzer, pin_factory=self.factory) if pins.buzzer is not None else None
        )
        self.shutdown = None
        if pins.shutdown_button is not None:
            self.shutdown = Button(
                pins.shutdown_button, pin_factory=self.factory, hold_time=pins.shutdown_hold_s
            )
            self.shutdown.when_held = self._held

    def _pressed(self, seat: int) -> Callable[[], None]:
        def pressed() -> None:
            if self.on_done is not None:
                self.on_done(seat)

        return pressed

    def _held(self) -> None:
        if self.on_shutdown is not None:
            self.on_shutdown()

    def show_turn(self, seat: int | None) -> None:
        """That seat's LED on, every other off (None: all off)."""
        for index, led in enumerate(self.leds):
            if index == seat:
                led.on()
            else:
                led.off()

    def alert(self, seconds: float = 0.3) -> None:
        """A short buzz; returns at once."""
        if self.buzzer is None:
            return
        self.buzzer.on()
        timer = threading.Timer(seconds, self.buzzer.off)
        timer.daemon = True
        timer.start()

    def health(self) -> dict[str, Any]:
        mock = type(self.factory).__name__ == "MockFactory"
        return {
            "pins": "mock" if mock else "gpio",
            "seat_buttons": len(self.buttons),
            "seat_leds": len(self.leds),
            "buzzer": self.buzzer is not None,
            "shutdown_button": self.shutdown is not None,
        }

    def close(self) -> None:
        for device in [*self.buttons, *self.leds, self.buzzer, self.shutdown]:
            if device is not None:
                device.close()
