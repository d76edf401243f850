"""The camera view for the web page: the frame, locations outlined, what was read, as JPEG."""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.geometry import BoardGeometry
from vision.markers import Image
from vision.readings import CalibrationState, LocationState, SettledView

COLOURS = {
    LocationState.EMPTY: (160, 160, 160),
    LocationState.OCCUPIED: (40, 200, 40),
    LocationState.OCCLUDED: (40, 40, 230),
}
MOVING = (0, 210, 255)


def annotate(
    frame: Image,
    board: BoardGeometry,
    calibration: Calibration | None,
    state: CalibrationState,
    view: SettledView | None = None,
    moving: frozenset[str] = frozenset(),
) -> Image:
    """A copy of `frame` with each location outlined (grey empty, green read, red occluded,
    amber moving), the ids and quarter turns read, and the calibration state in a banner."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    readings = view.as_dict() if view is not None else {}
    if calibration is not None and state == CalibrationState.CALIBRATED:
        for r in board.locations:
            corners = np.array([[r.x0, r.y0], [r.x1, r.y0], [r.x1, r.y1], [r.x0, r.y1]])
            poly = calibration.to_image(corners).round().astype(np.int32)
            reading = readings.get(r.name)
            colour = COLOURS[reading.state] if reading else (120, 120, 120)
            if r.name in moving:
                colour = MOVING
            thick = 1 if reading is None or reading.state == LocationState.EMPTY else 2
            cv2.polylines(out, [poly], True, colour, thick, cv2.LINE_AA)
            if reading and reading.markers:
                text = " ".join(f"{m.marker_id}r{m.rotation}" for m in reading.markers)
                x, y = poly[3]
                cv2.putText(out, text, (int(x) + 2, int(y) - 3), cv2.FONT_HERSHEY_PLAIN, 0.8,
                            colour, 1, cv2.LINE_AA)  # fmt: skip
        for quad in calibration.corner_px:
            cv2.polylines(out, [quad.round().astype(np.int32)], True, (255, 160, 0), 2)
    banner = f"calibration: {state.value}"
    if view is not None:
        banner += f"  settled #{view.frame_index}  occluded {len(view.occluded)}"
    cv2.rectangle(out, (0, 0), (out.shape[1], 22), (0, 0, 0), -1)
    cv2.putText(out, banner, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1,
                cv2.LINE_AA)  # fmt: skip
    return out


def to_jpeg(image: Image, quality: int = 80) -> bytes:
    """JPEG bytes for the web page."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"could not encode a {image.shape} image as JPEG")
    return bytes(data.tobytes())
