"""Monte Carlo: a command run again and again with seeded dice, its outcomes counted.

Sample ``i`` rolls the dice past ``path`` with the ``bxb-dice-v1`` algorithm from seed ``SEED/i``,
keyed like a battle's dice (``sample``). Every sample does the same until its first seeded roll
(the same state, command, choices and path): that part is run once, the procedure copied where it
stands (``replay/odds/resume.py``, as the graph copies it at a node), and each sample goes on from
a copy of it with its own dice. The counts are those of samples each run from the command's start;
where the procedure cannot be copied, each sample is."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from blowbyblow.domain.core import Event, Roll
from blowbyblow.replay.engine.dice import ExploringDice, seeded_roll
from blowbyblow.replay.engine.driver import Adjudicating, Adjudication, Table
from blowbyblow.replay.odds.continuation import Continuations, Unshared
from blowbyblow.replay.odds.paths import Answer, Command, adjudicator
from blowbyblow.replay.odds.resume import Frozen, NotFrozen, freeze


def sample(
    cmd: Command, samples: int, seed: str, *, path: Sequence[Answer] = ()
) -> dict[Hashable, int]:
    """Counts of each outcome over ``samples`` runs: the dice after ``path`` come from seed
    ``SEED/i`` (``bxb-dice-v1``, keyed like a battle's dice) for sample ``i``, so two calls with
    the same seed agree, and two paths that differ only before their sampled dice share them
    (common random numbers)."""
    counts: dict[Hashable, int] = {}
    if samples < 1:
        return counts
    dice = _SampledDice(seed, path)
    stood = _stand(cmd, dice)
    if isinstance(stood, Adjudication):  # no seeded roll: every sample ends alike
        return {cmd.leaf(stood): samples}
    run = adjudicator(cmd, dice, cmd.choices) if stood is None else stood.go_on
    for i in range(samples):
        dice.seed, dice.depth = f"{seed}/{i}", len(path) if stood is not None else 0
        outcome = cmd.leaf(run())
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


class _SampledDice(ExploringDice):
    source = "sampled"

    def __init__(self, seed: str, path: Sequence[Answer]) -> None:
        self.seed = seed  # the sample's (``sample`` sets it for each)
        self.path = path
        self.depth = 0
        # The shared part's run: it stops at its first seeded roll, which it keeps (``stand``).
        self.halt = False
        self.request: Roll | None = None

    def roll_counted(  # noqa: PLR0913 - the driver's roll, and what the rules read of it
        self,
        key: str,
        n: int,
        sides: int,
        purpose: str,
        counts: tuple[int, ...],
        highest: int,
    ) -> tuple[tuple[int, ...], str]:
        depth = self.depth
        if depth < len(self.path):
            self.depth += 1
            face = self.path[depth]
            assert isinstance(face, tuple)
            return face, self.source
        if self.halt:
            short = key.split("/", 1)[1]
            self.request = Roll(
                key=short, n=n, sides=sides, purpose=purpose, counts=counts, highest=highest
            )
            raise _Halt
        self.depth += 1
        return seeded_roll(self.seed, key, n, sides), self.source


class _Halt(BaseException):
    """Control flow: the shared part's run at its first seeded roll (a BaseException, so that
    no ``except Exception`` of the rules can swallow it)."""


class _Stop(Exception):
    """Control flow: the event the command stops after (``Command.until``) has been folded."""

    def __init__(self, state: Any, event: Event) -> None:
        super().__init__("stop")
        self.state, self.event = state, event


@dataclass
class _Stood:
    """Where every sample stands at its first seeded roll: the procedure by value, the events,
    state and keys asked so far; ``go_on`` runs one sample on from a copy of it."""

    table: Table
    index: int
    frozen: Frozen
    events: list[Event]
    state: Any
    keys: set[str]
    dice: _SampledDice
    again: Callable[[], Adjudication]  # a sample run from the command's start

    def go_on(self) -> Adjudication:
        try:
            procedure = self.frozen.resume()
        except NotFrozen:  # a value met only now cannot be copied: this sample from the start
            self.dice.depth = 0
            return self.again()
        events = list(self.events)
        adjudicating = Adjudicating.resumed(
            self.table,
            self.index,
            events,
            self.state,
            set(self.keys),
            procedure,
            self.frozen.request,
        )
        try:
            return adjudicating.go_on()
        except _Stop as stop:
            return Adjudication(events=[*events, stop.event], state=stop.state, index=self.index)


def _stand(cmd: Command, dice: _SampledDice) -> _Stood | Adjudication | None:
    """Where the samples stand at their first seeded roll (None: the procedure cannot be copied
    there), or the command's end when it meets no seeded roll."""
    system = cmd.table.system
    procedure, fold, until = system.procedure, system.evolve, cmd.until
    table = dataclasses.replace(cmd.table, dice=dice, choices=cmd.choices, quiet=True)
    made: list[Any] = []
    events: list[Event] = []
    folded: list[Any] = [cmd.state]

    def stopping(state: Any, event: Event) -> Any:
        state = fold(state, event)
        if until is not None and until(event):
            raise _Stop(state, event)
        return state

    def watched_procedure(state: Any, command: Any, ctx: Any) -> Any:
        made.append(procedure(state, command, ctx))
        return made[-1]

    def watched(state: Any, event: Event) -> Any:
        state = stopping(state, event)
        folded[0] = state
        events.append(event)
        return state

    system_watched = dataclasses.replace(system, procedure=watched_procedure, evolve=watched)
    adjudicating = Adjudicating(
        dataclasses.replace(table, system=system_watched), cmd.state, cmd.command, cmd.index
    )
    dice.halt, dice.depth = True, 0
    try:
        return adjudicating.go_on()
    except _Stop as stop:
        return Adjudication(events=[*events, stop.event], state=stop.state, index=cmd.index)
    except _Halt:
        pass
    finally:
        dice.halt = False
    assert dice.request is not None and made
    written = Continuations(state_type=type(cmd.state))
    try:
        written.key(made[0], folded[0], keep=True)
        assert written.frames is not None
        # Held in place: the samples run one at a time, each done before the next resumes.
        frozen = freeze(made[0], dice.request, written.frames, in_place=True)
    except (Unshared, NotFrozen):
        return None
    finally:
        written.close()
    if until is not None:
        table = dataclasses.replace(table, system=dataclasses.replace(system, evolve=stopping))
    return _Stood(
        table=table,
        index=cmd.index,
        frozen=frozen,
        events=events,
        state=folded[0],
        keys=adjudicating.asked(),
        dice=dice,
        again=adjudicator(cmd, dice, cmd.choices),
    )


__all__ = ["sample"]
