import itertools

import pytest

from firmware_bridge.messages import AckStatus, Hello, RequestSnapshot
from firmware_bridge.reliable import (
    Completion,
    Outcome,
    ReliableSender,
    RetransmitPolicy,
    RtoEstimator,
)

POLICY = RetransmitPolicy(initial_rto_s=0.1, min_rto_s=0.025, max_rto_s=2.0, max_attempts=4)


def _deadline(sender: ReliableSender) -> float:
    """When the request in flight is next due: there is one."""
    deadline = sender.next_deadline()
    assert deadline is not None
    return deadline


def test_rto_follows_rfc6298_and_stays_within_bounds():
    rto = RtoEstimator(POLICY)
    assert rto.rto_s == 0.1
    rto.sample(0.010)  # SRTT 10 ms, RTTVAR 5 ms
    assert rto.rto_s == pytest.approx(0.030)
    rto.sample(0.010)  # RTTVAR 3.75 ms
    assert rto.rto_s == pytest.approx(0.025)
    for _ in range(10):
        rto.back_off()
    assert rto.rto_s == 2.0
    rto.restore()
    assert rto.rto_s == pytest.approx(0.025)


def test_one_command_at_a_time_until_acknowledged():
    sender = ReliableSender(POLICY)
    sender.submit(Hello())
    sender.submit(RequestSnapshot())
    sends, _ = sender.poll(0.0)
    assert [(s.seq, type(s.command)) for s in sends] == [(0, Hello)]
    assert sender.poll(0.05) == ([], [])
    done = sender.acknowledge(0, AckStatus.OK, 0.01)
    assert done is not None and done.outcome is Outcome.ACKED and done.attempts == 1
    sends, _ = sender.poll(0.02)
    assert [(s.seq, type(s.command)) for s in sends] == [(1, RequestSnapshot)]


def test_retransmits_with_backoff_keep_the_sequence_number_then_give_up():
    sender = ReliableSender(POLICY)
    sender.submit(Hello())
    times = []
    now = 0.0
    ended: list[Completion] = []
    while not ended and now < 10:
        sends, ended = sender.poll(now)
        times += [(now, s.seq, s.attempt) for s in sends]
        now = round(now + 0.001, 3)
    assert [t[1] for t in times] == [0, 0, 0, 0]
    gaps = [round(b[0] - a[0], 3) for a, b in itertools.pairwise(times)]
    assert gaps == pytest.approx([0.1, 0.2, 0.4], abs=0.0015)  # each timeout doubles
    assert ended[0].outcome is Outcome.GAVE_UP and ended[0].attempts == 4
    assert sender.retransmits == 3 and sender.idle


def test_stale_ack_is_ignored_and_karn_skips_samples_of_retransmissions():
    sender = ReliableSender(POLICY)
    sender.submit(Hello())
    sender.poll(0.0)
    sender.poll(0.2)  # retransmission
    assert sender.acknowledge(7, AckStatus.OK, 0.21) is None
    rto_before = sender.rto.rto_s
    done = sender.acknowledge(0, AckStatus.OK, 0.25)
    assert done is not None and done.attempts == 2
    assert sender.rto.rto_s <= rto_before  # restored, not sampled from an ambiguous trip


def test_refusal_and_cancellation_are_reported():
    sender = ReliableSender(POLICY)
    sender.submit(Hello())
    sender.submit(RequestSnapshot())
    sender.poll(0.0)
    done = sender.acknowledge(0, AckStatus.VERSION_MISMATCH, 0.01)
    assert done is not None and done.outcome is Outcome.REFUSED
    sender.poll(0.02)
    sender.submit(Hello())
    cancelled = sender.cancel_all()
    assert [c.outcome for c in cancelled] == [Outcome.CANCELLED, Outcome.CANCELLED]
    assert sender.idle


def test_default_timeout_doubles_up_to_250_ms_and_returns_after_an_ack_or_giving_up():
    sender = ReliableSender()  # the documented defaults: 30..250 ms, 100 ms before a sample
    sender.submit(Hello())
    sends, _ = sender.poll(0.0)
    sender.acknowledge(sends[0].seq, AckStatus.OK, 0.004)  # one clean 4 ms round trip
    measured = sender.rto.rto_s
    assert measured == pytest.approx(0.03)  # 4 + 4 x 2 = 12 ms, raised to the 30 ms floor
    sender.submit(Hello())
    now, deadlines = 1.0, []
    sender.poll(now)
    for _ in range(4):
        now = _deadline(sender)
        sender.poll(now)
        deadlines.append(round(_deadline(sender) - now, 3))
    assert deadlines == [0.06, 0.12, 0.24, 0.25]  # doubled, then held at the 250 ms cap
    assert sender._in_flight is not None
    sender.acknowledge(sender._in_flight.seq, AckStatus.OK, now + 0.01)
    assert sender.rto.rto_s == measured  # an ACK after retransmissions: back to the measure
    sender.submit(Hello())
    sender.poll(10.0)
    ended: list[Completion] = []
    while not ended:
        _, ended = sender.poll(_deadline(sender))
    assert ended[0].outcome is Outcome.GAVE_UP and ended[0].attempts == 6
    assert sender.rto.rto_s == measured  # and after giving up
