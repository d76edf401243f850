"""The referee: from a settled table and the game's state to one verdict (pure, no I/O)."""
