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

A game system says which tallies it counts and how bad each status is by registering
``OutcomeRules`` (``register_outcome_rules``); the shipped systems' rules are in
``replay/odds/outcome_rules.py``. A system without any still gets statuses, wounds, removals,
captures, renames and the per-event counts."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple, cast

from blowbyblow.domain.core import Event, RuleEvent
from blowbyblow.domain.system import AnyGameSystem, StateView, UnitView

GONE_HARM = 3  # a unit that left the table or was captured, when the scale of statuses is silent


@dataclass(frozen=True)
class Tally:
    """A named count over a command's events: ``count`` maps an event type's name to what one
    event of that type adds (e.g. ``{"HitsScored": lambda e: e.hits}``)."""

    name: str
    count: Mapping[str, Callable[[Any], int]]


@dataclass(frozen=True)
class OutcomeRules:
    """What a game system adds to the generic outcome: its tallies, how bad each status (and
    flag) is, and which of its rolls only matter as a multiset of dice (glob patterns on the
    roll's key, without the command's prefix)."""

    tallies: tuple[Tally, ...] = ()
    severity: Mapping[str, int] = field(default_factory=dict)  # status words -> 0 (fine) up
    flag_severity: Mapping[str, int] = field(default_factory=dict)  # a flag's start -> how bad
    order_insensitive: tuple[str, ...] = ()


_RULES: dict[str, OutcomeRules] = {}


def register_outcome_rules(system_id: str, rules: OutcomeRules) -> None:
    """Give ``system_id`` its tallies, scale of statuses and order-insensitive rolls."""
    _RULES[system_id] = rules


def outcome_rules(system_id: str) -> OutcomeRules:
    from blowbyblow.replay.odds import outcome_rules as _shipped  # noqa: F401 - registers them

    return _RULES.get(system_id, OutcomeRules())


class UnitOutcome(NamedTuple):
    status: str
    wounds_lost: int
    gone: bool  # no longer in the view
    captured: bool  # a prisoner now, and not before
    name: str  # its name after (changed: Reduced, in ASL)
    marks: tuple[str, ...]  # its flags after that the system's scale counts ("Broken")


class Outcome(NamedTuple):
    """One outcome of a command: per unit of the view before it (in its order), the tallies (in
    the rules' order) and how many of each rule step it produced (by event type, sorted)."""

    units: tuple[UnitOutcome, ...]
    tallies: tuple[int, ...]
    events: tuple[tuple[str, int], ...]


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
    rules: OutcomeRules

    def __call__(self, events: Sequence[Event], state: Any) -> Outcome:
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
        tallies = [0] * len(self.rules.tallies)
        kinds: dict[str, int] = {}
        for event in events:
            if not isinstance(event, RuleEvent):
                continue
            name = type(event).__name__
            kinds[name] = kinds.get(name, 0) + 1
            for i, tally in enumerate(self.rules.tallies):
                count = tally.count.get(name)
                if count is not None:
                    tallies[i] += int(count(event))
        return Outcome(
            units=tuple(units), tallies=tuple(tallies), events=tuple(sorted(kinds.items()))
        )

    def marks(self, flags: Sequence[str]) -> tuple[str, ...]:
        starts = self.rules.flag_severity
        return tuple(f for f in flags if any(f.startswith(s) for s in starts))

    def severity(self, status: str, flags: Sequence[str]) -> int:
        """How bad a status and its flags are on the system's scale (0: unharmed)."""
        total = self.rules.severity.get(status, 0)
        for flag in self.marks(flags):
            total += max(v for s, v in self.rules.flag_severity.items() if flag.startswith(s))
        return total

    def harm(self, i: int, unit: UnitOutcome) -> int:
        """How much worse off unit ``i`` of the view before is after this outcome."""
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


__all__ = [
    "GONE_HARM",
    "Measure",
    "Outcome",
    "OutcomeRules",
    "Tally",
    "UnitOutcome",
    "outcome_rules",
    "register_outcome_rules",
]
