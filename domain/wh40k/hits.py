"""Hand-to-Hand Combat, Combat Rounds, step 4: Resolve Hits & Damage.

"The losing model sustains the number of hits scored by the winner. For each hit, Damage and
Armour Saves are worked out as normal. When resolving damage, the winner may attack using any
Close Combat weapon they are equipped with; if they do not have any Close Combat weapons, they
attack using their own Strength instead." Each hit: a wound roll (ruling to-wound-chart), an
armour save (rulings strength-save-modifier, save-natural-one), the wounds lost; the loser is
slain at 0 wounds and the hits left are not resolved. The arithmetic is in ``wounds``.
"""

from __future__ import annotations

from dataclasses import dataclass

from blowbyblow.domain.core import Context, Label, Modifier, ask, emit, numbered, roll
from blowbyblow.domain.wh40k.combat_round import CombatRound, Gen
from blowbyblow.domain.wh40k.events import (
    HitsScored,
    ModelSlain,
    NoSave,
    SaveRolled,
    WoundChart,
    WoundRolled,
    WoundsLost,
)
from blowbyblow.domain.wh40k.rulebook import RULE_HITS
from blowbyblow.domain.wh40k.rulings import (
    SAVE_NATURAL_ONE,
    STRENGTH_SAVE_MODIFIER,
    TO_WOUND_CHART,
)
from blowbyblow.domain.wh40k.setup import Weapon, parse_damage
from blowbyblow.domain.wh40k.state import Wh40kState
from blowbyblow.domain.wh40k.wounds import save_target, strength_save_modifier, to_wound_target

# --- the winner's weapon ------------------------------------------------------------------------


def weapon_strength(state: Wh40kState, model: str, weapon: Weapon | None) -> int:
    s = state.profile(model).s
    if weapon is None:
        return s
    if weapon.strength is None:
        return s + weapon.strength_bonus
    return weapon.strength


def save_modifier_value(strength: int, weapon: Weapon | None, ctx: Context) -> int:
    """The hit's save modifier: the weapon's own, or from Strength (ruling
    strength-save-modifier) for 'as user' weapons and a model's own Strength."""
    if weapon is not None and weapon.save_modifier is not None:
        return weapon.save_modifier
    if ctx.ruling(STRENGTH_SAVE_MODIFIER) == "by-strength":
        return strength_save_modifier(strength)
    return 0


def save_modifier(state: Wh40kState, model: str, weapon: Weapon | None, ctx: Context) -> Modifier:
    """``save_modifier_value`` with its cause, as the hits record it."""
    strength = weapon_strength(state, model, weapon)
    value = save_modifier_value(strength, weapon, ctx)
    if weapon is not None and weapon.save_modifier is not None:
        return Modifier(value=value, cause=f"{weapon.label} save modifier", rule=RULE_HITS)
    by_strength = ctx.ruling(STRENGTH_SAVE_MODIFIER) == "by-strength"
    return Modifier(
        value=value,
        cause=f"Strength {strength}" if by_strength else f"Strength {strength}: no modifier",
        rule=f"{RULE_HITS} (ruling strength-save-modifier)",
    )


def _weapon_rank(state: Wh40kState, model: str, weapon: Weapon, ctx: Context) -> tuple[int, ...]:
    fixed, n, sides = parse_damage(weapon.damage)
    average_damage_x2 = 2 * fixed + n * (sides + 1)
    strength = weapon_strength(state, model, weapon)
    return strength, -save_modifier_value(strength, weapon, ctx), average_damage_x2


def choose_weapon(state: Wh40kState, rnd: CombatRound, winner: str) -> Gen:
    """The winner may use any Close Combat weapon it has (ask ``<pair>/weapon/<model>``, default
    the highest Strength, then save modifier, then damage); with none it uses its own Strength.
    Returns the Weapon or None."""
    cc = state.close_combat_weapons(winner)
    if not cc:
        return None
    if len(cc) == 1:
        return cc[0]
    best = cc[0]
    for w in cc[1:]:
        if _weapon_rank(state, winner, w, rnd.ctx) > _weapon_rank(state, winner, best, rnd.ctx):
            best = w
    answer = yield from ask(
        rnd.key("weapon", winner),
        tuple(w.id for w in cc),
        default=best.id,
        prompt=f"{winner}: which weapon strikes {rnd.opponent(winner)}?",
    )
    return next((w for w in cc if w.id == answer), best)


# --- one hit --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strike:
    """The hits of one Combat Round: who strikes whom, with what, at what Strength and save
    modifier (the same for every hit: ``HitsScored`` records them)."""

    rnd: CombatRound
    winner: str
    loser: str
    weapon: Weapon | None
    strength: int
    save_modifier: Modifier

    def key(self, hit: Label, what: str) -> str:
        return self.rnd.key("hit", str(hit), what)


def roll_to_wound(state: Wh40kState, strike: Strike, hit: Label) -> Gen:
    """Strength against Toughness (ruling to-wound-chart); no die when the hit cannot wound.
    Returns (state, wounded)."""
    chart: WoundChart = (
        "ratio" if strike.rnd.ctx.ruling(TO_WOUND_CHART) == "ratio" else "difference"
    )
    strength = strike.strength
    toughness = state.profile(strike.loser).t
    needed = to_wound_target(strength, toughness, chart)
    natural: int | None = None
    if needed is not None:
        (natural,) = yield from roll(
            strike.key(hit, "wound"), 1, 6, purpose=f"to wound {strike.loser} (hit {hit})"
        )
    wounded = needed is not None and natural is not None and natural >= needed
    state = yield from emit(
        WoundRolled(
            rule=f"{RULE_HITS} (ruling to-wound-chart)",
            attacker=strike.winner,
            target=strike.loser,
            hit=hit.number,
            natural=natural,
            strength=strength,
            toughness=toughness,
            chart=chart,
            needed=needed,
            wounded=wounded,
        ),
        Wh40kState,
    )
    return state, wounded


def roll_save(state: Wh40kState, strike: Strike, hit: Label) -> Gen:
    """The loser's armour save with the hit's save modifier (ruling save-natural-one); none when
    it has no save or the modifier takes it beyond 6+. Returns (state, saved)."""
    loser = strike.loser
    mod = strike.save_modifier
    armour = state.profile(loser).save
    natural_one_fails = strike.rnd.ctx.ruling(SAVE_NATURAL_ONE) == "fails"
    target = save_target(armour, mod.value, natural_one_fails)
    if armour is None or target is None:
        state = yield from emit(
            NoSave(
                rule=RULE_HITS,
                model=loser,
                hit=hit.number,
                save=armour,
                modifier=mod,
                reason="no armour save" if armour is None else "save modified beyond 6+",
            ),
            Wh40kState,
        )
        return state, False
    (natural,) = yield from roll(
        strike.key(hit, "save"), 1, 6, purpose=f"armour save of {loser} (hit {hit})"
    )
    saved = natural >= target
    state = yield from emit(
        SaveRolled(
            rule=f"{RULE_HITS} (ruling save-natural-one)",
            model=loser,
            hit=hit.number,
            natural=natural,
            save=armour,
            modifier=mod,
            needed=target,
            saved=saved,
        ),
        Wh40kState,
    )
    return state, saved


def lose_wounds(state: Wh40kState, strike: Strike, hit: Label) -> Gen:
    """An unsaved wound takes the weapon's Damage (rolled when it is a dice expression); at 0
    wounds the loser is slain. Returns the state."""
    loser = strike.loser
    weapon = strike.weapon
    fixed, n, sides = parse_damage(weapon.damage if weapon is not None else 1)
    damage_dice: tuple[int, ...] = ()
    if n:
        damage_dice = yield from roll(
            strike.key(hit, "damage"), n, sides, purpose=f"damage to {loser} (hit {hit})"
        )
    damage = fixed + sum(damage_dice)
    before = state.models[loser].wounds
    left = max(0, before - damage)
    state = yield from emit(
        WoundsLost(
            rule=RULE_HITS,
            model=loser,
            hit=hit.number,
            damage=damage,
            damage_dice=damage_dice,
            wounds_before=before,
            wounds_left=left,
        ),
        Wh40kState,
    )
    if left == 0:
        state = yield from emit(
            ModelSlain(rule=RULE_HITS, model=loser, by=strike.winner), Wh40kState
        )
    return state


def resolve_one_hit(state: Wh40kState, strike: Strike, hit: Label) -> Gen:
    """One hit: wound roll, armour save, wounds lost. Returns the state."""
    state, wounded = yield from roll_to_wound(state, strike, hit)
    if not wounded:
        return state
    state, saved = yield from roll_save(state, strike, hit)
    if saved:
        return state
    return (yield from lose_wounds(state, strike, hit))


# --- all the hits ---------------------------------------------------------------------------------


def resolve_hits(state: Wh40kState, rnd: CombatRound, winner: str, hits: int) -> Gen:
    """The loser sustains the winner's hits, one at a time, until it is slain. Returns the
    state."""
    loser = rnd.opponent(winner)
    weapon = yield from choose_weapon(state, rnd, winner)
    strike = Strike(
        rnd=rnd,
        winner=winner,
        loser=loser,
        weapon=weapon,
        strength=weapon_strength(state, winner, weapon),
        save_modifier=save_modifier(state, winner, weapon, rnd.ctx),
    )
    state = yield from emit(
        HitsScored(
            rule=RULE_HITS,
            winner=winner,
            loser=loser,
            hits=hits,
            weapon=weapon.id if weapon is not None else "",
            strength=strike.strength,
            damage=weapon.damage if weapon is not None else 1,
            save_modifier=strike.save_modifier,
        ),
        Wh40kState,
    )
    for hit in numbered(hits):  # a hit's number only names its rolls
        if not state.alive(loser):
            break
        state = yield from resolve_one_hit(state, strike, hit)
    return state


__all__ = [
    "Strike",
    "choose_weapon",
    "resolve_hits",
    "resolve_one_hit",
    "save_modifier",
    "save_modifier_value",
    "weapon_strength",
]
