"""Sensor-board firmware for the Pico; scan, debounce and protocol also run under CPython."""
