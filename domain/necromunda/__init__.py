"""necromunda rules (in progress)."""
