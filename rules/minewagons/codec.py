"""The mine-wagon race's state as JSON and back, and the allow-listed view a seat may see."""

from __future__ import annotations

from typing import Any

from rules.minewagons.components import SHAPES, Board, Colour, Shape, Tile, exits_mask, exits_text
from rules.minewagons.position import Phase, Position

JsonDict = dict[str, Any]


def _tile_json(tile: Tile) -> JsonDict:
    if tile.shape is None:
        return {"colour": tile.colour.value, "face_down": True}
    return {"colour": tile.colour.value, "shape": tile.shape.value, "exits": exits_text(tile.exits)}


def _tile_from(data: JsonDict) -> Tile:
    colour = Colour(data["colour"])
    if data.get("face_down"):
        return Tile(colour)
    return Tile(colour, Shape(data["shape"]), exits_mask(str(data["exits"])))


def _counts(counts: dict[Shape, int]) -> JsonDict:
    return {s.value: counts.get(s, 0) for s in SHAPES}


def state_json(board: Board, seats: tuple[Colour, ...], pos: Position) -> JsonDict:
    """Everything that defines the position (the base class adds game, options and seed)."""
    names = board.names
    return {
        "phase": pos.phase.value,
        "active": pos.seat,
        "turn": pos.turn,
        "actions_left": pos.actions_left,
        "wagon_used": pos.wagon_used,
        "used": sorted(names[sq] for sq in pos.used),
        "rotated": sorted(names[sq] for sq in pos.rotated),
        "returned": pos.returned,
        "scored": pos.scored,
        "quiet_turns": pos.quiet_turns,
        "board": {names[sq]: _tile_json(t) for sq, t in enumerate(pos.tiles) if t is not None},
        "wagons": {names[sq]: c.value for sq, c in sorted(pos.wagons.items())},
        "rock": names[pos.rock] if pos.rock is not None else None,
        "rock_moved": pos.rock_moved,
        "players": [
            {
                "colour": seats[seat].value,
                "start": pos.start[seat],
                "goal": pos.goal[seat],
                "to_place": _counts(pos.to_place[seat]),
            }
            for seat in range(len(seats))
        ],
        "green": {"to_lay": pos.green_to_lay, "face_down": _counts(pos.face_down)},
        "pending": names[pos.pending] if pos.pending is not None else None,
        "winners": list(pos.winners),
        "end_reason": pos.end_reason,
        "scores": [float(g) for g in pos.goal],
    }


def position_from_json(board: Board, data: JsonDict) -> Position:
    """Rebuild a position from `state_json`; KeyError or ValueError names what is wrong."""
    players = data["players"]
    pos = Position(len(board.names), len(players))
    pos.phase = Phase(data["phase"])
    pos.seat = int(data["active"])
    pos.turn = int(data["turn"])
    pos.actions_left = int(data["actions_left"])
    pos.wagon_used = bool(data["wagon_used"])
    pos.used = frozenset(board.square(n) for n in data["used"])
    pos.rotated = frozenset(board.square(n) for n in data["rotated"])
    pos.returned = int(data["returned"])
    pos.scored = bool(data["scored"])
    pos.quiet_turns = int(data["quiet_turns"])
    for name, tile in data["board"].items():
        pos.tiles[board.square(name)] = _tile_from(tile)
    pos.wagons = {board.square(n): Colour(c) for n, c in data["wagons"].items()}
    pos.rock = board.square(data["rock"]) if data["rock"] is not None else None
    pos.rock_moved = bool(data["rock_moved"])
    for seat, player in enumerate(players):
        pos.start[seat] = int(player["start"])
        pos.goal[seat] = int(player["goal"])
        pos.to_place[seat] = {Shape(k): int(v) for k, v in player["to_place"].items()}
    pos.green_to_lay = int(data["green"]["to_lay"])
    pos.face_down = {Shape(k): int(v) for k, v in data["green"]["face_down"].items()}
    pos.pending = board.square(data["pending"]) if data["pending"] is not None else None
    pos.winners = tuple(int(w) for w in data["winners"])
    pos.end_reason = str(data["end_reason"])
    return pos


# What any seat (or a spectator) may see: the table, the turn, the counts. Which shape lies under
# each face-down green tile is known to nobody, so the hidden counts are given only as a total.
VIEW_KEYS = (
    "phase",
    "active",
    "turn",
    "actions_left",
    "wagon_used",
    "used",
    "rotated",
    "returned",
    "quiet_turns",
    "board",
    "wagons",
    "rock",
    "players",
    "pending",
    "winners",
    "end_reason",
    "scores",
    "current_player",
)


def view_json(full: JsonDict) -> JsonDict:
    """What any seat may see of `state_json` output, built from the allow-list above."""
    out = {key: full[key] for key in VIEW_KEYS}
    out["green"] = {
        "to_lay": full["green"]["to_lay"],
        "face_down": sum(full["green"]["face_down"].values()),
    }
    return out
