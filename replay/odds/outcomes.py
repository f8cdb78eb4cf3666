"""What a command did, measured the same way for every game system: the outcome the odds count.

From the structured view before and after the command (``GameSystem.view``) and the events it
produced, for every fighter or unit: its status after, the wounds it lost (the change of the first
number of a stat named ``wounds``, whichever way the game counts it: "1/2" left of 2, or "3/4"
taken of 4), whether it left the table and whether it was taken prisoner, and its name after (an
ASL squad Reduced to a half-squad is renamed); then the *tallies* (hits, kills, Partial Kills,
captures…) and the count of each kind of rule step (the outcome classes the system itself names,
one per event type).

What a side suffers (its *loss*) adds, over its units: wounds lost, how much worse the status
got on the system's scale of statuses (``OutcomeRules.severity``), 3 for a unit that left the
table or was captured (unless the scale says more), 1 for a Reduced (renamed) unit. How bad an
outcome is for a side (its *net loss*) is its loss less the other sides' losses: a miss is bad
for the attacker although it lost nothing. Percentiles, luck and the best-for / worst-for
choices go by the net loss.

A game system says which tallies it counts, whose each count is, and how bad each status is in
its ``GameSystem.odds`` (``domain.system.OddsRules``, typed against its own event classes); a
system without any still gets statuses, wounds, removals, captures, renames and the per-event
counts."""

from __future__ import annotations

import functools
import operator
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple, cast

import msgspec

from blowbyblow.domain.core import BlowByBlowError, Event, RuleEvent
from blowbyblow.domain.system import AnyGameSystem, Count, OddsRules, StateView, UnitView
from blowbyblow.replay.odds.traced import Die

_encode = msgspec.msgpack.Encoder().encode  # a state as bytes (``Measure.final``)
GONE_HARM = 3  # a unit that left the table or was captured, when the scale of statuses is silent
# An event type's part in a counts vector (``Measure.vector``): its place, its tallies' counts.
_Plan = tuple[int, tuple[tuple[int, Count[Any], bool], ...]]
_NOT_A_STEP: _Plan = (-1, ())  # not a rule step: counted nowhere


class TallyError(BlowByBlowError):
    """A tally of a game system gave something other than a whole number."""


class UnitOutcome(NamedTuple):
    status: str
    wounds_lost: int
    gone: bool  # no longer in the view
    captured: bool  # a prisoner now, and not before
    name: str  # its name after (changed: Reduced, in ASL)
    marks: tuple[str, ...]  # its flags after that the system's scale counts ("Broken")


class Outcome(NamedTuple):
    """One outcome of a command: per unit of the view before it (in its order), the tallies (in
    the rules' order), each side's share of them (per side of the view before, in its order: what
    it scored, or what befell the other side), and how many of each rule step it produced (by
    event type, sorted)."""

    units: tuple[UnitOutcome, ...]
    tallies: tuple[int, ...]
    by_side: tuple[tuple[int, ...], ...]
    events: tuple[tuple[str, int], ...]


def _counted(tally: str, count: Count[Any], event: Event) -> int:
    """What ``count`` says ``event`` adds, checked: a whole number (a die value is read as its
    number, which the exploration records)."""
    n = count.count(event)
    if type(n) is bool:
        return int(n)
    if type(n) is not int:
        if isinstance(n, Die):  # a die value kept as it was rolled: its number counts
            return int(n)
        raise TallyError(
            f"tally {tally!r}: {type(event).__name__} gave {n!r} ({type(n).__name__}); "
            "a tally counts whole numbers"
        )
    return n


def _wounds(unit: UnitView) -> int | None:
    for stat in unit.stats:
        if stat.name == "wounds":
            head = stat.value.split("/", 1)[0].strip()
            return int(head) if head.lstrip("-").isdigit() else None
    return None


@dataclass(frozen=True)
class Measure:
    """The leaf function of the odds: an adjudication -> its ``Outcome``, against the view before."""

    system: AnyGameSystem
    before: StateView

    @property
    def rules(self) -> OddsRules:
        return self.system.odds

    @functools.cached_property
    def _counts(self) -> dict[type, list[tuple[int, Count[Any]]]]:
        """Each event type's counts, with the number of their tally."""
        out: dict[type, list[tuple[int, Count[Any]]]] = {}
        for i, tally in enumerate(self.rules.tallies):
            for count in tally.counts:
                out.setdefault(count.event, []).append((i, count))
        return out

    @functools.cached_property
    def _sides(self) -> dict[str, int]:
        """A unit's id or a side's name -> the number of its side."""
        number = {side: i for i, side in enumerate(self.before.sides)}
        out = dict(number)
        for u in self.before.units:
            if u.side in number:
                out.setdefault(u.id, number[u.side])
        return out

    def _whose(self, count: Count[Any], event: Event) -> int | None:
        """The number of the side a count belongs to, or None."""
        if count.by is not None:
            return self._sides.get(count.by(event))
        if count.against is not None and len(self.before.sides) == 2:
            befell = self._sides.get(count.against(event))
            return None if befell is None else 1 - befell
        return None

    def __call__(self, events: Sequence[Event], state: Any) -> Outcome:
        return self.from_vector(self.final(state), self.vector(events))

    @functools.cached_property
    def _finals(self) -> dict[bytes, tuple[UnitOutcome, ...]]:
        """``final`` of each state met, by the state's bytes: many runs and samples of a
        command end in equal states, and a view costs more than writing the state."""
        return {}

    def final(self, state: Any) -> tuple[UnitOutcome, ...]:
        """The part of the outcome read from the state after the command: each unit's."""
        try:
            key = _encode(state)
        except (TypeError, ValueError, OverflowError):
            # A state holding what msgspec does not write (a traced die: reading it here
            # records what its run must know) is viewed each time.
            return self._final(state)
        found = self._finals.get(key)
        if found is None:
            found = self._finals[key] = self._final(state)
        return found

    def _final(self, state: Any) -> tuple[UnitOutcome, ...]:
        after = self.system.view(state)
        by_id = {u.id: u for u in after.units}
        prisoners_before = {p.prisoner for p in self.before.prisoners}
        prisoners_after = {p.prisoner for p in after.prisoners}
        units = []
        for u in self.before.units:
            now = by_id.get(u.id)
            lost = 0
            if now is not None:
                w0, w1 = _wounds(u), _wounds(now)
                if w0 is not None and w1 is not None:
                    lost = abs(w1 - w0)
            units.append(
                UnitOutcome(
                    status=now.status if now is not None else "",
                    wounds_lost=lost,
                    gone=now is None,
                    captured=u.id in prisoners_after and u.id not in prisoners_before,
                    name=now.name if now is not None else u.name,
                    marks=self.marks(now.flags) if now is not None else (),
                )
            )
        return tuple(units)

    @functools.cached_property
    def _kinds(self) -> dict[str, int]:
        """Each rule step's place in a counts vector (``vector``), after the tallies and each
        side's share of them: the system's event types by name, sorted; a type the system does
        not list takes the next place when first met."""
        names = sorted({t.__name__ for t in self.system.event_types if issubclass(t, RuleEvent)})
        start = len(self.rules.tallies) * (1 + len(self.before.sides))
        return {name: start + i for i, name in enumerate(names)}

    def kind_places(self) -> dict[str, int]:
        """Each rule step's place in a counts vector (``vector``), by its event type's name."""
        return dict(self._kinds)

    def places(self) -> int:
        """How long a counts vector is (``vector``)."""
        return len(self.rules.tallies) * (1 + len(self.before.sides)) + len(self._kinds)

    def vector(self, events: Sequence[Event]) -> tuple[int, ...]:
        """``counts`` as one vector of whole numbers, added place by place (``add``): the
        tallies, each side's share of each tally, then each rule step's count."""
        n = len(self.rules.tallies)
        kinds = self._kinds
        out = [0] * (n * (1 + len(self.before.sides)) + len(kinds))
        plans = self._plans
        names = self.rules.tallies
        for event in events:
            plan = plans.get(type(event))
            if plan is None:
                plan = self._plan(event, out)
            if plan is _NOT_A_STEP:
                continue
            place, counts = plan
            while len(out) <= place:
                out.append(0)
            out[place] += 1
            for i, count, owned in counts:
                k = _counted(names[i].name, count, event)
                out[i] += k
                if owned:
                    side = self._whose(count, event)
                    if side is not None:
                        out[n * (1 + side) + i] += k
        return tuple(out)

    @functools.cached_property
    def _plans(self) -> dict[type, _Plan]:
        """What ``vector`` does with an event of each type met: its rule step's place and the
        counts of its tallies (each with whether it may be a side's)."""
        return {}

    def _plan(self, event: Event, out: list[int]) -> _Plan:
        """An event type's plan (``_plans``), made when first met; a rule step the system does
        not list takes the next place of ``out`` then."""
        kind = type(event)
        if not isinstance(event, RuleEvent):
            self._plans[kind] = _NOT_A_STEP
            return _NOT_A_STEP
        kinds = self._kinds
        place = kinds.get(kind.__name__)
        if place is None:
            place = kinds[kind.__name__] = len(out)
            out.append(0)
        two = len(self.before.sides) == 2
        counts = tuple(
            (i, count, count.by is not None or (count.against is not None and two))
            for i, count in self._counts.get(kind, ())
        )
        plan = self._plans[kind] = (place, counts)
        return plan

    def outcome_vector(self, outcome: Outcome) -> tuple[int, ...]:
        """An outcome's counts as one vector (``vector``)."""
        kinds = self._kinds
        out = [*outcome.tallies, *(k for side in outcome.by_side for k in side)]
        out += [0] * len(kinds)
        for name, k in outcome.events:
            place = kinds.get(name)
            if place is None:
                place = kinds[name] = len(out)
                out.append(0)
            out[place] = k
        return tuple(out)

    def from_vector(self, units: tuple[UnitOutcome, ...], vector: Sequence[int]) -> Outcome:
        """The outcome of ``units`` and a counts ``vector`` (``vector``)."""
        n = len(self.rules.tallies)
        sides = len(self.before.sides)
        names = self._names()
        start = n * (1 + sides)
        kinds = sorted((names[p], vector[p]) for p in range(start, len(vector)) if vector[p])
        return Outcome(
            units=units,
            tallies=tuple(vector[:n]),
            by_side=tuple(tuple(vector[n * (1 + s) : n * (2 + s)]) for s in range(sides)),
            events=tuple(kinds),
        )

    def _names(self) -> dict[int, str]:
        """Each rule step's name by its place (``_kinds``, which only grows), made again only
        when a place was added since (a new dict, so that another thread sees all or none)."""
        kinds, held = self._kinds, self._named
        names = held[0]
        if len(names) != len(kinds):
            names = held[0] = {place: name for name, place in kinds.items()}
        return names

    @functools.cached_property
    def _named(self) -> list[dict[int, str]]:
        return [{}]

    def marks(self, flags: Sequence[str]) -> tuple[str, ...]:
        starts = self.rules.flag_severity
        return tuple(f for f in flags if any(f.startswith(s) for s in starts))

    def severity(self, status: str, flags: Sequence[str]) -> int:
        """How bad a status and its flags are on the system's scale (0: unharmed)."""
        total = self.rules.severity.get(status, 0)
        for flag in self.marks(flags):
            total += max(v for s, v in self.rules.flag_severity.items() if flag.startswith(s))
        return total

    @functools.cached_property
    def _harms(self) -> dict[tuple[int, UnitOutcome], int]:
        """``harm`` of each unit outcome met: an answer asks it of every outcome for each
        side's loss, net loss and the percentiles of what happened, of few distinct ones."""
        return {}

    def harm(self, i: int, unit: UnitOutcome) -> int:
        """How much worse off unit ``i`` of the view before is after this outcome."""
        found = self._harms.get((i, unit))
        if found is None:
            found = self._harms[i, unit] = self._harm(i, unit)
        return found

    def _harm(self, i: int, unit: UnitOutcome) -> int:
        before = self.before.units[i]
        rise = self.severity(unit.status, unit.marks) - self.severity(before.status, before.flags)
        if unit.gone or unit.captured:
            rise = max(rise, GONE_HARM)
        return unit.wounds_lost + max(rise, 0) + (1 if unit.name != before.name else 0)

    def loss(self, outcome: Outcome, side: str) -> int:
        """What ``side`` suffered in ``outcome``: the harm to its units, added."""
        return sum(
            self.harm(i, u)
            for i, u in enumerate(outcome.units)
            if self.before.units[i].side == side
        )

    def net_loss(self, outcome: Outcome, side: str) -> int:
        """How bad ``outcome`` is for ``side``: what it suffered less what the other sides did.
        An attack that fails is bad for the attacker although it lost nothing."""
        harms = [self.harm(i, u) for i, u in enumerate(outcome.units)]
        own = [self.before.units[i].side == side for i in range(len(harms))]
        return sum(h for h, mine in zip(harms, own, strict=True) if mine) - sum(
            h for h, mine in zip(harms, own, strict=True) if not mine
        )

    def expected_net_loss(self, dist: Mapping[Hashable, Fraction], side: str) -> Fraction:
        """The expected net loss of ``side`` over a distribution of outcomes."""
        return sum(
            (p * self.net_loss(cast(Outcome, o), side) for o, p in dist.items()), Fraction(0)
        )


def trim(vector: tuple[int, ...]) -> tuple[int, ...]:
    """A counts vector without its trailing zeros (vectors grow when a rule step is new)."""
    end = len(vector)
    while end and not vector[end - 1]:
        end -= 1
    return vector[:end]


def add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Two counts vectors (``Measure.vector``) added place by place."""
    if len(a) == len(b):
        return tuple(map(operator.add, a, b))
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return tuple(x + (shorter[i] if i < len(shorter) else 0) for i, x in enumerate(longer))


__all__ = ["GONE_HARM", "Measure", "Outcome", "TallyError", "UnitOutcome", "add", "trim"]
