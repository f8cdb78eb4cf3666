"""What-if: re-run a recorded battle's commands with the same recorded inputs under other
rulings (or another version of the same game), and show where the outcome first diverges.
The battle is taken as played: its voided commands are neither re-run nor compared.

A roll the new path makes that the original did not is drawn from the battle's seed by its key
(seeded battles, and fair battles once sealed), or reported as *needs a die* for physical dice.
The original battle is never written to."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    Event,
)
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.projections.battle import fold_battle, standing
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.engine.dice import (
    DiceError,
    RecordedChoices,
    RecordedDice,
    SeededDice,
    recorded_inputs,
)
from blowbyblow.replay.engine.driver import Table, Turn, adjudicate_commands
from blowbyblow.replay.engine.numbers import whole_number
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.unbounded import Unbounded
from blowbyblow.replay.evidence.fairness import dice_seed, start_length
from blowbyblow.replay.store.log import LoggedEvent


class WhatIfError(BlowByBlowError):
    pass


@dataclass
class WhatIf:
    original: list[Event]
    alternative: list[Event]
    ruleset: AnyGameSystem
    original_ruleset: AnyGameSystem
    original_state: Any
    alternative_state: Any
    divergence: int | None  # first position (1-based) whose events differ, None if none
    needs_die: list[str] = field(default_factory=list)
    stopped: str = ""  # why the re-run stopped early, if it did
    fresh_dice: list[str] = field(default_factory=list)  # keys drawn from the seed
    # Where each event of ``original`` stands in the battle's log: the original is the battle as
    # played, without its voided commands, so its n-th event may stand later in the log.
    original_positions: list[int] = field(default_factory=list)
    # The steps a re-run that stopped inside a command took in it: shown, and compared, but not
    # part of ``alternative`` (whole commands only: what can be saved and verified).
    under_way: list[Event] = field(default_factory=list)

    @property
    def shown(self) -> list[Event]:
        """The what-if as far as it went: its whole commands, then the stopped one's steps."""
        return [*self.alternative, *self.under_way]

    def log_position(self, n: int) -> int:
        """The log position of the original's ``n``-th event (1-based)."""
        return self.original_positions[n - 1] if n <= len(self.original_positions) else n


def parse_rulings(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise WhatIfError(f"--ruling: expected NAME=VALUE, not {pair!r}")
        out[name.strip()] = value.strip()
    return out


def parse_dice(pairs: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """``--die KEY=VALUES``: the values of a roll the original never made, by its key."""
    out: dict[str, tuple[int, ...]] = {}
    for pair in pairs:
        key, sep, values = pair.partition("=")
        words = [whole_number(w) for w in values.replace(",", " ").split()]
        faces = [w for w in words if w is not None]
        if not sep or not key.strip() or not words or len(faces) < len(words):
            raise WhatIfError(f"--die: expected KEY=VALUES such as c2/injury/nyx=3, not {pair!r}")
        if any(not 1 <= w <= 1000 for w in faces):
            raise WhatIfError(f"--die {pair}: a die shows 1 to 1000 at most")
        out[key.strip()] = tuple(faces)
    return out


class _DrawFromSeed(SeededDice):
    def __init__(self, seed: str, drawn: list[str]) -> None:
        super().__init__(seed)
        self.drawn = drawn

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        self.drawn.append(key)
        return super().roll(key, n, sides, purpose)


def what_if(
    events: Sequence[LoggedEvent],
    rulings: Mapping[str, str],
    ruleset_id: str | None = None,
    dice: Mapping[str, tuple[int, ...]] | None = None,
) -> WhatIf:
    """Re-run the battle ``events`` under ``rulings`` (changed from those it was recorded under)
    and, with ``ruleset_id``, under another version of its game. ``dice``: rolls the original
    never made, by key, given for a battle whose dice cannot be drawn (physical dice): the
    re-run takes them where the rules ask for them, as ``imported`` dice."""
    if not events or not isinstance(events[0].event, BattleStarted):
        raise WhatIfError("the battle has no BattleStarted")
    first: BattleStarted[Any] = events[0].event
    # The battle as played: a voided command is not re-run, and its dice are not reused.
    played = standing([e.event for e in events])
    sealed = played.pop()[1] if isinstance(played[-1][1], BattleSealed) else None
    # A fair battle's seed is drawn from its start (escrow, contributions): the re-run is not
    # fair itself, it reuses the dice, so those events are not part of what is compared.
    opening = start_length([event for _, event in played])
    seed = _seed(first, sealed, [event for _, event in played])
    played = [played[0], *played[opening:]]
    body = [event for _, event in played]
    original_rs = get_game_system(first.ruleset)
    ruleset = get_game_system(ruleset_id) if ruleset_id else original_rs
    if ruleset.game != original_rs.game:
        raise WhatIfError(
            f"--ruleset {ruleset.id}: a what-if re-runs the same game; this battle is {original_rs.id}"
        )
    started = _restart(first, ruleset, rulings, origin=str(events[0].originator_id))
    drawn: list[str] = []
    recorded, choices = recorded_inputs(body)
    given = {key: (values, "imported") for key, values in (dice or {}).items()}
    recorded_dice = RecordedDice(
        {**given, **recorded},  # a roll the original made is its own; the others as given
        fallback=_DrawFromSeed(seed, drawn) if seed is not None else None,
    )
    table = Table(
        system=ruleset,
        rulings=started.rulings,
        dice=recorded_dice,
        choices=RecordedChoices(choices),
        quiet=True,
    )
    alternative, state, stopped, under_way = _rerun(table, started, body)
    return WhatIf(
        original=body,
        alternative=alternative,
        ruleset=ruleset,
        original_ruleset=original_rs,
        original_state=fold_battle(original_rs, body),
        alternative_state=state,
        divergence=first_divergence(body, [*alternative, *under_way], skip_start=True),
        needs_die=list(recorded_dice.missing),
        stopped=stopped,
        fresh_dice=drawn,
        original_positions=[position for position, _ in played],
        under_way=under_way,
    )


def _restart(
    first: BattleStarted[Any], ruleset: AnyGameSystem, rulings: Mapping[str, str], origin: str
) -> BattleStarted[Any]:
    """The what-if's first event: the original's, under ``ruleset`` and the rulings changed.
    Rulings the original had that ``ruleset`` has too are carried over."""
    original = get_game_system(first.ruleset)
    in_force = original.rulings_in_force(first.ruleset_version, first.rulings)
    carried = {k: v for k, v in in_force.items() if k in {r.name for r in ruleset.rulings}}
    new_rulings = ruleset.resolve_rulings({**carried, **rulings})
    try:
        # As recorded: a setup outside today's input bounds is evidence all the same (a battle
        # recorded before the bounds), and what-if re-runs it as it was.
        setup = Unbounded(ruleset.setup_type).convert(msgspec.to_builtins(first.setup))
    except msgspec.ValidationError as e:
        raise WhatIfError(f"the setup does not fit {ruleset.id}: {e}") from None
    return msgspec.structs.replace(
        first,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        rulings=new_rulings,
        setup=setup,
        label=f"what-if of {first.label}",
        origin=origin,
    )


def _seed(first: BattleStarted[Any], sealed: Event | None, events: Sequence[Event]) -> str | None:
    """The seed new rolls are drawn from: a seeded battle's, or a sealed fair battle's (mixed
    with the sides' contributions, as its dice were)."""
    if first.dice.mode == "seeded":
        return first.dice.seed
    if first.dice.mode == "fair" and isinstance(sealed, BattleSealed):
        revealed = sealed.checkpoint.seed
        return dice_seed(first, events, revealed) if revealed is not None else None
    return None


def _rerun(
    table: Table, started: BattleStarted[Any], body: Sequence[Event]
) -> tuple[list[Event], Any, str, list[Event]]:
    """The re-run's events (whole commands) and final state, why it stopped early ("" when it
    did not), and the steps it took in the command where it stopped."""
    system = table.system
    turns = (
        Turn(msgspec.convert(msgspec.to_builtins(ev.command), system.command_type))
        for ev in body
        if isinstance(ev, CommandIssued)
    )
    alternative: list[Event] = [started]
    state = fold_battle(system, [started])
    done = 0
    # The events of the command under way, as they are adjudicated: a re-run that stops inside
    # a command keeps the steps it took, so its divergence is found where the events differ.
    under_way: list[Event] = []
    watched = dataclasses.replace(table, observe=under_way.append)
    try:
        for result in adjudicate_commands(watched, state, turns):
            alternative.extend(result.events)
            under_way.clear()
            state = result.state
            done = result.index
    except DiceError as e:
        return (
            alternative,
            state,
            f"command {done + 1} needs a die that was never rolled, at position "
            f"{len(alternative) + len(under_way) + 1}: {e} (give it with --die KEY=VALUES to go on)",
            list(under_way),
        )
    except BlowByBlowError as e:
        why = f"command {done + 1} is not allowed under these rulings: {e}"
        return alternative, state, why, []
    except msgspec.ValidationError as e:
        return alternative, state, f"command {done + 1} does not fit {system.id}: {e}", []
    return alternative, state, "", []


def first_divergence(
    a: Sequence[Event], b: Sequence[Event], *, skip_start: bool = False
) -> int | None:
    """The first position (1-based) whose events differ; None when the two are the same. One
    that ends first (a re-run stopped at a die never rolled) diverges where it ends."""
    for i in range(max(len(a), len(b))):
        if skip_start and i == 0:
            continue
        if i >= len(a) or i >= len(b) or encode(a[i]) != encode(b[i]):
            return i + 1
    return None
