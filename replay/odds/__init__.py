"""Odds: the rule procedures explored as chance trees (exact, or sampled), outcomes and luck.
It never imports the evidence, and writes nothing."""
