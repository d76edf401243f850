"""The searches of one judgement share the rules' work: no verdict changes for it."""

from __future__ import annotations

from typing import Any

import pytest

import controller.referee.alerts as alerts_module
import controller.referee.judge as judge_module
from controller.referee.cases import cases
from controller.referee.search import readings
from controller.referee.verdict import VerdictKind


def _alone(*args: Any, **kwargs: Any) -> Any:
    """`readings` with nothing shared between searches."""
    kwargs.pop("shared", None)
    return readings(*args[:6], **kwargs)


@pytest.mark.parametrize(("name", "players", "seed"), [("derailed", 4, 2), ("offtherails", 3, 1)])
def test_verdicts_are_the_same_with_and_without_shared_work(
    name: str, players: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = [(r.kind, r.verdicts, r.recovered) for r in cases(name, players, seed)]
    monkeypatch.setattr(judge_module, "readings", _alone)
    monkeypatch.setattr(alerts_module, "readings", _alone)
    alone = [(r.kind, r.verdicts, r.recovered) for r in cases(name, players, seed)]
    assert shared == alone
    if name == "derailed":  # a round's end seen at once: an alert, tried location by location
        assert any(VerdictKind.ALERT in verdicts for _, verdicts, _ in shared)
