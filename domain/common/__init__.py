"""Rules arithmetic that more than one game system uses, kept in one place."""
