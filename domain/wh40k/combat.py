"""The Combat Round of 40K 2nd edition hand-to-hand combat, one function per step of the seed
text ("Hand-to-Hand Combat Phase", shared/seeds/hand-to-hand-combat-score.txt):

1. Roll Attack Dice            ``roll_attack_dice``
   (Parrying, once both have rolled)   ``parry``
2. Calculate Combat Score      ``count_dice`` (Fumbles, Critical Hits), ``combat_score``
3. Determine the Winner        ``determine_winner``
4. Resolve Hits & Damage       ``resolve_hits`` (``choose_weapon``, ``resolve_one_hit``)

``combat_round`` runs them in order for one pair of models. Pure: every die comes from
``roll(...)``, every player decision from ``ask(...)``.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

from blowbyblow.domain.core import Context, Modifier, Step, ask, emit, roll
from blowbyblow.domain.wh40k.events import (
    RULE_ATTACK_DICE,
    RULE_CHARGE,
    RULE_CRITICALS,
    RULE_FUMBLES,
    RULE_HITS,
    RULE_PARRY,
    RULE_ROUNDS,
    RULE_SCORE,
    RULE_WINNER,
    AttackDiceRolled,
    CombatRoundBegun,
    CombatScoreCalculated,
    CriticalHitsCounted,
    FumblesCounted,
    HitsScored,
    ModelSlain,
    NoSave,
    ParriesCompared,
    ParryDeclined,
    ParryUsed,
    RoundWon,
    SaveRolled,
    Stalemate,
    WoundRolled,
    WoundsLost,
)
from blowbyblow.domain.wh40k.models import Weapon, Wh40kState
from blowbyblow.domain.wh40k.rulings import (
    CHARGE_BONUS,
    IMPROVISED_ATTACK,
    PARRY_RESPONSE,
    SAVE_NATURAL_ONE,
    STRENGTH_SAVE_MODIFIER,
    TO_WOUND_CHART,
)
from blowbyblow.domain.wh40k.wounds import save_target, strength_save_modifier, to_wound_target

Gen = Generator[Step, Any, Any]

_DICE_EXPR = re.compile(r"^([1-9][0-9]*)?[dD]([1-9][0-9]*)$")


def parse_damage(damage: int | str) -> tuple[int, int, int]:
    """(fixed, dice, sides): ``2`` -> (2, 0, 0); ``"D3"`` -> (0, 1, 3); ``"2D6"`` -> (0, 2, 6)."""
    if isinstance(damage, int):
        return damage, 0, 0
    text = damage.strip()
    if text.isdigit():
        return int(text), 0, 0
    m = _DICE_EXPR.match(text)
    if m is None:
        raise ValueError(f"damage {damage!r} is neither a number nor a dice expression like D3")
    return 0, int(m.group(1) or 1), int(m.group(2))


def close_combat_weapons(state: Wh40kState, model: str) -> list[Weapon]:
    return [w for w in state.weapons_of(model) if w.close_combat]


def parries_of(state: Wh40kState, model: str) -> int:
    """One parry per weapon with the Parry rule (40K2 HtH: Parrying)."""
    return sum(1 for w in state.weapons_of(model) if w.parry)


def charging(state: Wh40kState, model: str) -> bool:
    return state.models[model].charged_turn == state.turn


def highest_index(dice: list[int]) -> int:
    """Index of the (first) highest die."""
    best = 0
    for i, v in enumerate(dice):
        if v > dice[best]:
            best = i
    return best


# --- step 1: Roll Attack Dice -------------------------------------------------------------------


def attack_dice_modifiers(state: Wh40kState, model: str, extra: int) -> tuple[Modifier, ...]:
    """40K2 HtH: Roll Attack Dice. +1 D6 with two or more Close Combat weapons; in a Multiple
    Combat the outnumbering side's ``extra`` dice (+1 in the second round, +2 in the third...)."""
    mods: list[Modifier] = []
    cc = close_combat_weapons(state, model)
    if len(cc) >= 2:
        mods.append(
            Modifier(
                value=1,
                cause=f"two Close Combat weapons ({', '.join(w.label for w in cc)})",
                rule=RULE_ATTACK_DICE,
            )
        )
    if extra:
        mods.append(
            Modifier(
                value=extra,
                cause=f"Multiple Combat: duel {extra + 1} after the lone model survived",
                rule="40K2 HtH: Multiple Combat",
            )
        )
    return tuple(mods)


def roll_attack_dice(state: Wh40kState, model: str, opponent: str, extra: int, key: str) -> Gen:
    """40K2 HtH: Roll Attack Dice. D6 equal to the model's Attacks, plus the modifiers."""
    attacks = state.profile(model).a
    mods = attack_dice_modifiers(state, model, extra)
    count = attacks + sum(m.value for m in mods)
    dice = yield from roll(key, count, 6, purpose=f"Attack dice of {model}")
    state = yield from emit(
        AttackDiceRolled(
            rule=RULE_ATTACK_DICE,
            model=model,
            opponent=opponent,
            attacks=attacks,
            modifiers=mods,
            count=count,
            dice=dice,
        ),
        Wh40kState,
    )
    return state, list(dice)


# --- Parrying (after both have rolled) ---------------------------------------------------------


def parry(
    state: Wh40kState,
    models: tuple[str, str],
    dice: dict[str, list[int]],
    tag: str,
    ctx: Context,
) -> Gen:
    """40K2 HtH: Parrying. One parry per Parry weapon, none while breaking off; both models'
    parries cancel one for one. Each parry left is optional (ask ``<pair>/parry/<model>/<n>``):
    the opponent re-rolls its highest die and the re-roll stands, or, under ruling
    parry-response=reroll-or-next-highest, may set it aside and use its next-highest die
    (ask ``.../response``). Returns the new state; ``dice`` is updated in place."""
    a, b = models
    own = {m: parries_of(state, m) for m in models}
    notes: list[str] = []
    counted = dict(own)
    for m in models:
        if m in state.breaking_off and own[m]:
            counted[m] = 0
            notes.append(f"{m} is breaking off and may not parry")
    if own[a] == 0 and own[b] == 0:
        return state
    net = {a: max(0, counted[a] - counted[b]), b: max(0, counted[b] - counted[a])}
    state = yield from emit(
        ParriesCompared(
            rule=RULE_PARRY,
            models=(a, b),
            parries=(counted[a], counted[b]),
            net=(net[a], net[b]),
            notes=tuple(notes),
        ),
        Wh40kState,
    )
    response_ruling = ctx.rulings[PARRY_RESPONSE.name]
    for parrier in models:
        opponent = b if parrier == a else a
        for n in range(1, net[parrier] + 1):
            theirs = dice[opponent]
            i = highest_index(theirs)
            highest = theirs[i]
            choice = yield from ask(
                f"{tag}/parry/{parrier}/{n}",
                ("parry", "decline"),
                default="parry" if highest >= 4 else "decline",
                prompt=f"{parrier}: parry {opponent}'s highest Attack die ({highest})?",
            )
            if choice == "decline":
                state = yield from emit(
                    ParryDeclined(
                        rule=RULE_PARRY,
                        parrier=parrier,
                        opponent=opponent,
                        parry=n,
                        highest=highest,
                    ),
                    Wh40kState,
                )
                break
            response = "reroll"
            if response_ruling == "reroll-or-next-highest" and len(theirs) >= 2:
                rest = theirs[:i] + theirs[i + 1 :]
                next_highest = max(rest)
                response = yield from ask(
                    f"{tag}/parry/{parrier}/{n}/response",
                    ("reroll", "next-highest"),
                    default="next-highest" if next_highest >= 4 else "reroll",
                    prompt=f"{opponent}: re-roll the {highest} or use the next-highest die "
                    f"({next_highest})?",
                )
            before = tuple(theirs)
            rerolled: int | None = None
            if response == "reroll":
                (rerolled,) = yield from roll(
                    f"{tag}/parry/{parrier}/{n}/reroll",
                    1,
                    6,
                    purpose=f"{opponent} re-rolls its highest Attack die ({parrier} parries)",
                )
                theirs[i] = rerolled
            else:
                del theirs[i]
            state = yield from emit(
                ParryUsed(
                    rule=RULE_PARRY,
                    parrier=parrier,
                    opponent=opponent,
                    parry=n,
                    highest=highest,
                    response=response,
                    rerolled=rerolled,
                    dice_before=before,
                    dice_after=tuple(theirs),
                ),
                Wh40kState,
            )
    return state


# --- step 2: Calculate Combat Score ------------------------------------------------------------


def count_fumbles(dice: list[int]) -> int:
    """40K2 HtH: Fumbles. Each 1 rolled is a Fumble (+1 to the opponent's Combat Score)."""
    return sum(1 for v in dice if v == 1)


def count_critical_hits(dice: list[int]) -> int:
    """40K2 HtH: Critical Hits. The first 6 has no effect; each further 6 is a Critical Hit."""
    return max(0, sum(1 for v in dice if v == 6) - 1)


def score_modifiers(
    state: Wh40kState,
    model: str,
    opponent: str,
    own_dice: list[int],
    their_dice: list[int],
    ctx: Context,
) -> tuple[Modifier, ...]:
    """40K2 HtH: Combat Score Modifiers, cumulative: the opponent's Fumbles, own Critical Hits,
    charging (ruling charge-bonus), improvised attack (ruling improvised-attack)."""
    mods: list[Modifier] = []
    fumbles = count_fumbles(their_dice)
    if fumbles:
        mods.append(
            Modifier(value=fumbles, cause=f"{opponent} fumbled {fumbles} (1s)", rule=RULE_FUMBLES)
        )
    crits = count_critical_hits(own_dice)
    if crits:
        mods.append(
            Modifier(
                value=crits,
                cause=f"{crits} Critical Hit(s) (6s after the first)",
                rule=RULE_CRITICALS,
            )
        )
    if ctx.rulings[CHARGE_BONUS.name] == "+1" and charging(state, model):
        mods.append(
            Modifier(
                value=1, cause="charged this turn", rule=f"{RULE_CHARGE} (ruling charge-bonus)"
            )
        )
    if ctx.rulings[IMPROVISED_ATTACK.name] == "-1" and not close_combat_weapons(state, model):
        mods.append(
            Modifier(
                value=-1,
                cause="improvised attack (no Close Combat weapon)",
                rule=f"{RULE_SCORE} (ruling improvised-attack)",
            )
        )
    return tuple(mods)


def count_dice(state: Wh40kState, model: str, opponent: str, dice: list[int]) -> Gen:
    """40K2 HtH: Fumbles and Critical Hits, counted on the final Attack dice (after parries).
    Emits FumblesCounted when there is a 1 and CriticalHitsCounted when there are two or more
    6s. Returns the state."""
    fumbles = count_fumbles(dice)
    if fumbles:
        state = yield from emit(
            FumblesCounted(
                rule=RULE_FUMBLES,
                model=model,
                opponent=opponent,
                dice=tuple(dice),
                fumbles=fumbles,
            ),
            Wh40kState,
        )
    sixes = sum(1 for v in dice if v == 6)
    if sixes >= 2:
        state = yield from emit(
            CriticalHitsCounted(
                rule=RULE_CRITICALS,
                model=model,
                dice=tuple(dice),
                sixes=sixes,
                critical_hits=count_critical_hits(dice),
            ),
            Wh40kState,
        )
    return state


def combat_score(
    state: Wh40kState,
    model: str,
    opponent: str,
    dice: dict[str, list[int]],
    ctx: Context,
) -> Gen:
    """40K2 HtH: Calculate Combat Score. The single highest die + WS (0 when breaking off) +
    the modifiers. Returns (state, score)."""
    own, theirs = dice[model], dice[opponent]
    profile_ws = state.profile(model).ws
    ws = 0 if model in state.breaking_off else profile_ws
    mods = score_modifiers(state, model, opponent, own, theirs, ctx)
    highest = max(own)
    score = highest + ws + sum(m.value for m in mods)
    state = yield from emit(
        CombatScoreCalculated(
            rule=RULE_SCORE,
            model=model,
            opponent=opponent,
            dice=tuple(own),
            highest=highest,
            profile_ws=profile_ws,
            ws=ws,
            modifiers=mods,
            score=score,
        ),
        Wh40kState,
    )
    return state, score


# --- step 3: Determine the Winner --------------------------------------------------------------


def determine_winner(state: Wh40kState, models: tuple[str, str], scores: dict[str, int]) -> Gen:
    """40K2 HtH: Determine the Winner. The higher score wins and scores the difference in hits;
    equal scores: the higher Initiative wins with one hit; equal Initiative: stalemate.
    Returns (state, winner or None, loser or None, hits)."""
    a, b = models
    ia, ib = state.profile(a).i, state.profile(b).i
    if scores[a] == scores[b] and ia == ib:
        state = yield from emit(
            Stalemate(rule=RULE_WINNER, models=(a, b), score=scores[a], initiative=ia),
            Wh40kState,
        )
        return state, None, None, 0
    if scores[a] != scores[b]:
        winner, loser = (a, b) if scores[a] > scores[b] else (b, a)
        hits = scores[winner] - scores[loser]
        by_initiative = False
    else:
        winner, loser = (a, b) if ia > ib else (b, a)
        hits = 1
        by_initiative = True
    state = yield from emit(
        RoundWon(
            rule=RULE_WINNER,
            winner=winner,
            loser=loser,
            winner_score=scores[winner],
            loser_score=scores[loser],
            winner_initiative=state.profile(winner).i,
            loser_initiative=state.profile(loser).i,
            by_initiative=by_initiative,
            hits=hits,
        ),
        Wh40kState,
    )
    return state, winner, loser, hits


# --- step 4: Resolve Hits & Damage -------------------------------------------------------------


def weapon_strength(state: Wh40kState, model: str, weapon: Weapon | None) -> int:
    s = state.profile(model).s
    if weapon is None:
        return s
    if weapon.strength is None:
        return s + weapon.strength_bonus
    return weapon.strength


def save_modifier(state: Wh40kState, model: str, weapon: Weapon | None, ctx: Context) -> Modifier:
    """The hit's save modifier: the weapon's own, or from Strength (ruling
    strength-save-modifier) for 'as user' weapons and a model's own Strength."""
    strength = weapon_strength(state, model, weapon)
    if weapon is not None and weapon.save_modifier is not None:
        return Modifier(
            value=weapon.save_modifier, cause=f"{weapon.label} save modifier", rule=RULE_HITS
        )
    if ctx.rulings[STRENGTH_SAVE_MODIFIER.name] == "by-strength":
        return Modifier(
            value=strength_save_modifier(strength),
            cause=f"Strength {strength}",
            rule=f"{RULE_HITS} (ruling strength-save-modifier)",
        )
    return Modifier(
        value=0,
        cause=f"Strength {strength}: no modifier",
        rule=f"{RULE_HITS} (ruling strength-save-modifier)",
    )


def _weapon_rank(state: Wh40kState, model: str, weapon: Weapon, ctx: Context) -> tuple[int, ...]:
    fixed, n, sides = parse_damage(weapon.damage)
    average_damage_x2 = 2 * fixed + n * (sides + 1)
    return (
        weapon_strength(state, model, weapon),
        -save_modifier(state, model, weapon, ctx).value,
        average_damage_x2,
    )


def choose_weapon(state: Wh40kState, winner: str, loser: str, tag: str, ctx: Context) -> Gen:
    """40K2 HtH: Resolve Hits & Damage. The winner may use any Close Combat weapon it has (ask
    ``<pair>/weapon/<model>``, default the highest Strength, then save modifier, then damage);
    with none it uses its own Strength. Returns the Weapon or None."""
    cc = close_combat_weapons(state, winner)
    if not cc:
        return None
    if len(cc) == 1:
        return cc[0]
    best = cc[0]
    for w in cc[1:]:
        if _weapon_rank(state, winner, w, ctx) > _weapon_rank(state, winner, best, ctx):
            best = w
    answer = yield from ask(
        f"{tag}/weapon/{winner}",
        tuple(w.id for w in cc),
        default=best.id,
        prompt=f"{winner}: which weapon strikes {loser}?",
    )
    for w in cc:
        if w.id == answer:
            return w
    return best  # pragma: no cover - ask() only returns one of the options


def resolve_one_hit(
    state: Wh40kState,
    winner: str,
    loser: str,
    weapon: Weapon | None,
    hit: int,
    tag: str,
    ctx: Context,
) -> Gen:
    """40K2 HtH: Resolve Hits & Damage, one hit: wound roll (ruling to-wound-chart), armour save
    (rulings strength-save-modifier, save-natural-one), wounds lost, slain at 0 wounds."""
    chart = ctx.rulings[TO_WOUND_CHART.name]
    strength = weapon_strength(state, winner, weapon)
    toughness = state.profile(loser).t
    needed = to_wound_target(strength, toughness, chart)
    natural: int | None = None
    if needed is not None:
        (natural,) = yield from roll(
            f"{tag}/hit/{hit}/wound", 1, 6, purpose=f"to wound {loser} (hit {hit})"
        )
    wounded = needed is not None and natural is not None and natural >= needed
    state = yield from emit(
        WoundRolled(
            rule=f"{RULE_HITS} (ruling to-wound-chart)",
            attacker=winner,
            target=loser,
            hit=hit,
            natural=natural,
            strength=strength,
            toughness=toughness,
            chart=chart,
            needed=needed,
            wounded=wounded,
        ),
        Wh40kState,
    )
    if not wounded:
        return state
    mod = save_modifier(state, winner, weapon, ctx)
    armour = state.profile(loser).save
    target = save_target(armour, mod.value, ctx.rulings[SAVE_NATURAL_ONE.name] == "fails")
    if armour is None or target is None:
        state = yield from emit(
            NoSave(
                rule=RULE_HITS,
                model=loser,
                hit=hit,
                save=armour,
                modifier=mod,
                reason="no armour save" if armour is None else "save modified beyond 6+",
            ),
            Wh40kState,
        )
    else:
        (save_roll,) = yield from roll(
            f"{tag}/hit/{hit}/save", 1, 6, purpose=f"armour save of {loser} (hit {hit})"
        )
        saved = save_roll >= target
        state = yield from emit(
            SaveRolled(
                rule=f"{RULE_HITS} (ruling save-natural-one)",
                model=loser,
                hit=hit,
                natural=save_roll,
                save=armour,
                modifier=mod,
                needed=target,
                saved=saved,
            ),
            Wh40kState,
        )
        if saved:
            return state
    fixed, n, sides = parse_damage(weapon.damage if weapon is not None else 1)
    damage_dice: tuple[int, ...] = ()
    if n:
        damage_dice = yield from roll(
            f"{tag}/hit/{hit}/damage", n, sides, purpose=f"damage to {loser} (hit {hit})"
        )
    damage = fixed + sum(damage_dice)
    before = state.models[loser].wounds
    left = max(0, before - damage)
    state = yield from emit(
        WoundsLost(
            rule=RULE_HITS,
            model=loser,
            hit=hit,
            damage=damage,
            damage_dice=damage_dice,
            wounds_before=before,
            wounds_left=left,
        ),
        Wh40kState,
    )
    if left == 0:
        state = yield from emit(ModelSlain(rule=RULE_HITS, model=loser, by=winner), Wh40kState)
    return state


def resolve_hits(
    state: Wh40kState, winner: str, loser: str, hits: int, tag: str, ctx: Context
) -> Gen:
    """40K2 HtH: Resolve Hits & Damage. The loser sustains the winner's hits, one at a time,
    until it is slain."""
    weapon = yield from choose_weapon(state, winner, loser, tag, ctx)
    state = yield from emit(
        HitsScored(
            rule=RULE_HITS,
            winner=winner,
            loser=loser,
            hits=hits,
            weapon=weapon.id if weapon is not None else "",
            strength=weapon_strength(state, winner, weapon),
            damage=weapon.damage if weapon is not None else 1,
            save_modifier=save_modifier(state, winner, weapon, ctx),
        ),
        Wh40kState,
    )
    for hit in range(1, hits + 1):
        if not state.alive(loser):
            break
        state = yield from resolve_one_hit(state, winner, loser, weapon, hit, tag, ctx)
    return state


# --- a whole Combat Round ----------------------------------------------------------------------


def combat_round(
    state: Wh40kState,
    a: str,
    b: str,
    duel: int,
    extra: dict[str, int],
    ctx: Context,
) -> Gen:
    """40K2 HtH: Combat Rounds. Both models roll Attack dice, parries are used, both Combat
    Scores are worked out, the winner is determined and its hits resolved. Returns the state."""
    tag = f"{a}-v-{b}"
    state = yield from emit(
        CombatRoundBegun(
            rule=RULE_ROUNDS,
            models=(a, b),
            duel=duel,
            charging=tuple(m for m in (a, b) if charging(state, m)),
            breaking_off=tuple(m for m in (a, b) if m in state.breaking_off),
        ),
        Wh40kState,
    )
    dice: dict[str, list[int]] = {}
    for m, o in ((a, b), (b, a)):
        state, dice[m] = yield from roll_attack_dice(
            state, m, o, extra.get(m, 0), f"{tag}/attack/{m}"
        )
    state = yield from parry(state, (a, b), dice, tag, ctx)
    for m, o in ((a, b), (b, a)):
        state = yield from count_dice(state, m, o, dice[m])
    scores: dict[str, int] = {}
    for m, o in ((a, b), (b, a)):
        state, scores[m] = yield from combat_score(state, m, o, dice, ctx)
    state, winner, loser, hits = yield from determine_winner(state, (a, b), scores)
    if winner is not None and loser is not None and hits > 0:
        state = yield from resolve_hits(state, winner, loser, hits, tag, ctx)
    return state
