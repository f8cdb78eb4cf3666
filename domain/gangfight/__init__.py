"""Gangfight close combat (gangfightgames.com), from the "Combat" chapter in
shared/seeds/gangfight-combat.txt and section 4 of shared/rules/FACTS.md.

Sections are cited as the seed names them: "GF Melee 1" … "GF Melee 6" are the numbered steps of
Melee Combat; the unnumbered sections are cited by their heading ("GF Armour", "GF Wounds",
"GF Incapacitation", "GF Power Attacks", "GF Finesse Attacks", "GF Two Weapons", "GF Falling",
"GF Free Strikes", "GF Slam!", "GF Trample" (the Trample paragraphs of Slam!), "GF Knocked Down");
FACTS.md's own labels are "G1" (attributes) to "G5" (setup).

Modules, one concern each: ``profiles`` (the setup: attributes, sizes, weapons), ``state``,
``rulings``, ``events``, ``commands``, ``pool`` (the one dice-pool test every roll uses),
``weapons`` (which weapons an attack uses, two weapons, modified DAM), ``action_points``,
``melee`` (GF Melee 1-6, wounds, incapacitation, death), ``special`` (two weapons, power and
finesse attacks, free strikes, Slam! and Trample, knocked down), ``falling``, ``actions`` (action
points, moving, standing up) and ``procedure`` (which command runs which steps).
"""
