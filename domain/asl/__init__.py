"""Advanced Squad Leader chapter A11, Close Combat (ruleset ``asl``), from
shared/seeds/asl-a11-close-combat.txt and section 1 of shared/rules/FACTS.md.

Modules, one concern each: ``units`` (setup and state), ``cct`` (A11.11 Close Combat Table),
``casualty`` (Random Selection, Casualty Reduction, wounds, SW loss), ``resolution`` (one attack
on Personnel), ``ambush`` (A11.4), ``concealment`` (A11.19), ``withdrawal`` (A11.2, A11.21,
A11.22), ``vehicles`` (A11.5-A11.62, A11.8), ``capture`` (A20.22), ``melee`` (A11.15, A11.16),
``phase`` (the CC phase in the rule's order), ``commands``, ``events``, ``rulings``, ``common``.
See docs/rulesets/asl.md.
"""
