"""Battles: the one front door (``Battle``) through which every front end starts, plays, voids,
seals and re-runs battles. The only room that both adjudicates and writes."""
