"""Warhammer 40,000 2nd edition (1993) hand-to-hand combat (ruleset ``wh40k-2e``).

Modules: ``models`` (setup and state), ``rulings``, ``wounds`` (S-vs-T and saves), ``events``,
``commands``, ``combat`` (the Combat Round, one function per step), ``procedure`` (one per
command), ``narration``. See docs/rulesets/wh40k-2e.md.
"""
