"""The table's own buttons and lights (gpiozero): a "done" button and a turn LED per seat, a
buzzer for an illegal move, a hold-to-shut-down button (pressed briefly: it clears the wrong-PIN
lock-out). Off a Pi, gpiozero's mock pins stand in."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # gpiozero is imported when the pins open: the configuration loads this module
    from gpiozero import LED, Button, Buzzer

log = logging.getLogger("railtable")

SHORT_PRESS_S = (0.3, 2.0)  # the shutdown button released within this (and before its hold
# time) clears the wrong-PIN lock-out: longer than a brush or a bounce, well short of a hold


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


DEVICE_TREE_MODEL = Path("/proc/device-tree/model")
PI_FACTORY_FIX = (
    "install the OS's lgpio (sudo apt install python3-lgpio), make the venv with "
    "--system-site-packages and set GPIOZERO_PIN_FACTORY=lgpio (systemd/install.sh does all three)"
)


class PinsState(StrEnum):
    """How the table's buttons and lights are doing (`/api/status` gpio.state)."""

    READY = "ready"  # the Pi's own pins
    MOCK = "mock"  # gpiozero's mock pins: off a Pi, or asked for
    NONE = "none"  # no pin configured
    DEGRADED = "degraded"  # the pins could not be opened: the table goes on without them


def pi_model(path: Path = DEVICE_TREE_MODEL) -> str:
    """The Raspberry Pi's model as its device tree names it ("" off a Pi)."""
    try:
        model = path.read_text(errors="replace").strip("\0\n ")
    except OSError:
        return ""
    return model if "Raspberry Pi" in model else ""


def factory_name(factory: object) -> str:
    """gpiozero's short name of a pin factory ("lgpio", "native", "mock", ...)."""
    name = type(factory).__name__
    known = {
        "LGPIOFactory": "lgpio",
        "RPiGPIOFactory": "rpigpio",
        "PiGPIOFactory": "pigpio",
        "NativeFactory": "native",
        "MockFactory": "mock",
    }
    return known.get(name, name)


def make_factory(name: str, model: Callable[[], str] = pi_model) -> Any:
    """The pin factory: mock pins off a Pi (or when asked); on a Pi, gpiozero's own choice
    (`GPIOZERO_PIN_FACTORY`, else lgpio, RPi.GPIO, pigpio, native). Raises what gpiozero raises
    when none can be loaded (BadPinFactory)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    if name == "mock":
        return MockFactory()
    if name != "auto":
        raise ValueError(f'pin_factory {name!r}: must be "auto" or "mock"')
    if not model():
        return MockFactory()
    with warnings.catch_warnings():  # its fallbacks, said once in our own line instead
        warnings.simplefilter("ignore")
        Device.ensure_pin_factory()
    return Device.pin_factory


class TableIO:
    """Seat buttons, turn LEDs, the buzzer, the shutdown button; callbacks run on gpiozero's
    threads, so the service hands them to its event loop."""

    def __init__(
        self, pins: GpioPins, factory: Any = None, make: Callable[[str], Any] | None = None
    ) -> None:
        pins.check()
        self.pins = pins
        self.factory: Any = factory
        self.on_done: Callable[[int], None] | None = None
        self.on_shutdown: Callable[[], None] | None = None
        self.on_clear_lockout: Callable[[], None] | None = None
        self.clock: Callable[[], float] = time.monotonic
        self._down_at: float | None = None  # the shutdown button pressed, not yet held
        self.buttons: list[Button] = []
        self.leds: list[LED] = []
        self.buzzer: Buzzer | None = None
        self.shutdown: Button | None = None
        self.state = PinsState.NONE
        self.detail = "no pin configured"
        self.since = time.time()
        if factory is None and not pins.used():
            return  # nothing wired: no pin factory is even loaded
        try:
            if self.factory is None:
                self.factory = (make or make_factory)(pins.pin_factory)
            self._open()
        except Exception as error:  # any failure of the pins must not stop the table
            self._degrade(error)
            return
        name = factory_name(self.factory)
        self.state = PinsState.MOCK if name == "mock" else PinsState.READY
        self.detail = f"{name} pins"

    def _open(self) -> None:
        from gpiozero import LED, Button, Buzzer

        factory, pins = self.factory, self.pins
        self.buttons = [
            Button(pin, pin_factory=factory, bounce_time=0.05) for pin in pins.seat_buttons
        ]
        for seat, button in enumerate(self.buttons):
            button.when_pressed = self._pressed(seat)
        self.leds = [LED(pin, pin_factory=factory) for pin in pins.seat_leds]
        if pins.buzzer is not None:
            self.buzzer = Buzzer(pins.buzzer, pin_factory=factory)
        if pins.shutdown_button is not None:
            self.shutdown = Button(
                pins.shutdown_button, pin_factory=factory, hold_time=pins.shutdown_hold_s
            )
            self.shutdown.when_held = self._held
            self.shutdown.when_pressed = self._down
            self.shutdown.when_released = self._up

    def _degrade(self, error: Exception) -> None:
        """The pins could not be opened: let go of what was, go on without any, say so once."""
        self.close()
        self.buttons, self.leds, self.buzzer, self.shutdown = [], [], None, None
        which = (
            "no pin factory" if self.factory is None else f"the {factory_name(self.factory)} pins"
        )
        reason = str(error) or type(error).__name__
        fix = PI_FACTORY_FIX if self.pins.pin_factory == "auto" else "check the [gpio] pins"
        self.state = PinsState.DEGRADED
        self.detail = f"{which} failed ({reason}): {fix}"
        self.since = time.time()
        log.warning("GPIO: %s; the table goes on without its buttons and lights", self.detail)

    def _pressed(self, seat: int) -> Callable[[], None]:
        def pressed() -> None:
            if self.on_done is not None:
                self.on_done(seat)

        return pressed

    def _held(self) -> None:
        self._down_at = None  # a hold is a shutdown, never also a short press
        if self.on_shutdown is not None:
            self.on_shutdown()

    def _down(self) -> None:
        self._down_at = self.clock()

    def _up(self) -> None:
        down, self._down_at = self._down_at, None
        if down is None or self.on_clear_lockout is None:
            return
        shortest, longest = SHORT_PRESS_S
        if shortest <= self.clock() - down < min(longest, self.pins.shutdown_hold_s):
            self.on_clear_lockout()

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
        """As the camera's and the board's: state, detail, since; and what is wired."""
        return {
            "state": self.state.value,
            "detail": self.detail,
            "since": self.since,
            "pins": "none" if self.factory is None else factory_name(self.factory),
            "seat_buttons": len(self.buttons),
            "seat_leds": len(self.leds),
            "buzzer": self.buzzer is not None,
            "shutdown_button": self.shutdown is not None,
        }

    def close(self) -> None:
        for device in [*self.buttons, *self.leds, self.buzzer, self.shutdown]:
            if device is not None:
                with contextlib.suppress(Exception):  # a half-opened pin may not close cleanly
                    device.close()
