"""The table speaks: turn changes, alerts and the winner, through a fake speaker (what would be
said, written down; never real audio), a queue that never blocks the game and drops stale lines,
the `[table] speech` setting, and the real espeak-ng writing a WAV file."""

from __future__ import annotations

import logging
import random
import shutil
import subprocess
import sys
import threading
import wave
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config
from controller.game.access import Asker
from controller.game.live import LiveGame
from controller.game.store import EventLog
from controller.referee.observe import Observation
from controller.table.service import ServiceSettings, TableService
from controller.table.speech import (
    EspeakSpeaker,
    Narrator,
    Speech,
    Voice,
    choose_speech,
    sound_cards,
    speaker_card,
)
from rules.physical import PlacedPiece, TableObservation
from rules.playout import Policy, choose
from tests.support.waiting import wait_until


class Written:
    """A speaker that writes down what it would say; `hold` keeps it speaking until set."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.hold = threading.Event()
        self.hold.set()
        self.speaking = threading.Event()

    def say(self, text: str) -> None:
        self.speaking.set()
        self.hold.wait(10)
        self.lines.append(text)


def _play_until_seat(game: LiveGame, seat: int) -> None:
    """The bots' moves for the players until it is `seat`'s turn."""
    rng = random.Random(1)
    for _ in range(40):
        state = game.opened().state
        assert state is not None
        if state.current_player == seat:
            return
        mover = state.current_player
        assert mover is not None and mover >= 0
        game.act(Asker.at(mover), choose(state, rng, Policy.BOT).to_json())
    raise AssertionError(f"never the turn of seat {seat}")


def _narrated(tmp_path: Path) -> tuple[LiveGame, Voice, Written]:
    game = LiveGame(EventLog(tmp_path / "log.sqlite3"))
    speaker = Written()
    voice = Voice(speaker).start()
    game.listeners.append(Narrator(game, voice).heard)
    return game, voice, speaker


def test_the_table_says_whose_turn_a_wrong_move_and_who_won(tmp_path: Path) -> None:
    game, voice, speaker = _narrated(tmp_path)
    try:
        game.start("offtherails", {"players": 2}, seed=1)
        game.name_player(Asker.host(), 0, "Ann")
        game.name_player(Asker.host(), 1, "Bob")
        _play_until_seat(game, 1)
        wait_until(lambda: "Bob, your turn" in speaker.lines, what=speaker.lines)
        # a minecart laid where none may go: an alert naming the square
        assert game.open is not None
        wrong = dict(game.open.referee.table_of(game.open.state))
        catalogue = game.open.info.catalogue()
        cart = next(e.piece for e in catalogue.entries if e.piece.kind == "minecart")
        wrong["F6"] = (PlacedPiece(cart),)
        assert game.open is not None
        names = [loc.name for loc in game.open.info.layout(game.open.state.options).locations]
        verdict = game.observe(Observation.exact(TableObservation.of(wrong), names))
        assert verdict is not None and verdict.kind.value == "alert"
        wait_until(lambda: "Not a legal move at F6" in speaker.lines, what=speaker.lines)
        game.end()
        wait_until(lambda: speaker.lines[-1].endswith(("wins!", "share the win!")))
        assert "Ann" in speaker.lines[-1] or "Bob" in speaker.lines[-1]
        assert not any("seat" in line for line in speaker.lines)
    finally:
        voice.stop()


def test_speaking_never_holds_up_the_game_and_stale_lines_are_dropped(tmp_path: Path) -> None:
    clock = [0.0]
    speaker = Written()
    voice = Voice(speaker, stale_s=10.0, clock=lambda: clock[0]).start()
    try:
        speaker.hold.clear()  # the speaker is busy with its first line
        voice.say("Ann, your turn", "turn")
        assert speaker.speaking.wait(5)
        voice.say("Bob, your turn", "turn")  # returns at once though the speaker is busy
        voice.say("Not a legal move at F12", "alert")
        voice.say("Cy, your turn", "turn")  # makes Bob's turn stale
        clock[0] = 5.0
        speaker.hold.set()
        wait_until(lambda: len(speaker.lines) == 3, what=speaker.lines)
        assert speaker.lines == ["Ann, your turn", "Not a legal move at F12", "Cy, your turn"]
        speaker.hold.clear()
        speaker.speaking.clear()
        voice.say("Ann, your turn", "turn")
        assert speaker.speaking.wait(5)
        voice.say("Not a legal move at A1", "alert")  # waits while the speaker is busy...
        clock[0] = 30.0  # ...until it is old news
        voice.say("Ann wins!", "winner")
        speaker.hold.set()
        wait_until(lambda: speaker.lines[-1] == "Ann wins!", what=speaker.lines)
        assert "Not a legal move at A1" not in speaker.lines and voice.dropped == 2
    finally:
        voice.stop()


PI5_CARDS = """\
 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1
                      vc4-hdmi-1
"""
USB_SPEAKER = """\
 2 [Device         ]: USB-Audio - USB Audio Device
                      GeneralPlus USB Audio Device at usb-xhci-hcd.0-1, full speed
"""
PI4_CARDS = """\
 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                      bcm2835 Headphones
 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
"""


def _cards(tmp_path: Path, listed: str) -> Path:
    path = tmp_path / f"cards-{len(list(tmp_path.glob('cards-*')))}"
    path.write_text(listed)
    return path


def test_auto_speaks_only_through_a_speaker_that_is_not_hdmi(tmp_path: Path) -> None:
    found = {"espeak": lambda name: f"/usr/bin/{name}"}
    pi5 = _cards(tmp_path, PI5_CARDS)
    assert [c.id for c in sound_cards(pi5)] == ["vc4hdmi0", "vc4hdmi1"]
    assert speaker_card(pi5) is None
    quiet = choose_speech(Speech.AUTO, simulated=False, cards=pi5, **found)
    assert not quiet.on and "only sound output is HDMI (vc4hdmi0, vc4hdmi1)" in quiet.reason
    assert "USB speaker" in quiet.reason and "aplay -l" in quiet.reason
    usb = choose_speech(
        Speech.AUTO, False, cards=_cards(tmp_path, PI5_CARDS + USB_SPEAKER), **found
    )
    assert usb.on and usb.card is not None and usb.card.id == "Device"
    pi4_cards = _cards(tmp_path, PI4_CARDS)
    pi4 = choose_speech(Speech.AUTO, False, cards=pi4_cards, **found)
    assert pi4.on and pi4.card is not None and pi4.card.id == "Headphones"
    none = choose_speech(Speech.AUTO, False, cards=tmp_path / "absent", **found)
    assert not none.on and "no sound card" in none.reason
    no_espeak = choose_speech(Speech.AUTO, False, cards=pi4_cards, espeak=lambda _: None)
    assert not no_espeak.on and "apt install espeak-ng" in no_espeak.reason
    assert not choose_speech(Speech.AUTO, simulated=True, cards=pi4_cards, **found).on
    assert choose_speech(Speech.ON, simulated=True, cards=pi5, **found).on
    assert not choose_speech(Speech.OFF, simulated=False, cards=pi4_cards, **found).on


def test_a_service_speaks_only_where_asked_or_a_speaker_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("controller.table.speech.SOUND_CARDS", _cards(tmp_path, PI5_CARDS))
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    with caplog.at_level(logging.INFO, logger="railtable"):
        hdmi_only = TableService(ServiceSettings(data_dir=tmp_path / "c", pin="1234",
                                                 camera="none", board="none"))  # fmt: skip
    hdmi_only.log.close()
    assert hdmi_only.voice is None and not hdmi_only.status()["speech"]
    said = [r.getMessage() for r in caplog.records if "speech off" in r.getMessage()]
    assert len(said) == 1 and "USB speaker" in said[0]
    quiet = TableService(ServiceSettings(data_dir=tmp_path / "a", pin="1234"))
    assert quiet.voice is None  # the simulated table is quiet unless asked
    quiet.log.close()
    service = TableService(ServiceSettings(data_dir=tmp_path / "b", pin="1234", players=2,
                                           camera="none", bots=False))  # fmt: skip
    speaker = Written()
    service.speak_with(speaker)
    service.start(thread=False)
    try:
        _play_until_seat(service.game, 1)
        wait_until(lambda: speaker.lines == ["Player 1, your turn", "Player 2, your turn"])
    finally:
        service.stop()


def test_the_speech_setting_is_checked(tmp_path: Path) -> None:
    config = tmp_path / "railtable.toml"
    assert load_config(None).speech is Speech.AUTO
    config.write_text('[table]\nspeech = "off"\n')
    assert load_config(config).speech is Speech.OFF
    config.write_text("[table]\nspeech = true\n")
    assert load_config(config).speech is Speech.ON
    config.write_text('[table]\nspeech = "loud"\n')
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert str(error.value) == (
        f'{config}: [table] speech = \'loud\': must be "auto", "on" or "off"'
    )
    main = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run(
        [sys.executable, "-c", main, "serve", "--speech", "loud", "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        'railtable serve: --speech loud: must be "auto", "on" or "off"'
    ]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_ng_says_a_line_into_a_wav_file(tmp_path: Path) -> None:
    """The real engine (`.ci/run` installs Debian's espeak-ng): a line becomes speech."""
    wav = tmp_path / "said.wav"
    EspeakSpeaker(wav=wav).say("Ann, your turn")
    with wave.open(str(wav)) as said:
        seconds = said.getnframes() / said.getframerate()
    assert 0.4 < seconds < 5, seconds
