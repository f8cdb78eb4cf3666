"""What every rule step of one command knows besides the state: a :class:`Combat` (the edition,
the rulings in force, the command's Nerve-test record) and, within it, an :class:`Attack` (one
fighter's attack sequence: who attacks, the prefix of its dice and choice keys, and the hit
modifiers fixed before its hit rolls).

Steps take ``(attack, state, …)`` and give back the state after their events: ``emit`` yields a
rule-step event and returns the state the driver folded it into.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from blowbyblow.domain import core
from blowbyblow.domain.core import Context, Event, Step
from blowbyblow.domain.necromunda.editions import Edition
from blowbyblow.domain.necromunda.state import NecromundaState


def note_once(names: list[str], name: str) -> None:
    """``name`` noted in ``names``, kept sorted and each once (a record a command keeps of who
    did what, written into the odds' keys in this order: ``Combat.chose_weapons``)."""
    if name not in names:
        bisect.insort(names, name)


@dataclass
class NerveLog:
    """Who became Seriously Injured during this activation, and the target of its Coup de Grace
    (for the YAQ on a second Nerve test)."""

    # A sorted list, not a set, as ``Combat.chose_weapons`` (why there).
    seriously_injured: list[str] = field(default_factory=list)
    coup_de_grace: str | None = None

    def injured(self, fighter: str) -> None:
        """``fighter`` became Seriously Injured in this activation."""
        note_once(self.seriously_injured, fighter)

    def out_of_action(self, fighter: str) -> None:
        """``fighter`` went Out of Action other than by the free Coup de Grace: the YAQ reads
        its note no more (a Coup de Grace targets only a Seriously Injured fighter, and no
        fighter comes back from Out of Action within a command), so the note is let go, and
        the odds' branches that differ only in it meet."""
        if fighter in self.seriously_injured:
            self.seriously_injured.remove(fighter)


@dataclass
class Struck:
    """Who makes Reaction attacks in this command (step 7), noted once its attacker's own hits
    are resolved (step 6); None before. From then on only they attack, each an enemy of its
    own (N23 CC 4, CC 7), and the attacker makes step 8's Coup de Grace only at a Seriously
    Injured fighter (CC 8): the odds write alike what only an attack would read of anyone else
    (``odds.unread``). The hits still to resolve (``to_hit``) and the reactors still to come
    (``reacted``) narrow who can still be hit, a hit at a time."""

    reactors: tuple[str, ...] | None = None
    # How many of ``reactors`` have made their Reaction attacks (step 7's loop); the next one
    # is the reactor attacking now.
    reacted: int = 0
    # The command's attacker, once its own step 6 begins (None before: its targets unknown).
    attacker: str | None = None
    # The targets of the hits the attack now in step 6 has still to resolve, the one being
    # resolved included (N23 CC 6, a hit at a time); None before that attack's step 6.
    to_hit: tuple[str, ...] | None = None
    # Once the hit being resolved has wounded, the most Flesh Wounds it can still inflict: one
    # a die of its Injury dice, at most one a point of Damage and at least one (Resolving Hits
    # 3); None before.
    injuring: int | None = None

    def resolved(self) -> None:
        """The hit being resolved is done with: its target is no longer to be hit by it."""
        self.injuring = None
        if self.to_hit:
            self.to_hit = self.to_hit[1:]


@dataclass(frozen=True)
class Combat:
    """The fixed facts of one command: the book's rules (``edition``), the rulings in force and
    the command's number (``ctx``), and its Nerve-test record."""

    edition: Edition
    ctx: Context
    nerve: NerveLog = field(default_factory=NerveLog)
    # Who has chosen weapons in this command (step 2): a fighter attacks once a command, so
    # its ammunition is not read again within it (``odds.unread``). A sorted list, not a set:
    # the odds write it into a key as it iterates, and a set's order hangs on the process's
    # string hashing (PYTHONHASHSEED), so equal sets could be written apart in one process and
    # alike in another (the same answer, another count of runs).
    chose_weapons: list[str] = field(default_factory=list)
    struck: Struck = field(default_factory=Struck)

    def rule(self, section: str) -> str:
        return self.edition.rule(section)

    def attack(self, attacker: str) -> Attack:
        """The acting fighter's attack sequence (its dice and choice keys have no prefix)."""
        return Attack(combat=self, attacker=attacker)


@dataclass(frozen=True)
class Attack:
    """One fighter's close combat attacks within a command. ``key`` prefixes its dice and choice
    keys ("react/<id>/" for Reaction attacks); ``turned`` is the cause of the -1 for turning to
    face, if it applies; ``out_of_sight``: the free Fight after charging an unseen fighter."""

    combat: Combat
    attacker: str
    key: str = ""
    reaction: bool = False
    turned: str | None = None
    out_of_sight: bool = False

    @property
    def edition(self) -> Edition:
        return self.combat.edition

    @property
    def ctx(self) -> Context:
        return self.combat.ctx

    def rule(self, section: str) -> str:
        return self.combat.edition.rule(section)


# Record a rule step; return the state with it folded in: ``core.emit`` itself, no generator
# of its own around it (a procedure yields through every generator it is in, at every step).
emit: Callable[[Event], Generator[Step, Any, NecromundaState]] = functools.partial(
    core.emit, state_type=NecromundaState
)
