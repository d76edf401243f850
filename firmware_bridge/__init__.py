"""Serial link to the sensor board: frame codec, messages, reliable link, virtual board."""

from firmware_bridge.link import BoardLink, LinkHealth
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
    "Color",
    "LinkHealth",
    "LinkState",
    "LinkStateChanged",
    "Occupancy",
    "OccupancyChanged",
    "ProtocolVersionError",
    "Square",
    "SquareChange",
]
