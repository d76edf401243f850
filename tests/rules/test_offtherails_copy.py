"""Off the Rails' tabletop copy (every snapshot and undo rests on it) copies every field."""

from __future__ import annotations

import dataclasses

import rules
from rules.offtherails.state import OffTheRails
from rules.offtherails.tabletop import Tabletop


def test_copy_keeps_every_field_and_owns_its_containers() -> None:
    state = rules.new_game("offtherails", {"players": 3}, 5)
    assert isinstance(state, OffTheRails)
    tabletop = state._tabletop
    marks: dict[str, object] = {}
    for f in dataclasses.fields(Tabletop):
        value = getattr(tabletop, f.name)
        if isinstance(value, list | dict):
            continue
        marks[f.name] = object()  # a value no default can equal
        setattr(tabletop, f.name, marks[f.name])
    twin = tabletop.copy()
    for f in dataclasses.fields(Tabletop):
        mine, its = getattr(tabletop, f.name), getattr(twin, f.name)
        if f.name in marks:
            assert its is marks[f.name], f.name
        else:
            assert its == mine and its is not mine, f.name  # a new container, same contents
