"""`railtable doctor` checks the venue's broker: reachable, the login, the ACL."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from controller.config import Config
from controller.tools.doctor import check_venue
from controller.venue.broker import Mosquitto, free_port
from controller.venue.settings import Broker
from tests.controller.venue.venue_testkit import settings


def test_the_doctor_logs_in_as_the_table(broker: Mosquitto) -> None:
    finding = check_venue(Config(venue=settings(broker, "table-1")))
    assert finding.ok and "'table-1' logged in" in finding.detail


def test_the_doctor_names_a_wrong_password_and_a_missing_broker(broker: Mosquitto) -> None:
    wrong = dataclasses.replace(settings(broker, "table-1"), password="nope")
    finding = check_venue(Config(venue=wrong))
    assert not finding.ok and "refused user 'table-1'" in finding.detail
    away = dataclasses.replace(wrong, broker=Broker("127.0.0.1", free_port()))
    finding = check_venue(Config(venue=away))
    assert not finding.ok and "cannot reach mqtt://127.0.0.1" in finding.detail


def test_the_doctor_names_an_acl_that_keeps_the_table_out(
    broker: Mosquitto, tmp_path: Path
) -> None:
    posing = settings(broker, "table-2", user="table-1")
    finding = check_venue(Config(venue=posing))
    assert not finding.ok
    assert "ACL refuses a write to railtable/club/tables/table-2/doctor" in finding.detail
    assert check_venue(Config()).ok
