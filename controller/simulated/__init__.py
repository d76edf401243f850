"""The simulated table: physical pieces, bot players and a synthetic camera, for any machine."""
