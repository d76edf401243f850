"""What the table service runs with (`ServiceSettings`, filled in by the configuration file): a
light module, so `railtable serve` names them before the service's heavy half is imported."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.table.gpio import GpioPins
from controller.table.speech import Speech
from controller.venue.settings import VenueSettings
from controller.words.language import Language
from vision.camera_module import CameraSettings

SIMULATED = "simulated"  # `camera`, `board`: the simulated table's


@dataclass(frozen=True)
class ServiceSettings:
    """What the service runs with (the configuration file fills it in)."""

    data_dir: Path
    pin: str = ""
    game: str = "offtherails"
    players: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    camera: str = SIMULATED  # "simulated", "none", or a camera source (device, file, URL,
    # "picamera2[:N]": a camera module)
    camera_settings: CameraSettings = field(default_factory=CameraSettings)  # size, controls
    board: str = SIMULATED  # "simulated", "none", or a pyserial URL
    tick_s: float = 0.05
    settle_ticks: int = 1  # the fused table unchanged this many ticks (the board debounces, the
    # camera pipeline has its own stabiliser: this only joins the two)
    bot_period_s: float = 1.0  # the simulated table: a bot's go this often
    camera_period_s: float = 0.1  # the camera: a frame this often (read off the owner's thread;
    # the simulated camera draws none while its table rests, and one at once when it changes)
    camera_rests: bool = True  # False: the simulated camera works flat out, as a real one (a bench)
    mistake_rate: float = 0.06
    bots: bool = True  # on the simulated table, bots play
    ai_iterations: int = 0  # > 0: a computer player's search is this many iterations (tests),
    # else its level's time (normal 1 s, strong 3 s)
    gpio: GpioPins = field(default_factory=GpioPins)
    venue: VenueSettings | None = None  # publish to the venue's broker (docs/venue.md)
    speech: Speech = Speech.AUTO  # the table speaks turns, alerts and the winner (espeak-ng)
    language: Language = Language.EN  # ... in this language
