"""`railtable bench load`, a few seconds of it: the service in its own process answers the status,
its phones' streams bring the rows a magnet change made, the PIN guessers are held to the table's
limit whatever addresses they come from, and the figures come out as JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.bench.load import run
from controller.bench.load_clients import Seen
from controller.bench.load_report import LoadReport, Resources, Timings, change_timings

MAIN = "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))"


def test_a_short_load_gives_every_figure() -> None:
    report = run(seconds=6, phones=12, rate=10, hostile=6, after_s=1, warm_up_s=2, camera="none")
    fig = report.to_json()
    assert fig["status_requests"] >= 40 and fig["status_failed"] == 0, fig
    assert 0 < fig["status_p50_ms"] <= fig["status_p99_ms"] <= fig["status_max_ms"], fig
    assert fig["phones_connected"] == 12 and fig["phone_refusals"] == 0, fig
    assert fig["guesses"] > 10 and fig["wrong_pins_judged_per_min"] <= 10, fig
    assert fig["backlog_streams"] > 0 and fig["slow_connections"] > 0, fig
    assert fig["slow_bodies"] > 0 and fig["stream_bursts"] > 0, fig  # issue 37's kinds
    assert 0 < fig["burst_most_streams"] <= 16, fig
    assert fig["renames_refused_429"] > 0, fig
    assert fig["renames_accepted"] <= 4 + 1 * 8 + 2, fig  # a burst, then 1 a second
    assert fig["host_requests"] > 3 and fig["host_answered"] == fig["host_requests"], fig
    assert fig["fds_before"] > 0 and fig["fds_during"] >= fig["fds_before"], fig
    assert fig["rss_mb_before"] > 0 and fig["threads_before"] > 0, fig


def test_the_report_prints_its_figures_flat_under_the_keys_the_docs_quote() -> None:
    moment = Resources(100.04, 12, 20)
    report = LoadReport.of(
        seconds=60, phones=200, rate=50, hostile=20, camera="simulated", after_s=60,
        seen=Seen(), timings=Timings([], [], []), process=(moment, moment, moment),
    )  # fmt: skip
    figures = report.to_json()
    assert list(figures) == [
        "seconds", "phones", "rate_per_s", "hostile", "camera", "cpus", "load_average_1min",
        "status_requests", "status_failed", "status_p50_ms", "status_p99_ms", "status_max_ms",
        "changes_timed", "change_to_phone_p50_ms", "change_to_phone_p99_ms",
        "change_to_phone_max_ms", "change_to_verdict_p50_ms", "change_to_verdict_p99_ms",
        "judge_to_phone_p50_ms", "judge_to_phone_p99_ms", "phones_connected", "phone_refusals",
        "guesses", "wrong_pins_judged", "wrong_pins_judged_per_min", "backlog_streams",
        "slow_connections", "slow_bodies", "slow_bodies_408", "slow_bodies_refused",
        "slow_body_held_max_s", "stream_bursts", "burst_most_streams", "renames_sent",
        "renames_accepted", "renames_refused_429", "host_requests", "host_answered",
        "fds_before", "fds_during", "fds_after", "rss_mb_before", "rss_mb_during",
        "rss_mb_after", "threads_before", "threads_during", "threads_after", "after_s",
    ]  # fmt: skip
    assert all(not isinstance(value, dict | list) for value in figures.values()), figures
    assert figures["rss_mb_during"] == 100.0 and figures["fds_after"] == 20, figures
    assert json.loads(json.dumps(figures)) == figures


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
    timings = change_timings(stamps, seen)
    assert sorted(round(t) for t in timings.first) == [40, 50, 80, 90]
    assert sorted(round(t) for t in timings.verdict) == [40, 90, 600, 700]
    assert sorted(round(t) for t in timings.judged) == [30, 80, 100, 200]
