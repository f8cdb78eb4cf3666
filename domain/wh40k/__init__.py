"""Warhammer 40,000 2nd edition hand-to-hand combat, game system ``wh40k-2e``.

The rules of the Hand-to-Hand Combat chapter of the Warhammer 40,000 Rulebook (2nd edition,
Games Workshop, 1993): Who Fights, Combat Rounds by Combat Score (Roll Attack Dice, Calculate
Combat Score, Determine the Winner, Resolve Hits & Damage), the Combat Score Modifiers (Fumbles,
Critical Hits, Parrying), Multiple Combat, Breaking Off and Follow-Up Moves, with the charges of
the Movement Phase that start a combat.
"""
