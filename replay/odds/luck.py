"""How lucky a battle was, per side, roll by roll, with a distribution to judge it against.

A die roll is lucky for a side when it leaves the side better off than the other faces would
have. "Better off" is a lower expected net loss (``replay.odds.outcomes``: what the side suffers less
what it deals) at the end of the command, given the dice rolled so far and this roll's face, the
rest of the command's dice still to come; so an attacker's hit is its luck and its target's bad
luck. The roll's *luck* for the side is its mid-rank among the faces, weighted by their chances:

    u = P(E[loss | F] > E[loss | f]) + ½ P(E[loss | F] = E[loss | f])

(F a random face of the roll, f the face rolled). With fair dice ``u`` is a mid-distribution
transform: mean ½ and variance (1 − Σ q³)/12 over the probabilities q of the distinct expected
losses, and given everything before it each roll's ``u`` still has mean ½. A roll that cannot
change the side's expected loss has u = ½ and no variance, and counts for nothing. Over a battle
(or a tournament: every battle's rolls together, sides matched by name) the rolls that mattered
give

    z = Σ (u − ½) / √(Σ variance)

close to a standard normal with fair dice (a martingale central limit: each roll's ``u`` is
centred given the past), so the side's *luck percentile* Φ(z) says what share of fair-dice battles
would have been less lucky, and its two-sided p-value how surprising the battle is. The mean of
``u`` is reported with its standard error under fair dice, never a sum of pips.

The expected losses come from the exact tree where it fits the budget: the exploration goes from
the command's last roll back to its first, reusing what it explored below each roll, until the
budget runs out; above that, each face's expected loss is estimated from seeded samples of the
rest of the command with common random numbers (every face sees the same later dice), so faces
that do not matter tie exactly."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import msgspec

from blowbyblow.domain.core import (
    BattleStarted,
    ChoiceMade,
    CommandIssued,
    DiceRolled,
    Event,
    exploring,
)
from blowbyblow.replay.odds import chance
from blowbyblow.replay.odds.chance import Explorer, Follow, RollNode, Watched, faces_of, matcher
from blowbyblow.replay.odds.explore import (
    DEFAULT_BUDGET,
    DEFAULT_SEED,
    Policy,
    Situation,
    action_of,
    collector_paused,
    outcome_of,
    prepare,
    recorded_command,
)
from blowbyblow.replay.odds.outcomes import Measure, Outcome

DEFAULT_LUCK_BUDGET = DEFAULT_BUDGET  # exact runs per command
DEFAULT_LUCK_SAMPLES = 40  # samples per face where the exact tree does not fit
MAX_SAMPLED_FACES = 64  # a roll with more faces than this is not assessed past the budget


class RollLuck(msgspec.Struct, frozen=True, kw_only=True):
    """One roll, for one side: how lucky it was (``u``), its variance with fair dice, and how
    its expected losses were found."""

    side: str
    u: float
    variance: float
    method: str  # "exact" or "monte-carlo"


class RollRecord(msgspec.Struct, frozen=True, kw_only=True):
    battle: int = 0  # its battle's place in ``Luck.battles``
    command: int
    position: int  # of its DiceRolled in the battle
    key: str
    purpose: str
    values: tuple[int, ...]
    luck: list[RollLuck]  # per side it mattered to
    assessed: bool = True  # False: too many faces to estimate past the budget


class CommandLuck(msgspec.Struct, frozen=True, kw_only=True):
    battle: int = 0  # its battle's place in ``Luck.battles``
    command: int
    position: int
    action: str
    method: str  # of the command's whole distribution: "exact", or "" when it did not fit
    at_least_as_bad: dict[str, str]  # side -> P(a net loss at least as bad): a fraction (exact)


class SideLuck(msgspec.Struct, frozen=True, kw_only=True):
    """A side's luck over many rolls: ``mean_u`` (½ with fair dice, ± ``standard_error``), ``z``,
    the luck percentile Φ(z) and the two-sided p-value."""

    side: str
    rolls: int  # rolls that could change its expected loss
    mean_u: float
    standard_error: float
    z: float
    percentile: float
    p_value: float


class Luck(msgspec.Struct, frozen=True, kw_only=True):
    battles: list[str]
    sides: list[SideLuck]
    rolls: list[RollRecord]
    commands: list[CommandLuck]


@dataclass(frozen=True, kw_only=True)
class HowToJudge:
    budget: int = DEFAULT_LUCK_BUDGET
    samples: int = DEFAULT_LUCK_SAMPLES
    seed: str = DEFAULT_SEED
    traced: bool = True  # group equivalent faces (False: every face run, as a check)


def mid_rank(faces: Sequence[tuple[Fraction, Fraction]], seen: Fraction) -> tuple[float, float]:
    """(u, variance) of a face whose expected loss is ``seen``, among ``faces`` (probability,
    expected loss): u = P(loss > seen) + ½ P(loss = seen); variance (1 − Σ q³)/12."""
    worse = sum(float(p) for p, e in faces if e > seen)
    same = sum(float(p) for p, e in faces if e == seen)
    atoms: dict[Fraction, float] = {}
    for p, e in faces:
        atoms[e] = atoms.get(e, 0.0) + float(p)
    variance = (1 - sum(q**3 for q in atoms.values())) / 12
    return worse + same / 2, max(variance, 0.0)


def battle_luck(events: Sequence[Event], how: HowToJudge | None = None) -> Luck:
    """The luck of one battle (its events from position 1)."""
    return luck_of([events], how)


def luck_of(battles: Sequence[Sequence[Event]], how: HowToJudge | None = None) -> Luck:
    """The luck of several battles together (a tournament): each side's rolls over all of them."""
    how = how or HowToJudge()
    rolls: list[RollRecord] = []
    commands: list[CommandLuck] = []
    labels: list[str] = []
    for number, events in enumerate(battles):
        first = events[0] if events else None
        if not isinstance(first, BattleStarted):
            raise chance.OddsError("a battle's log starts with BattleStarted")
        labels.append(first.label)
        for position, event in enumerate(events, start=1):
            if isinstance(event, CommandIssued):
                found, summary = _command(events, position, how)
                rolls.extend(msgspec.structs.replace(r, battle=number) for r in found)
                commands.append(msgspec.structs.replace(summary, battle=number))
    return Luck(battles=labels, sides=sides_luck(rolls), rolls=rolls, commands=commands)


def sides_luck(rolls: Sequence[RollRecord]) -> list[SideLuck]:
    """Each side's luck over ``rolls`` (any of them: one battle's, one player's…)."""
    per: dict[str, list[RollLuck]] = {}
    for r in rolls:
        for x in r.luck:
            per.setdefault(x.side, []).append(x)
    out = []
    for side, xs in per.items():
        n = len(xs)
        total_var = sum(x.variance for x in xs)
        centred = sum(x.u - 0.5 for x in xs)
        z = centred / math.sqrt(total_var) if total_var > 0 else 0.0
        phi = 0.5 * (1 + math.erf(z / math.sqrt(2)))
        out.append(
            SideLuck(
                side=side,
                rolls=n,
                mean_u=0.5 + centred / n,
                standard_error=math.sqrt(total_var) / n,
                z=z,
                percentile=phi,
                p_value=min(1.0, 2 * min(phi, 1 - phi)),
            )
        )
    return out


def luck_over_time(luck: Luck) -> dict[str, list[tuple[int, float]]]:
    """Each side's luck percentile after each roll that mattered to it, in the rolls' order:
    what ``sides_luck`` gives for the rolls up to that one (its last point is the side's)."""
    out: dict[str, list[tuple[int, float]]] = {}
    sums: dict[str, tuple[int, float, float]] = {}
    for r in luck.rolls:
        for x in r.luck:
            n, centred, var = sums.get(x.side, (0, 0.0, 0.0))
            n, centred, var = n + 1, centred + x.u - 0.5, var + x.variance
            sums[x.side] = (n, centred, var)
            z = centred / math.sqrt(var) if var > 0 else 0.0
            out.setdefault(x.side, []).append((n, 0.5 * (1 + math.erf(z / math.sqrt(2)))))
    return out


@exploring()  # the rules' steps asked again at each run keep their answer (``LastAnswer``)
@collector_paused()  # as ``command_odds``
def _command(
    events: Sequence[Event], position: int, how: HowToJudge
) -> tuple[list[RollRecord], CommandLuck]:
    at, own = recorded_command(events, position)
    answers = {e.key: e.answer for e in own if isinstance(e, ChoiceMade)}
    measure, cmd = prepare(at, Policy(name="recorded", answers=answers))
    group = matcher(measure.rules.order_insensitive)
    dice = [(i, e) for i, e in enumerate(own) if isinstance(e, DiceRolled)]
    recorded: list[chance.Answer] = [tuple(e.values) for _, e in dice]
    # The rolls as the rules ask for them (what they read of each: ``counts``), from one run
    # along the recorded dice; each recorded face then stands as the outcome the exploration
    # weighs it with (a multiset sorted, a counted roll by its classes).
    asked = [
        n
        for n in chance.run_path(cmd, recorded, traced=False, decisions=False).nodes
        if isinstance(n, RollNode)
    ]
    nodes = (
        asked
        if len(asked) == len(dice)
        else [
            RollNode(key=e.key.split("/", 1)[1], n=len(e.values), sides=e.sides, purpose=e.purpose)
            for _, e in dice
        ]
    )
    path: list[chance.Answer] = [
        chance.canonical(node, group(node) and node.n > 1, face)
        for node, face in zip(nodes, recorded, strict=True)
    ]
    try:
        weighed = _weigh(cmd, measure, nodes, path, how)
    except TypeError:  # a rule used a die in a way a Die cannot follow: weigh plain dice
        if not how.traced:
            raise
        weighed = _weigh(cmd, measure, nodes, path, dataclasses.replace(how, traced=False))
    records = []
    for depth, (offset, event) in enumerate(dice):
        found = weighed.rolls.get(depth)
        luck: list[RollLuck] = []
        for side in measure.before.sides if found is not None else ():
            assert found is not None
            table = [(p, losses[side]) for _, p, losses in found.faces]
            seen = next(losses[side] for face, _, losses in found.faces if face == path[depth])
            u, var = mid_rank(table, seen)
            if var > 0:
                luck.append(RollLuck(side=side, u=u, variance=var, method=found.method))
        records.append(
            RollRecord(
                command=at.index,
                position=position + offset,
                key=event.key,
                purpose=event.purpose,
                values=event.values,
                luck=luck,
                assessed=found is not None,
            )
        )
    return records, _summary(at, own, position, measure, weighed.root)


def _summary(
    at: Situation,
    own: list[Event],
    position: int,
    measure: Measure,
    root: chance.Distribution | None,
) -> CommandLuck:
    worse: dict[str, str] = {}
    if root is not None:
        outcome = outcome_of(at, own)
        for side in measure.before.sides:
            seen = measure.net_loss(outcome, side)
            p = sum(
                (q for o, q in root.items() if measure.net_loss(cast(Outcome, o), side) >= seen),
                start=Fraction(0),
            )
            worse[side] = f"{p.numerator}/{p.denominator}"
    return CommandLuck(
        command=at.index,
        position=position,
        action=action_of(at.command),
        method="exact" if root is not None else "",
        at_least_as_bad=worse,
    )


# Each face of a roll: the face, its probability, the expected net loss of each side after it.
Faces = list[tuple[chance.Answer, Fraction, dict[str, Fraction]]]


@dataclass(frozen=True)
class _Weighed:
    """A roll's faces: how their expected net losses were found, and the faces."""

    method: str
    faces: Faces


@dataclass(frozen=True)
class _Weighing:
    rolls: dict[int, _Weighed]  # by depth on the recorded path
    root: chance.Distribution | None  # the whole command's, when the exact tree reached it


def _weigh(
    cmd: chance.Command,
    measure: Measure,
    nodes: list[RollNode],
    path: list[chance.Answer],
    how: HowToJudge,
) -> _Weighing:
    """Every roll on the recorded path, weighed: exactly from the last roll back as far as the
    budget goes (each subtree explored once, reused by the roll above it), by sampling above."""
    rolls: dict[int, _Weighed] = {}
    sides = measure.before.sides
    explorer = Explorer(
        cmd, budget=how.budget, group=matcher(measure.rules.order_insensitive), traced=how.traced
    )
    known: dict[int, chance.Subtree] = {}
    watched = Watched()
    depth = len(path)
    try:
        while depth > 0:
            depth -= 1
            follow = Follow(path=path, known=known, watched=watched)
            known[depth] = explorer.explore(path[:depth], follow)
            faces = [
                (face, p, {side: measure.expected_net_loss(dist, side) for side in sides})
                for face, p, dist in watched.children[depth]
            ]
            rolls[depth] = _Weighed("exact", faces)
        root = known[0].dist if path else explorer.explore(()).dist
    except chance.TooBig:
        for d in range(depth, -1, -1):
            sampled = _sampled(cmd, measure, nodes[d], path[:d], how)
            if sampled is not None:
                rolls[d] = _Weighed("monte-carlo", sampled)
        root = None
    return _Weighing(rolls=rolls, root=root)


def _sampled(
    cmd: chance.Command,
    measure: Measure,
    node: RollNode,
    prefix: list[chance.Answer],
    how: HowToJudge,
) -> Faces | None:
    grouped = node.n > 1 and matcher(measure.rules.order_insensitive)(node)
    if chance.count_faces(node, grouped) > MAX_SAMPLED_FACES:
        return None
    faces: Faces = []
    for face, p in faces_of(node, grouped):
        # the same seed for every face: the later dice are the same, only this face differs
        counts = chance.sample(cmd, how.samples, f"{how.seed}/luck", path=[*prefix, face])
        losses: dict[str, Fraction] = {}
        for side in measure.before.sides:
            total = sum(measure.net_loss(cast(Outcome, o), side) * n for o, n in counts.items())
            losses[side] = Fraction(total, how.samples)
        faces.append((face, p, losses))
    return faces


__all__ = [
    "DEFAULT_LUCK_BUDGET",
    "DEFAULT_LUCK_SAMPLES",
    "CommandLuck",
    "HowToJudge",
    "Luck",
    "RollLuck",
    "RollRecord",
    "SideLuck",
    "battle_luck",
    "luck_of",
    "luck_over_time",
    "mid_rank",
    "sides_luck",
]
