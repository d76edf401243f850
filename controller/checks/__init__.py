"""Checks of the referee from outside: table scenarios (docs/scenarios.md) and the bench cases."""
