"""Folds over the log: the state of a battle at any position, for every game system (each
system folds one event with its own ``evolve``, in ``domain/<game>/projection.py``)."""
