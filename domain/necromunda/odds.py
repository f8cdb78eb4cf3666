"""What the odds count in Necromunda (both books): the tallies, the scale of statuses, and the
rolls whose order the rules ignore.

Order-insensitive: each Hit roll die is a hit or a miss and the hits are numbered in turn (N23 CC
step 2); a Nerve test is the sum of its 2D6. Injury dice are applied in order, so they are not.

What no later step reads (``unread``): a weapon's ammunition is read when its fighter chooses
the weapons for an attack (step 2, ``weapon_choices``, ``choose_weapons``), which only a Standing
fighter makes, once a command (the charger's attack, each Reaction attack: ``Combat`` records
who has), and within a command no Seriously Injured or Out of Action fighter stands again;
Flesh Wounds are read as Toughness by a Wound roll or a Flesh Wound against the fighter, and a
hit on a fighter Out of Action is lost unread (N23 CC 6), and once the attacker's own hits are
resolved no attack is left that can hit a fighter neither Seriously Injured nor an enemy of
anyone who then reacts (``Struck``: N23 CC 4, 7 and 8). The odds' outcome shows neither (a
fighter's status, wounds lost and Broken). Such a fighter's wounds, and an Out of Action
fighter's, are written alike too: only a hit on it reads or changes them (N23 CC 6, Resolving
Hits); the outcome shows them as wounds lost, which the odds take from each branch's own state
(``OddsRules.unread``).

Rolls nothing the odds see reads (``unread_rolls``): the older rules' Firepower dice and Ammo
check of a pistol in close combat only mark it out of ammo (N17 CC Pistols at Close Quarters);
the ammunition is read when a fighter chooses weapons, which it has done for this command by
then (step 2 before step 5), and one ``AmmoChecked`` is recorded either way."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NamedTuple

import msgspec

from blowbyblow.domain.necromunda.combat import Attack, Combat
from blowbyblow.domain.necromunda.events import (
    CoupDeGrace,
    HitRolled,
    SaveRolled,
    StatusChanged,
    WoundRolled,
)
from blowbyblow.domain.necromunda.rulings import COUP_DE_GRACE_EFFECT
from blowbyblow.domain.necromunda.state import (
    OUT_OF_ACTION,
    SERIOUSLY_INJURED,
    FighterState,
    NecromundaState,
)
from blowbyblow.domain.system import Count, OddsRules, Tally


class Done(NamedTuple):
    """What the command's record says is done (``OddsRules.done``): who has chosen weapons in
    it (``Combat.chose_weapons``), and, once its attacker's own hits are resolved, who then
    makes Reaction attacks (``Struck.reactors``; None before); and whether a Coup de Grace
    rolls Injury dice (ruling ``coup-de-grace-effect`` at ``injury-dice``, which read the
    target's Flesh Wounds), not Out of Action at once."""

    chose: frozenset[str]
    reactors: tuple[str, ...] | None = None
    injures: bool = True


def _unread_fighter(f: FighterState, chose: Collection[str], safe: bool) -> FighterState:
    """``f`` with what no later step of the command reads written alike: its weapons'
    ammunition once it has chosen weapons in this command (``chose``) or is out of the fight
    (Seriously Injured or Out of Action); its Flesh Wounds and wounds Out of Action, or when
    no attack still to come in this command can hit it (``safe``)."""
    gone = f.status == OUT_OF_ACTION
    out = gone or f.status == SERIOUSLY_INJURED
    if not out and not safe and f.id not in chose:
        return f
    weapons = f.weapons
    if (out or f.id in chose) and any(w.out_of_ammo for w in weapons):
        weapons = tuple(msgspec.structs.replace(w, out_of_ammo=False) for w in weapons)
    flesh_wounds = wounds = 0
    if not gone and not safe:
        flesh_wounds, wounds = f.flesh_wounds, f.wounds
    if weapons is f.weapons and flesh_wounds == f.flesh_wounds and wounds == f.wounds:
        return f
    return msgspec.structs.replace(f, weapons=weapons, flesh_wounds=flesh_wounds, wounds=wounds)


def unread(state: NecromundaState, done: Done | None) -> NecromundaState:
    """The state as the rest of a command reads it (``OddsRules.unread``), given what the
    command's record says is done (``done``). Once the attacker's hits are resolved, the only
    attacks left are the Reaction attacks, each at an enemy of its maker (N23 CC 4, CC 7; N17
    CC 7: at the attacker), and step 8's Coup de Grace, at a Seriously Injured fighter (N23 /
    N17 CC 8): a fighter that is neither, with no enemy among those who react, is hit by none.
    Where a Coup de Grace takes its target Out of Action at once (the default ruling, the 2017
    wording), it reads nothing of the target but its status: a Seriously Injured fighter with
    no enemy among those who react is then read by none either."""
    fighters = state.fighters
    chose: Collection[str] = () if done is None else done.chose
    reactors = None if done is None else done.reactors
    hit_by = None if reactors is None else {fighters[r].gang for r in reactors}
    injures = done is None or done.injures
    alike = {
        fid: _unread_fighter(
            f,
            chose,
            hit_by is not None
            and not (injures and f.status == SERIOUSLY_INJURED)
            and hit_by <= {f.gang},
        )
        for fid, f in fighters.items()
    }
    if all(alike[fid] is f for fid, f in fighters.items()):
        return state
    return msgspec.structs.replace(state, fighters=alike)


def done(held: list[Any]) -> Done | None:
    """What the command's record (``Combat``) that the continuation holds, itself or in an
    attack, says is done (``OddsRules.done``); None if it holds none (then only the
    ammunition of fighters out of the fight and the Flesh Wounds of those Out of Action are
    written alike)."""
    for v in held:
        kind = type(v)
        combat = v if kind is Combat else v.combat if kind is Attack else None
        if combat is not None:
            injures = combat.ctx.ruling(COUP_DE_GRACE_EFFECT) == "injury-dice"
            return Done(frozenset(combat.chose_weapons), combat.struck.reactors, injures)
    return None


ODDS = OddsRules(
    tallies=(
        Tally("hits", (Count(HitRolled, lambda e: int(e.hit), by=lambda e: e.attacker),)),
        Tally("wounds", (Count(WoundRolled, lambda e: int(e.wounded), by=lambda e: e.attacker),)),
        Tally(
            "unsaved", (Count(SaveRolled, lambda e: int(not e.saved), against=lambda e: e.target),)
        ),
        Tally(
            "seriously injured",
            (
                Count(
                    StatusChanged,
                    lambda e: int(e.after == "Prone & Seriously Injured"),
                    against=lambda e: e.fighter,
                ),
            ),
        ),
        Tally(
            "out of action",
            (
                Count(
                    StatusChanged,
                    lambda e: int(e.after == "Out of Action"),
                    against=lambda e: e.fighter,
                ),
            ),
        ),
        Tally("coups de grace", (Count(CoupDeGrace, lambda e: 1, by=lambda e: e.fighter),)),
    ),
    severity={
        "Prone & Pinned": 1,
        "Prone & Seriously Injured": 2,
        "Out of Action": 3,
        "Wrecked": 3,
    },
    flag_severity={"Broken": 1},
    order_insensitive=("hit/*", "*/hit/*", "nerve/*", "*/nerve/*"),
    unread=unread,
    done=done,
    # The older rules' pistol in close combat: its Firepower dice and Ammo check only mark it
    # out of ammo (N17 CC Pistols at Close Quarters), which its fighter, having chosen its
    # weapons for this command (step 2), reads no more in it; one AmmoChecked either way.
    unread_rolls=("firepower/*", "*/firepower/*", "ammo/*", "*/ammo/*"),
)

__all__ = ["ODDS"]
