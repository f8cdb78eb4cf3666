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
(``OddsRules.unread``). The record narrows that a hit at a time (``Struck``): during step 6 a
fighter no hit still to resolve is at, and no enemy of the attacker who may yet react can
choose, is hit by nothing left; and once the hit being resolved has wounded, with nothing
later able to reach its target, that target's Flesh Wounds are read only as whether its
Injury dice can take the Toughness to 0 (Resolving Hits 3), so any Toughness above the Flesh
Wounds they can inflict is written alike.

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
    # Narrowed a hit at a time (``Struck``): the command's attacker once its step 6 begins;
    # the targets of the hits still to resolve by the attack now in step 6 (the attacker's,
    # or the first of ``reactors``': then ``reactors`` are those still to come), the one
    # being resolved included; and once that hit has wounded, where no later hit of the
    # attack is at its target, that target (``last``) and the most Flesh Wounds its Injury
    # dice can still inflict. Sets, not the hits in order: a key holds the state as written
    # for each ``Done`` met, so the fewer kinds of it, the fewer states written again.
    attacker: str | None = None
    to_hit: frozenset[str] | None = None
    last: str | None = None
    injuring: int = 0


def _unread_fighter(
    f: FighterState, chose: Collection[str], safe: bool, scarred: bool = False
) -> FighterState:
    """``f`` with what no later step of the command reads written alike: its weapons'
    ammunition once it has chosen weapons in this command (``chose``) or is out of the fight
    (Seriously Injured or Out of Action); its Flesh Wounds and wounds Out of Action, or when
    no attack still to come in this command can hit it (``safe``); its Flesh Wounds alone
    when they are read only as a Toughness no Flesh Wound still to come can bring to 0
    (``scarred``)."""
    gone = f.status == OUT_OF_ACTION
    out = gone or f.status == SERIOUSLY_INJURED
    if not out and not safe and not scarred and f.id not in chose:
        return f
    weapons = f.weapons
    if (out or f.id in chose) and any(w.out_of_ammo for w in weapons):
        weapons = tuple(msgspec.structs.replace(w, out_of_ammo=False) for w in weapons)
    flesh_wounds = wounds = 0
    if not gone and not safe:
        flesh_wounds, wounds = (0 if scarred else f.flesh_wounds), f.wounds
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
    chose: Collection[str] = ()
    injures = True
    to_hit: Collection[str] = ()
    gangs = None  # the gangs that may still attack someone not of their own; None: unknown
    last = None
    if done is not None:
        chose, injures = done.chose, done.injures
        reach = _reach(fighters, done)
        if reach is not None:
            to_hit, gangs = reach
            # The hit being resolved, once it has wounded, reads its target's Flesh Wounds
            # only as whether the Flesh Wounds its Injury dice may still inflict take the
            # Toughness to 0 (Resolving Hits 3): with no later attack able to hit the target,
            # nor a Coup de Grace to roll Injury dice on it, a Toughness above that reads
            # alike.
            last = None if injures else done.last
    alike = {}
    for fid, f in fighters.items():
        free = gangs is not None and (not gangs or (len(gangs) == 1 and f.gang in gangs))
        alike[fid] = _unread_fighter(
            f,
            chose,
            free and fid not in to_hit and not (injures and f.status == SERIOUSLY_INJURED),
            free and fid == last and done is not None and f.toughness > done.injuring,
        )
    if all(alike[fid] is f for fid, f in fighters.items()):
        return state
    return msgspec.structs.replace(state, fighters=alike)


def _reach(fighters: dict[str, FighterState], done: Done) -> tuple[frozenset[str], set[str]] | None:
    """Who an attack still to come in this command can hit: the fighters the hits still to
    resolve are at, and the gangs of whoever may yet attack any fighter not of its own gang
    (each attacks only enemies, N23 CC 4, CC 7; N17 CC 7); None if not known. Before step 7,
    once the attacker's step 6 begins: its hits' targets, and every enemy of the attacker
    that may yet stand to react (Seriously Injured or Out of Action, none stands again within
    the command). In step 7: the reactor now attacking (its hits' targets once its step 6
    begins) and those still to come."""
    to_hit = done.to_hit
    reactors = done.reactors
    if reactors is None:
        if done.attacker is None or to_hit is None:
            return None
        gang = fighters[done.attacker].gang
        may_react = {
            f.gang
            for f in fighters.values()
            if f.gang != gang and f.status not in (SERIOUSLY_INJURED, OUT_OF_ACTION)
        }
        return to_hit, may_react
    if to_hit is None or not reactors:
        return _NOBODY, {fighters[r].gang for r in reactors}
    return to_hit, {fighters[r].gang for r in reactors[1:]}


_NOBODY: frozenset[str] = frozenset()


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
            struck = combat.struck
            reactors = struck.reactors
            if reactors is not None:
                reactors = reactors[struck.reacted :]
            chose = frozenset(combat.chose_weapons)
            to_hit = struck.to_hit
            if to_hit is None:
                return Done(chose, reactors, injures, struck.attacker)
            last, most = None, 0
            if struck.injuring is not None and to_hit[0] not in to_hit[1:]:
                last, most = to_hit[0], struck.injuring
            return Done(
                chose,
                reactors,
                injures,
                struck.attacker,
                frozenset(to_hit),
                last,
                most,
            )
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
