"""Camera frames to what lies on each square: calibration, detection, stabilising; knows no game."""
