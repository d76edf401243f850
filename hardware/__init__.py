"""Sensor-board firmware and hardware documents; the firmware logic runs under CPython too."""
