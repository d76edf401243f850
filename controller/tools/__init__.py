"""Tools for setting up a table: doctor and board watch."""
