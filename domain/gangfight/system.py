"""The Gangfight binding: rules from ``blowbyblow.domain.gangfight``, folds from
``blowbyblow.domain.gangfight.projection``, plain-words narration and a demo battle."""

from __future__ import annotations

from typing import Any

from blowbyblow.domain.core import Event, Modifier
from blowbyblow.domain.gangfight import events as ev
from blowbyblow.domain.gangfight.commands import (
    COMMAND_TYPES,
    Fight,
    GangfightCommand,
    Move,
    NewTurn,
    PowerAttack,
    StandUp,
)
from blowbyblow.domain.gangfight.procedure import procedure
from blowbyblow.domain.gangfight.profiles import (
    Fighter,
    GangfightSetup,
    GapSpec,
    Profile,
    Weapon,
    validate_setup,
)
from blowbyblow.domain.gangfight.projection import evolve
from blowbyblow.domain.gangfight.rulings import RULINGS
from blowbyblow.domain.gangfight.state import GangfightState, fighter, initial_state
from blowbyblow.domain.system import GameSystem, Rulebook, Scenario


def _mods(mods: tuple[Modifier, ...]) -> str:
    return "".join(f", {m.value:+d} {m.cause} ({m.rule})" for m in mods)


def _test(t: ev.PoolTest, pool_name: str, tn_name: str) -> str:
    words = f"{t.pool} dice ({pool_name} {t.pool_base}{_mods(t.pool_modifiers)})"
    words += f" against {tn_name} {t.tn_base}{_mods(t.tn_modifiers)}: TN {t.tn}+"
    if t.dropped_forced:
        words += f"; {t.dropped_forced} dropped to bring it to 6"
    if t.dropped_chosen:
        words += f"; {t.dropped_chosen} more dropped to lower it"
    if t.sixes_only:
        words += "; it cannot be brought to 6, so only 6s succeed"
    if not t.may_drop:
        words += " (no dice may be dropped)"
    if t.dice == 0:
        return words + "; no dice left to roll: 0 successes"
    rolled = " ".join(str(v) for v in t.natural)
    words += f"; {t.dice} rolled at {t.final_tn}+: {rolled} = {t.successes} success(es)"
    if t.criticals:
        words += f", {t.criticals} Critical Success(es)"
    return words


def narrate(event: Event) -> str | None:
    match event:
        case ev.TurnStarted():
            return f"{event.rule}: turn {event.turn} begins; every model in the fight has IV action points."
        case ev.ActionPointsSpent():
            return (
                f"{event.rule}: {event.fighter} spends {event.cost} AP on {event.action} "
                f"({event.before} -> {event.after})."
            )
        case ev.InThreatRange():
            return (
                f'{event.rule}: {event.target} is {event.inches}" from {event.attacker}, '
                f'within its threat range of {event.threat}".'
            )
        case ev.AttackRolled():
            weapons = "+".join(event.weapons) or "bare hands"
            return (
                f"{event.rule}: {event.attacker} makes a {event.attack} attack on {event.target} "
                f"with {weapons}: {_test(event.test, 'ATT', 'DEF')}."
            )
        case ev.WoundsInflicted():
            words = f"{event.rule}: {event.successes} success(es): {event.wounds} Wound(s) on {event.target}"
            if event.effect:
                words += f", {event.effect} to the attack's effect"
            return words + "."
        case ev.ArmourRolled():
            dam = "the fall's Damage" if event.against == "fall" else f"{event.against}'s DAM"
            return (
                f"{event.rule}: {event.fighter} rolls Armour against {event.wounds} Wound(s): "
                f"{_test(event.test, 'ARM', dam)}."
            )
        case ev.WoundsNegated():
            return (
                f"{event.rule}: {event.negated} of {event.wounds} Wound(s) negated; "
                f"{event.remaining} remain on {event.fighter}."
            )
        case ev.WoundsApplied():
            return (
                f"{event.rule}: {event.fighter} takes {event.wounds} Wound(s) off EN {event.en} "
                f"({event.after} sustained, {event.en_left} left)."
            )
        case ev.Incapacitated():
            return (
                f"{event.rule}: {event.fighter} is Incapacitated ({event.wounds} wounds, EN "
                f"{event.en}, ruling incapacitation={event.ruling}): replaced by a token."
            )
        case ev.Killed():
            return (
                f"{event.rule}: {event.fighter} took {event.wounds} Wound(s) while Incapacitated "
                "and is Dead."
            )
        case ev.KnockedBack():
            return (
                f'{event.rule}: {event.fighter} is knocked back {event.inches}" by {event.by} '
                f'({event.gap_before}" -> {event.gap_after}" apart).'
            )
        case ev.KnockedDown():
            return f"{event.rule}: {event.fighter} is knocked down: Prone (DEF 2)."
        case ev.Disengaged():
            return (
                f'{event.rule}: {event.fighter} moves {event.inches}" of {event.allowed}" away from '
                f'{event.from_fighter} ({event.gap_before}" -> {event.gap_after}"), no Free Strike.'
            )
        case ev.FreeStrike():
            return f"{event.rule}: {event.striker} makes a Free Strike on {event.target} ({event.reason})."
        case ev.FreeStrikeDeclined():
            return (
                f"{event.rule}: {event.striker} makes no Free Strike on {event.target} "
                f"({event.reason})."
            )
        case ev.Slammed():
            return (
                f"{event.rule}: {event.attacker} ({event.attacker_size}) slams {event.target} "
                f"({event.target_size}){_mods(event.modifiers)}."
            )
        case ev.SlamTreatedAsTrample():
            return (
                f"{event.rule}: {event.target} ({event.target_size}) is smaller than "
                f"{event.attacker} ({event.attacker_size}): the Slam! is a Trample instead."
            )
        case ev.Trampled():
            return (
                f"{event.rule}: {event.attacker} tramples {', '.join(event.targets)}: TN lowered "
                f"by {event.level} at {event.dropped} dice; {event.pool} dice against each."
            )
        case ev.FallingDamage():
            return (
                f'{event.rule}: {event.fighter} ({event.size}, {event.height_half_inches / 2:g}" '
                f'tall) falls {event.inches}": {event.hits} Damage {event.damage} hit(s).'
            )
        case ev.StoodUp():
            return f"{event.rule}: {event.fighter} stands up."
        case ev.Moved():
            gaps = ", ".join(f'{g.a}-{g.b} {g.inches}"' for g in event.gaps) or "no gaps changed"
            return f'{event.rule}: {event.fighter} moves {event.inches}" ({gaps}).'
    return None


def describe_state(state: Any) -> str:
    assert isinstance(state, GangfightState)
    lines = [f"Gangfight, turn {state.turn}"]
    for s in state.fighters:
        f = fighter(state, s.id)
        p = f.profile
        posture = ", Prone" if s.prone else ""
        lines.append(
            f"  {s.id} ({f.name or f.id}; {f.side}, {f.size}): {s.condition}{posture}; "
            f"wounds {s.wounds}/EN {p.en} ({p.en - s.wounds} left); AP {s.ap}; "
            f'ATT {p.att} DEF {p.defense} ARM {p.arm} DAM {p.dam}; threat {f.threat}"'
        )
    if state.gaps:
        lines.append("  gaps (inches between bases; * = within a threat range):")
        for g in state.gaps:
            locked = (
                g.inches <= fighter(state, g.a).threat or g.inches <= fighter(state, g.b).threat
            )
            lines.append(f'    {g.a} - {g.b}: {g.inches}"{" *" if locked else ""}')
    return "\n".join(lines)


# --- the demo battle ---------------------------------------------------------------------------

WEAPONS = (
    Weapon(id="sword", name="Sword", kind="hand", dam=0),
    Weapon(id="axe", name="Axe", kind="hand", dam=1),
    Weapon(id="great-axe", name="Double Handed Weapon", kind="double-handed", dam=2),
    Weapon(id="shield", name="Shield", kind="shield"),
)


def demo_setup() -> GangfightSetup:
    """Human profiles from FACTS G1; the Orc Brave's profile is not in the seed (its ARM 4 and
    DAM 6 with a double-handed weapon are), so the rest is assumed."""
    return GangfightSetup(
        weapons=WEAPONS,
        fighters=(
            Fighter(
                id="veteran",
                name="Human Veteran",
                side="humans",
                profile=Profile(mov=4, att=3, mrk=3, defense=4, iv=3, wp=4, arm=3, en=4, dam=4),
                weapons=("sword", "axe"),
            ),
            Fighter(
                id="regular",
                name="Human Regular",
                side="humans",
                profile=Profile(mov=4, att=3, mrk=3, defense=4, iv=3, wp=3, arm=3, en=3, dam=4),
                weapons=("sword", "shield"),
            ),
            Fighter(
                id="brave",
                name="Orc Brave",
                side="orcs",
                profile=Profile(mov=4, att=4, mrk=2, defense=4, iv=3, wp=3, arm=4, en=4, dam=4),
                weapons=("great-axe",),
            ),
        ),
        gaps=(
            GapSpec(a="veteran", b="brave", inches=0),
            GapSpec(a="regular", b="brave", inches=1),
        ),
    )


# fmt: off
DEMO_DICE = [
    6, 5, 4, 2,  # 1. veteran Fight! with sword and axe: 4 dice at 4+
    5, 3, 2, 1,  #    brave's Armour: 4 dice against DAM 4 +1 (axe) = 5+
    5, 4, 3, 1,  # 2. brave's Power Attack on the veteran: 4 dice at 4+
    6, 4, 4, 1,  # 3. regular walks away: the brave's Free Strike, 4 dice at 4+, no dropping
    6, 2, 3,     #    regular's Armour: 3 dice against DAM 4 +2 (Double Handed Weapon) = 6+
    6, 6, 5, 4,  # 7. veteran Fight! again, two weapons: 4 dice at 4+
    5, 2, 3, 1,  #    brave's Armour at 5+
]
# fmt: on


def demo() -> Scenario[GangfightSetup, GangfightCommand]:
    """A short fight: a two-weapon Fight!, a Power Attack with knock-back, a Free Strike as the
    Regular walks away, the Veteran standing up and Incapacitating the Orc."""
    return Scenario[GangfightSetup, GangfightCommand](
        ruleset="gangfight",
        label="Gangfight demo: the Veteran and the Regular against an Orc Brave",
        setup=demo_setup(),
        commands=[
            Fight(attacker="veteran", target="brave", weapons=("sword", "axe")),
            PowerAttack(attacker="brave", target="veteran"),
            Move(fighter="regular", inches=3, to={"brave": 4}),
            NewTurn(),
            StandUp(fighter="veteran"),
            Move(fighter="veteran", inches=2, to={"brave": 0}),
            Fight(attacker="veteran", target="brave", weapons=("sword", "axe")),
        ],
        dice=list(DEMO_DICE),
    )


GAME_SYSTEM = GameSystem(
    id="gangfight",
    game="gangfight",
    version="1.0",
    title="Gangfight: Combat (melee, special attacks, Slam!/Trample, falling)",
    rulebook=Rulebook(title="Gangfight rules (gangfightgames.com), Combat"),
    rulings=RULINGS,
    setup_type=GangfightSetup,
    command_types=COMMAND_TYPES,
    event_types=ev.EVENT_TYPES,
    state_type=GangfightState,
    initial_state=initial_state,
    evolve=evolve,
    procedure=procedure,
    narrate=narrate,
    describe_state=describe_state,
    demo=demo,
    validate_setup=validate_setup,
)
