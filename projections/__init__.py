"""Folds over the log, ``evolve(state, event) -> state``, one module per game system."""
