"""Serial link to the sensor board: frame codec, messages, the reliable link and its thread."""

from firmware_bridge.link import BoardLink, BoardRefused, LinkHealth, LinkStopped
from firmware_bridge.messages import OFF, Color, Occupancy, ProtocolVersionError, Square
from firmware_bridge.session import (
    BoardEvent,
    LinkState,
    LinkStateChanged,
    OccupancyChanged,
    SquareChange,
)

__all__ = [
    "OFF",
    "BoardEvent",
    "BoardLink",
    "BoardRefused",
    "Color",
    "LinkHealth",
    "LinkState",
    "LinkStateChanged",
    "LinkStopped",
    "Occupancy",
    "OccupancyChanged",
    "ProtocolVersionError",
    "Square",
    "SquareChange",
]
