"""Limits, the budget that carries work and time through a query, run reports, rounds, progress."""
