"""Necromunda close combat: the 2023 Core Rulebook (``necromunda-2023``) and the rules before
2023 with the N17 variant (``necromunda-legacy``), from shared/seeds/necromunda-2023-close-combat.md,
shared/seeds/necromunda-legacy-close-combat.md and section 2 of shared/rules/FACTS.md.

One procedure serves both books: ``n23`` has one function per step ("N23 CC 1" … "N23 CC 8",
"N23 Resolve Hits 1-3"), parametrised by an ``Edition`` that holds where the books differ;
``legacy`` is the older book's Edition and rulings. Also ``model`` (setup and state, shared),
``commands``, ``events``, ``narrate``, ``demo``. See docs/rulesets/necromunda-*.md.
"""
