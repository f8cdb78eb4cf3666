"""asl rules (in progress)."""
