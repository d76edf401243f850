"""The table speaks: whose turn it is, a move that is not legal, and who won, said on the Pi's own
speaker by espeak-ng (Debian's offline speech engine).

Three parts: a `Speaker` says one line and may take its time (`EspeakSpeaker` runs espeak-ng; a
test's fake only writes the line down); `Voice` says lines one after another on a thread of its
own, so the game's owner only drops a line in its queue and never waits for a word; `Narrator`
hears the game's log rows (a listener of the live game, on the owner's thread) and decides what
is worth saying. A line that waited too long, or that a newer line of its kind made stale (an
earlier "your turn"), is dropped: the table never reads out the past.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from controller.words.language import Language, tongue

if TYPE_CHECKING:
    from controller.game.live import LiveGame
    from controller.game.store import Event

log = logging.getLogger("railtable")

ESPEAK = "espeak-ng"
SOUND_CARDS = Path("/proc/asound/cards")
STALE_S = 10.0  # a line not yet said this long after it was news is dropped
QUEUE_MAX = 4  # lines waiting at most; beyond it the oldest is dropped
SAY_TIMEOUT_S = 20.0  # espeak-ng saying one short line never takes this long


class Speech(StrEnum):
    """`[table] speech`: whether the table speaks."""

    AUTO = "auto"  # where espeak-ng and a sound card are found, and not on the simulated table
    ON = "on"
    OFF = "off"


def speech_setting(key: str, value: object) -> Speech:
    """The configuration's `speech` value, or one line naming what may be given."""
    if isinstance(value, bool):
        return Speech.ON if value else Speech.OFF
    try:
        return Speech(str(value).strip().lower())
    except ValueError:
        raise ValueError(f'{key} = {value!r}: must be "auto", "on" or "off"') from None


@dataclass(frozen=True)
class SoundCard:
    """One line of /proc/asound/cards: ` 2 [Device   ]: USB-Audio - USB Audio Device`."""

    number: int
    id: str  # ALSA's name of the card ("Device", "Headphones", "vc4hdmi0")
    driver: str
    name: str

    @property
    def hdmi(self) -> bool:
        """Sound out of the HDMI port only: a screen's speakers at best, usually silence."""
        return "hdmi" in f"{self.id} {self.driver} {self.name}".lower()

    def words(self) -> str:
        return f"card {self.number} {self.id} ({self.name})"


_CARD_LINE = re.compile(r"^\s*(\d+)\s+\[(.*?)\s*\]:\s*(\S+)\s+-\s+(.*?)\s*$")


def sound_cards(cards: Path | None = None) -> tuple[SoundCard, ...]:
    """The machine's sound cards as ALSA lists them (none when the file cannot be read)."""
    try:
        listed = (cards or SOUND_CARDS).read_text()
    except OSError:
        return ()
    found = (_CARD_LINE.match(line) for line in listed.splitlines())
    return tuple(SoundCard(int(m[1]), m[2], m[3], m[4]) for m in found if m is not None)


def speaker_card(cards: Path | None = None) -> SoundCard | None:
    """The first card a speaker can hang off: a USB speaker, the headphone jack; never HDMI
    (a Pi 5 has no jack: its only cards are vc4hdmi0 and vc4hdmi1)."""
    return next((card for card in sound_cards(cards) if not card.hdmi), None)


ADD_A_SPEAKER = (
    "plug a USB speaker in (a Pi 5 has no headphone jack), check it with `aplay -l` and "
    '`espeak-ng "test"`, then restart the service'
)


@dataclass(frozen=True)
class SpeechChoice:
    """Whether the table speaks, through which card, and why, in words."""

    on: bool
    card: SoundCard | None
    reason: str


def choose_speech(
    setting: Speech,
    simulated: bool,
    cards: Path | None = None,
    espeak: Callable[[str], str | None] | None = None,
) -> SpeechChoice:
    """`[table] speech` against what the machine has: "on" and "off" as said; "auto" speaks where
    espeak-ng and a speaker other than HDMI are found, but not on the simulated table (a laptop
    running the demo stays quiet unless asked)."""
    card = speaker_card(cards)
    if setting is Speech.OFF:
        return SpeechChoice(False, card, "speech is off in the configuration")
    through = f"through {card.words()}" if card is not None else "through ALSA's default output"
    if setting is Speech.ON:
        return SpeechChoice(True, card, f"speech is on: espeak-ng speaks {through}")
    if simulated:
        return SpeechChoice(False, card, 'the simulated table stays quiet unless speech = "on"')
    if (espeak or shutil.which)(ESPEAK) is None:
        return SpeechChoice(False, card, "speech off: espeak-ng is not installed "
                            "(sudo apt install espeak-ng)")  # fmt: skip
    if card is None:
        hdmi = [c.id for c in sound_cards(cards)]
        only = f"the only sound output is HDMI ({', '.join(hdmi)})" if hdmi else "no sound card"
        return SpeechChoice(False, None, f"speech off: {only}; {ADD_A_SPEAKER}")
    return SpeechChoice(True, card, f"speech on: espeak-ng speaks {through}")


class Speaker(Protocol):
    """Says one line aloud; may block while it speaks."""

    def say(self, text: str) -> None: ...


class EspeakSpeaker:
    """espeak-ng on the default sound output, or on ALSA card `card` (its id: ALSA_CARD, unless
    the service's environment names one already), or into a WAV file (`wav`) instead."""

    def __init__(
        self,
        wav: Path | None = None,
        words_per_minute: int = 150,
        card: str | None = None,
        voice: str = Language.EN.voice,
    ) -> None:
        self.wav = wav
        self.words_per_minute = words_per_minute
        self.voice = voice  # espeak-ng's voice: the table's language
        self.env = None if card is None else {"ALSA_CARD": card, **os.environ}

    def say(self, text: str) -> None:
        command = [ESPEAK, "-v", self.voice, "-s", str(self.words_per_minute)]
        if self.wav is not None:
            command += ["-w", str(self.wav)]
        command += ["--", text]
        subprocess.run(
            command, check=True, timeout=SAY_TIMEOUT_S, capture_output=True, env=self.env
        )


@dataclass(frozen=True)
class Line:
    """A line to say: `kind` makes an earlier waiting line of the same kind stale."""

    text: str
    kind: str
    at: float = field(default_factory=time.monotonic)


class Voice:
    """Says queued lines one after another on its own thread; `say` never waits."""

    def __init__(
        self,
        speaker: Speaker,
        stale_s: float = STALE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.speaker = speaker
        self.stale_s = stale_s
        self.clock = clock
        self.said: list[str] = []  # what was said, newest last (the last 50)
        self.dropped = 0
        self._waiting: list[Line] = []
        self._ready = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> Voice:
        self._thread = threading.Thread(target=self._run, name="railtable-voice", daemon=True)
        self._thread.start()
        return self

    def say(self, text: str, kind: str) -> None:
        """Queue a line; an earlier waiting line of the same kind is dropped for it."""
        with self._ready:
            kept = [line for line in self._waiting if line.kind != kind]
            self.dropped += len(self._waiting) - len(kept)
            kept.append(Line(text, kind, self.clock()))
            while len(kept) > QUEUE_MAX:
                kept.pop(0)
                self.dropped += 1
            self._waiting = kept
            self._ready.notify()

    def stop(self, timeout: float = 5.0) -> None:
        with self._ready:
            self._stopping = True
            self._ready.notify()
        if self._thread is not None:
            self._thread.join(timeout)

    def _next(self) -> Line | None:
        with self._ready:
            while not self._waiting and not self._stopping:
                self._ready.wait()
            if self._stopping:
                return None
            line = self._waiting.pop(0)
            if self.clock() - line.at > self.stale_s:
                self.dropped += 1
                return _STALE
            return line

    def _run(self) -> None:
        while (line := self._next()) is not None:
            if line is _STALE:
                continue
            try:
                self.speaker.say(line.text)
            except (OSError, subprocess.SubprocessError) as error:
                log.warning("speech: %s", error)
            self.said = [*self.said[-49:], line.text]


_STALE = Line("", "stale")


class Narrator:
    """What the table says of the game, heard from its log rows (on the owner's thread), in the
    table's language."""

    def __init__(self, game: LiveGame, voice: Voice, language: Language = Language.EN) -> None:
        self.game = game
        self.voice = voice
        self.tongue = tongue(language)
        self._turn: tuple[int, int] | None = None  # (game, seat) last announced

    def heard(self, event: Event) -> None:
        from controller.game.store import EventKind  # loaded by then (the configuration does not)

        if event.kind is EventKind.ALERT:
            self._alert(event)
        elif event.kind is EventKind.END:
            self._winner()
        elif event.kind in (EventKind.START, EventKind.ACTION, EventKind.UNDO):
            self._turn_now(event.game_id)

    def _turn_now(self, game_id: int) -> None:
        opened = self.game.open
        seat = opened.state.current_player if opened is not None else None
        if seat is None or seat < 0 or (game_id, seat) == self._turn:
            return
        self._turn = (game_id, seat)
        players = self.game.players
        if len(players) > 1:
            self.voice.say(
                self.tongue.tr("{player}, your turn", player=players[seat].said(self.tongue).name),
                "turn",
            )

    def _alert(self, event: Event) -> None:
        book = self.game.book
        wrong = [w.get("location") for w in event.data.get("wrong", []) if isinstance(w, dict)]
        named = [str(n) for n in (wrong or event.data.get("locations", [])) if n]
        places = list(dict.fromkeys(book.place(name) for name in named))[:3]
        line = (
            self.tongue.tr("Not a legal move at {places}", places=self.tongue.listed(places))
            if places
            else self.tongue.tr("Not a legal move")
        )
        self.voice.say(line, "alert")

    def _winner(self) -> None:
        finished = self.game.finished
        if finished is None:
            return
        finished = self.game.finished_said.get(self.tongue.language, finished)  # its names too
        names = [finished["players"][seat]["name"] for seat in finished["winners"]]
        if not names:
            return
        say = self.tongue
        if len(finished["players"]) == 1:
            score = f"{finished['scores'][0]:g}"
            line = say.tr("The game is over: {player} scores {score}", player=names[0], score=score)
        elif len(names) == 1:
            line = say.tr("{player} wins!", player=names[0])
        else:
            line = say.tr("{players} share the win!", players=say.listed(names))
        self.voice.say(line, "winner")
