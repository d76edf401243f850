"""The table speaks its language (`[table] language`, `--language`): the lines in German, French
or Spanish, and espeak-ng's voice for it writing the German line into a WAV file."""

from __future__ import annotations

import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config
from controller.table.service import ServiceSettings, TableService
from controller.table.speech import EspeakSpeaker
from controller.words.language import Language, tongue
from tests.controller.table.test_speech import Written, _play_until_seat
from tests.support.serving import MAIN
from tests.support.waiting import wait_until


@pytest.mark.parametrize(
    ("language", "turn"),
    [(Language.DE, "Spieler 2, du bist dran"), (Language.FR, "Joueur 2, à toi de jouer"),
     (Language.ES, "Jugador 2, te toca"), (Language.EN, "Player 2, your turn")],
)  # fmt: skip
def test_the_table_says_whose_turn_it_is_in_its_language(
    tmp_path: Path, language: Language, turn: str
) -> None:
    service = TableService(ServiceSettings(data_dir=tmp_path, pin="2468", players=2, seed=1,
                                           board="none", camera="none", bots=False,
                                           language=language))  # fmt: skip
    speaker = Written()
    service.speak_with(speaker)
    service.start(thread=False)
    try:
        _play_until_seat(service.game, 1)
        wait_until(lambda: turn in speaker.lines, what=speaker.lines)
    finally:
        service.stop()


def test_the_german_table_names_the_winners_it_never_heard_named(tmp_path: Path) -> None:
    """The end of a game where no one named a seat: the winners by the table's own German
    names, never "Player 1"."""
    service = TableService(ServiceSettings(data_dir=tmp_path, pin="2468", players=2, seed=1,
                                           board="none", camera="none", bots=False,
                                           language=Language.DE))  # fmt: skip
    speaker = Written()
    service.speak_with(speaker)
    service.start(thread=False)
    try:
        _play_until_seat(service.game, 1)
        service.game.end()
        wait_until(
            lambda: (
                speaker.lines and speaker.lines[-1].endswith(("gewinnt!", "gewinnen gemeinsam!"))
            ),
            what=speaker.lines,
        )
        assert "Spieler " in speaker.lines[-1] and "Player" not in speaker.lines[-1]
    finally:
        service.stop()


def test_the_language_setting_is_checked(tmp_path: Path) -> None:
    config = tmp_path / "railtable.toml"
    assert load_config(None).language is Language.EN
    config.write_text('[table]\nlanguage = "de"\n')
    assert load_config(config).language is Language.DE
    config.write_text('[table]\nlanguage = "klingon"\n')
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert str(error.value) == (
        f"{config}: [table] language = 'klingon': not a language the table speaks; "
        "one of en, de, fr, es"
    )
    run = subprocess.run(
        [sys.executable, "-c", MAIN, "serve", "--language", "xx", "--data", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        "railtable serve: --language xx: must be one of en, de, fr, es"
    ]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_ng_says_the_german_line_with_its_german_voice(tmp_path: Path) -> None:
    """`railtable serve --language de` speaks German: the German line, through espeak-ng's
    German voice (Debian's espeak-ng-data has it), into a WAV file."""
    line = tongue(Language.DE).tr("{player}, your turn", player="Ann")
    assert line == "Ann, du bist dran"
    wav = tmp_path / "gesagt.wav"
    speaker = EspeakSpeaker(wav=wav, voice=Language.DE.voice)
    speaker.say(line)
    with wave.open(str(wav)) as said:
        seconds = said.getnframes() / said.getframerate()
    assert 0.4 < seconds < 5, seconds
    # the voice is German's own: espeak-ng names it so for the line it speaks
    voices = subprocess.run(
        ["espeak-ng", "--voices=de"], capture_output=True, text=True, check=True
    ).stdout
    assert any(row.split()[1:2] == ["de"] for row in voices.splitlines()[1:]), voices
    # and it speaks with it: the same line in the English voice sounds otherwise (espeak-ng takes
    # an unknown voice silently, so the sound itself is compared)
    english = tmp_path / "said.wav"
    EspeakSpeaker(wav=english, voice=Language.EN.voice).say(line)
    assert wav.read_bytes() != english.read_bytes()
