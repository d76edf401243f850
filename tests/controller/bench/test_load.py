"""`railtable bench load`, a few seconds of it: the service in its own process answers the status,
its phones' streams bring the rows a magnet change made, the PIN guessers are held to the table's
limit whatever addresses they come from, and the figures come out as JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.bench.load import Seen, _changes, run
from tests.support.serving import MAIN


def test_a_short_load_gives_every_figure() -> None:
    report = run(seconds=6, phones=12, rate=10, hostile=6, after_s=1, warm_up_s=2, camera="none")
    figures = report.to_json()
    assert report.status_requests >= 40 and report.status_failed == 0, figures
    assert 0 < report.status_p50_ms <= report.status_p99_ms <= report.status_max_ms, figures
    assert report.phones_connected == 12 and report.phone_refusals == 0, figures
    assert report.guesses > 10 and report.wrong_pins_judged_per_min <= 10, figures
    assert report.backlog_streams > 0 and report.slow_connections > 0, figures
    assert report.slow_bodies > 0 and report.stream_bursts > 0, figures  # issue 37's kinds
    assert 0 < report.burst_most_streams <= 16, figures
    assert report.renames_refused_429 > 0, figures
    assert report.renames_accepted <= 4 + 1 * 8 + 2, figures  # a burst, then 1 a second
    assert report.host_requests > 3 and report.host_answered == report.host_requests, figures
    assert report.fds_before > 0 and report.fds_during >= report.fds_before, figures
    assert report.rss_mb_before > 0 and report.threads_before > 0, figures


def test_the_command_prints_one_json_object_and_checks_its_flags() -> None:
    bad = subprocess.run(
        [sys.executable, "-c", MAIN, "bench", "load", "--phones", "5000"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "5000 is not from 0 to 1000" in bad.stderr
    done = subprocess.run(
        [sys.executable, "-c", MAIN, "bench", "load", "--json", "--seconds", "3", "--phones", "4",
         "--rate", "5", "--hostile", "3", "--after", "0", "--warm-up", "1", "--camera", "none"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for key in ("status_p50_ms", "status_p99_ms", "status_max_ms", "change_to_phone_p99_ms",
                "change_to_verdict_p99_ms", "judge_to_phone_p99_ms", "wrong_pins_judged_per_min",
                "rss_mb_before", "rss_mb_during", "rss_mb_after", "fds_before", "fds_after",
                "slow_bodies", "burst_most_streams", "renames_accepted",
                "threads_before", "threads_during", "threads_after"):  # fmt: skip
        assert key in figures, key


def test_a_change_counts_from_its_first_word_on_each_phone(tmp_path: Path) -> None:
    stamps = tmp_path / "stamps"
    # magnet at 10.0: felt at once (C3), its verdict row 7 later; magnet at 20.0: a row only
    stamps.write_text(
        "felt C3 10.000000 10.010000\nrow 7 10.000000 10.500000\nrow 9 20.000000 20.010000\n"
    )
    seen = Seen()
    seen.felt += [(0, "C3", 10.05), (1, "C3", 10.08), (0, "C3", 30.0)]
    seen.arrivals += [(0, 7, 10.6), (1, 7, 10.7), (0, 9, 20.04), (1, 9, 20.09)]
    timings = _changes(stamps, seen)
    assert sorted(round(t) for t in timings.first) == [40, 50, 80, 90]
    assert sorted(round(t) for t in timings.verdict) == [40, 90, 600, 700]
    assert sorted(round(t) for t in timings.judged) == [30, 80, 100, 200]
