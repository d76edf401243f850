"""Pure rules engines for the table's games, behind one State interface (see rules.core)."""
