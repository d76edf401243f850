"""`railtable bench load`'s figures: what the clients saw and the probe stamped, as one report."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from controller.bench.load_clients import Seen


@dataclass(frozen=True)
class Resources:
    """The service process at one moment: resident memory (MB), threads, open descriptors."""

    rss_mb: float
    threads: int
    fds: int

    def peak(self, other: Resources) -> Resources:
        """The most of each of the two."""
        return Resources(
            max(self.rss_mb, other.rss_mb),
            max(self.threads, other.threads),
            max(self.fds, other.fds),
        )


@dataclass(frozen=True)
class StatusFigures:
    """The phones' `/api/status` requests: how many, how many failed, their times (ms)."""

    status_requests: int
    status_failed: int
    status_p50_ms: float
    status_p99_ms: float
    status_max_ms: float

    @classmethod
    def of(cls, seen: Seen) -> StatusFigures:
        return cls(
            status_requests=len(seen.status_ms) + seen.status_failed,
            status_failed=seen.status_failed,
            status_p50_ms=_quantile(seen.status_ms, 0.5),
            status_p99_ms=_quantile(seen.status_ms, 0.99),
            status_max_ms=round(max(seen.status_ms, default=0.0), 1),
        )


@dataclass(frozen=True)
class ChangeFigures:
    """A magnet change's way to the phones (ms), each (phone, magnet change) pair once."""

    changes_timed: int
    change_to_phone_p50_ms: float  # to the first word of it: a square felt, or the verdict
    change_to_phone_p99_ms: float
    change_to_phone_max_ms: float
    change_to_verdict_p50_ms: float  # to the verdict's row (the camera's settling included)
    change_to_verdict_p99_ms: float
    judge_to_phone_p50_ms: float  # the part after the table settled: referee, log, phones
    judge_to_phone_p99_ms: float

    @classmethod
    def of(cls, timings: Timings) -> ChangeFigures:
        return cls(
            changes_timed=len(timings.first),
            change_to_phone_p50_ms=_quantile(timings.first, 0.5),
            change_to_phone_p99_ms=_quantile(timings.first, 0.99),
            change_to_phone_max_ms=round(max(timings.first, default=0.0), 1),
            change_to_verdict_p50_ms=_quantile(timings.verdict, 0.5),
            change_to_verdict_p99_ms=_quantile(timings.verdict, 0.99),
            judge_to_phone_p50_ms=_quantile(timings.judged, 0.5),
            judge_to_phone_p99_ms=_quantile(timings.judged, 0.99),
        )


@dataclass(frozen=True)
class PhoneFigures:
    """The spectators' live streams: phones that got one, and refusals."""

    phones_connected: int
    phone_refusals: int

    @classmethod
    def of(cls, seen: Seen) -> PhoneFigures:
        return cls(phones_connected=seen.phones_connected, phone_refusals=seen.phone_refusals)


@dataclass(frozen=True)
class GuesserFigures:
    """The PIN guessers: their guesses, and the wrong PINs the table judged (not refused 429)."""

    guesses: int
    wrong_pins_judged: int
    wrong_pins_judged_per_min: int  # the most in any 60 s of the run

    @classmethod
    def of(cls, seen: Seen) -> GuesserFigures:
        return cls(
            guesses=seen.guesses,
            wrong_pins_judged=len(seen.judged_at),
            wrong_pins_judged_per_min=_most_in_a_minute(seen.judged_at),
        )


@dataclass(frozen=True)
class HoldingFigures:
    """The clients that hold connections: backlog streams, slow headers, slow bodies, bursts."""

    backlog_streams: int
    slow_connections: int
    slow_bodies: int
    slow_bodies_408: int
    slow_bodies_refused: int
    slow_body_held_max_s: float  # the longest the service let one slow body go on
    stream_bursts: int
    burst_most_streams: int  # of BURST at once from one address

    @classmethod
    def of(cls, seen: Seen) -> HoldingFigures:
        return cls(
            backlog_streams=seen.backlog_streams,
            slow_connections=seen.slow_connections,
            slow_bodies=seen.slow_bodies,
            slow_bodies_408=seen.slow_bodies_408,
            slow_bodies_refused=seen.slow_bodies_refused,
            slow_body_held_max_s=round(max(seen.slow_body_held_s, default=0.0), 1),
            stream_bursts=seen.bursts,
            burst_most_streams=seen.burst_most_streams,
        )


@dataclass(frozen=True)
class RenameFigures:
    """The rename floods: renames sent, accepted and refused (429)."""

    renames_sent: int
    renames_accepted: int
    renames_refused_429: int

    @classmethod
    def of(cls, seen: Seen) -> RenameFigures:
        return cls(
            renames_sent=sum(seen.renames.values()),
            renames_accepted=seen.renames.get(200, 0),
            renames_refused_429=seen.renames.get(429, 0),
        )


@dataclass(frozen=True)
class HostSessionFigures:
    """The host's phone with its session while the guessers guessed."""

    host_requests: int
    host_answered: int  # answered 200: must be all of them

    @classmethod
    def of(cls, seen: Seen) -> HostSessionFigures:
        return cls(host_requests=seen.host_requests, host_answered=seen.host_answered)


@dataclass(frozen=True)
class ProcessFigures:
    """The service's process before the clients came, at their peak, and `after_s` after they
    left: open descriptors, resident memory (MB) and threads."""

    fds_before: int
    fds_during: int
    fds_after: int
    rss_mb_before: float
    rss_mb_during: float
    rss_mb_after: float
    threads_before: int
    threads_during: int
    threads_after: int

    @classmethod
    def of(cls, before: Resources, peak: Resources, after: Resources) -> ProcessFigures:
        during = before.peak(peak)
        return cls(
            fds_before=before.fds,
            fds_during=during.fds,
            fds_after=after.fds,
            rss_mb_before=round(before.rss_mb, 1),
            rss_mb_during=round(during.rss_mb, 1),
            rss_mb_after=round(after.rss_mb, 1),
            threads_before=before.threads,
            threads_during=during.threads,
            threads_after=after.threads,
        )


@dataclass(frozen=True)
class LoadReport:
    """The figures of one run (times in ms, memory in MB), in groups by what they measure."""

    seconds: float
    phones: int
    rate_per_s: int
    hostile: int
    camera: str
    cpus: int
    load_average_1min: float
    status: StatusFigures
    changes: ChangeFigures
    streams: PhoneFigures
    guessers: GuesserFigures
    holding: HoldingFigures
    renames: RenameFigures
    host_session: HostSessionFigures
    process: ProcessFigures
    after_s: float

    @classmethod
    def of(
        cls,
        *,
        seconds: float,
        phones: int,
        rate: int,
        hostile: int,
        camera: str,
        after_s: float,
        seen: Seen,
        timings: Timings,
        process: tuple[Resources, Resources, Resources],  # before, at the peak, after
    ) -> LoadReport:
        """The figures of a run with these settings, from what its clients saw and the probe
        stamped; the machine's CPUs and load average read now."""
        return cls(
            seconds=seconds,
            phones=phones,
            rate_per_s=rate,
            hostile=hostile,
            camera=camera,
            cpus=os.cpu_count() or 0,
            load_average_1min=round(os.getloadavg()[0], 2),
            status=StatusFigures.of(seen),
            changes=ChangeFigures.of(timings),
            streams=PhoneFigures.of(seen),
            guessers=GuesserFigures.of(seen),
            holding=HoldingFigures.of(seen),
            renames=RenameFigures.of(seen),
            host_session=HostSessionFigures.of(seen),
            process=ProcessFigures.of(*process),
            after_s=after_s,
        )

    def to_json(self) -> dict[str, Any]:
        """One flat object: each group's figures in its place, under their own keys."""
        figures: dict[str, Any] = {}
        for part in fields(self):
            value = getattr(self, part.name)
            if is_dataclass(value) and not isinstance(value, type):
                figures.update(asdict(value))
            else:
                figures[part.name] = value
        return figures


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else 0.0


@dataclass(frozen=True)
class Timings:
    """In ms, each (phone, magnet change) once: `first` the first word of it on the phone (a
    square marked as felt, or the verdict), `verdict` the log row the referee wrote for it,
    `judged` that row after the owner began judging (the camera's settling excluded)."""

    first: list[float]
    verdict: list[float]
    judged: list[float]


def change_timings(stamps: Path, seen: Seen) -> Timings:
    """Each magnet change's arrival at each phone, from the probe's stamps: `row <id> <magnet
    s> <judged s>` for a row a settled table wrote, `felt <squares> <magnet s> <s>` for squares
    first shown as felt."""
    rows: dict[int, tuple[float, float]] = {}
    felt: dict[str, list[float]] = {}
    for line in stamps.read_text().splitlines():
        kind, what, magnet, when = line.split()
        if kind == "row":
            rows[int(what)] = (float(magnet), float(when))
        else:
            felt.setdefault(what, []).append(float(magnet))
    first: dict[tuple[int, float], float] = {}
    verdict: list[float] = []
    judged: list[float] = []
    for phone, row, t in seen.arrivals:
        if row in rows:
            at, began = rows[row]
            verdict.append((t - at) * 1000)
            judged.append((t - began) * 1000)
            first[phone, at] = min(first.get((phone, at), t), t)
    for phone, squares, t in seen.felt:
        ats = [at for at in felt.get(squares, ()) if at <= t]
        if ats:
            at = max(ats)  # the latest change felt there before it arrived
            first[phone, at] = min(first.get((phone, at), t), t)
    return Timings([(t - at) * 1000 for (_, at), t in first.items()], verdict, judged)


def _most_in_a_minute(times: list[float]) -> int:
    """The most events within any 60 s (all of them, in a shorter run)."""
    ordered, most, first = sorted(times), 0, 0
    for last, at in enumerate(ordered):
        while at - ordered[first] >= 60.0:
            first += 1
        most = max(most, last - first + 1)
    return most
