"""Attacking with Two Weapons (Combat): which weapons an attack uses, the +1 ATT of two hand
weapons, and the modified DAM they give the attacker (Melee Combat step 4)."""

from __future__ import annotations

from blowbyblow.domain.core import Context, Modifier, RuleViolation
from blowbyblow.domain.gangfight.rulings import SPARE_WEAPONS, TWO_WEAPON_DAMAGE
from blowbyblow.domain.gangfight.setup import Weapon
from blowbyblow.domain.gangfight.state import GangfightState, fighter, weapon

OFF_HAND = ("shield", "other")


def check_pair(state: GangfightState, ctx: Context, fid: str, carried: list[str]) -> None:
    """GF Two Weapons: "cannot carry a shield, or anything else in their off-hand" besides the
    two (``carried``: what the model carries besides them). A shield or off-hand item always
    forbids it; a spare weapon only under ruling spare-weapons = not-allowed."""
    strict = ctx.ruling(SPARE_WEAPONS) == "not-allowed"
    for other in carried:
        kind = weapon(state, other).kind
        if kind in OFF_HAND:
            raise RuleViolation(
                "GF Two Weapons",
                f"{fid} carries {other!r} in the off-hand and cannot fight with two weapons",
            )
        if strict:
            raise RuleViolation(
                "GF Two Weapons",
                f"{fid} carries {other!r} besides the two and cannot fight with two weapons "
                "(ruling spare-weapons)",
            )


def weapons_used(
    state: GangfightState, ctx: Context, fid: str, names: tuple[str, ...]
) -> tuple[Weapon, ...]:
    """The weapons named for an attack, checked against what the model carries (GF Two
    Weapons: at most two, both hand weapons, and nothing else in the off-hand). Naming none
    uses the first carried weapon that is not a shield or off-hand item (or bare hands)."""
    f = fighter(state, fid)
    if not names:
        for w in f.weapons:
            if weapon(state, w).kind not in OFF_HAND:
                return (weapon(state, w),)
        return ()
    if len(names) > 2:
        raise RuleViolation("GF Two Weapons", f"{fid} cannot attack with {len(names)} weapons")
    carried = list(f.weapons)
    for n in names:
        if n not in carried:
            raise RuleViolation("GF Melee 2", f"{fid} does not carry {n!r} (carries {f.weapons})")
        carried.remove(n)
    used = tuple(weapon(state, n) for n in names)
    for u in used:
        if u.kind in OFF_HAND:
            raise RuleViolation(
                "GF Melee 2", f"{u.id!r} is a {u.kind}, not a weapon to strike with"
            )
    if len(used) == 2:
        for u in used:
            if u.kind != "hand":
                raise RuleViolation(
                    "GF Two Weapons",
                    f"only hand weapons can be paired; {u.id!r} is {u.kind}",
                )
        check_pair(state, ctx, fid, carried)
    return used


def two_weapon_bonus(used: tuple[Weapon, ...]) -> tuple[Modifier, ...]:
    """GF Two Weapons: two hand weapons add +1 ATT to the dice pool."""
    if len(used) == 2:
        return (Modifier(value=1, cause="two hand weapons", rule="GF Two Weapons"),)
    return ()


def damage_modifiers(
    used: tuple[Weapon, ...], ctx: Context, rule: str = "GF Melee 4"
) -> tuple[Modifier, ...]:
    """GF Melee 4 (GF Ranged 7): the Armour roll's TN is the attacker's *modified* DAM: its DAM
    plus the weapon's bonus (with two weapons: ruling two-weapon-damage)."""
    if not used:
        return ()
    if len(used) == 2 and ctx.ruling(TWO_WEAPON_DAMAGE) == "best":
        best = max(used, key=lambda x: x.dam)
    else:
        best = used[0]
    if best.dam == 0:
        return ()
    return (Modifier(value=best.dam, cause=best.name or best.id, rule=rule),)
