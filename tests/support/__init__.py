"""Helpers the tests share: waiting for a condition, the API over a bare table, a served app."""
