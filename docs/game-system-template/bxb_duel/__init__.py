"""Duel: a made-up melee between two fighters, the template game system of blowbyblow.

The rules are the short rulebook "Duel: rules for two fighters" (RULES.md, sections D1 to D4):
turns, guard and rising (D1), the to-hit roll with its modifiers (D2), wounds and telling blows
(D3), out of action (D4). The game system's id is ``duel``.

copy me: say which game and which published rulebook (title, edition) your system implements.
"""
