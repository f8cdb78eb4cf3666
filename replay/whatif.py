"""What-if: re-run a recorded battle's commands with the same recorded inputs under other
rulings (or another version of the same game), and show where the outcome first diverges.

A roll the new path makes that the original did not is drawn from the battle's seed by its key
(seeded battles, and fair battles once sealed), or reported as *needs a die* for physical dice.
The original battle is never written to."""

from __future__ import annotations

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
from blowbyblow.domain.system import AnyGameSystem
from blowbyblow.replay.codec import encode
from blowbyblow.replay.dice import (
    DiceError,
    RecordedChoices,
    RecordedDice,
    SeededDice,
    recorded_inputs,
)
from blowbyblow.replay.driver import adjudicate
from blowbyblow.replay.judging import BattleSealed
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.store import LoggedEvent


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


def parse_rulings(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise WhatIfError(f"--ruling: expected NAME=VALUE, not {pair!r}")
        out[name.strip()] = value.strip()
    return out


class _DrawFromSeed(SeededDice):
    def __init__(self, seed: str, drawn: list[str]) -> None:
        super().__init__(seed)
        self.drawn = drawn

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        self.drawn.append(key)
        return super().roll(key, n, sides, purpose)


def what_if(
    events: Sequence[LoggedEvent], rulings: Mapping[str, str], ruleset_id: str | None = None
) -> WhatIf:
    if not events or not isinstance(events[0].event, BattleStarted):
        raise WhatIfError("the battle has no BattleStarted")
    first: BattleStarted[Any] = events[0].event
    original_rs = get_game_system(first.ruleset)
    ruleset = get_game_system(ruleset_id) if ruleset_id else original_rs
    body = [e.event for e in events]
    sealed = body[-1] if isinstance(body[-1], BattleSealed) else None
    if sealed is not None:
        body = body[:-1]
    game = ruleset.id.split("-")[0]
    if ruleset is not original_rs and original_rs.id.split("-")[0] != game:
        raise WhatIfError(
            f"--ruleset {ruleset.id}: a what-if re-runs the same game; this battle is {original_rs.id}"
        )
    carried = {k: v for k, v in first.rulings.items() if k in {r.name for r in ruleset.rulings}}
    new_rulings = ruleset.resolve_rulings({**carried, **rulings})
    try:
        setup = msgspec.convert(msgspec.to_builtins(first.setup), ruleset.setup_type)
    except msgspec.ValidationError as e:
        raise WhatIfError(f"the setup does not fit {ruleset.id}: {e}") from None
    seed = (
        first.dice.seed
        if first.dice.mode == "seeded"
        else (sealed.checkpoint.seed if sealed is not None and first.dice.mode == "fair" else None)
    )

    dice, choices = recorded_inputs(body)
    commands = [ev.command for ev in body if isinstance(ev, CommandIssued)]
    drawn: list[str] = []
    fallback = _DrawFromSeed(seed, drawn) if seed is not None else None
    recorded_dice = RecordedDice(dice, fallback=fallback)

    started = msgspec.structs.replace(
        first,
        ruleset=ruleset.id,
        ruleset_version=ruleset.version,
        rulings=new_rulings,
        setup=setup,
        label=f"what-if of {first.label}",
        origin=str(events[0].originator_id),
    )
    alternative: list[Event] = [started]
    state = ruleset.initial_state(setup)
    stopped = ""
    for index, command in enumerate(commands, start=1):
        try:
            command = msgspec.convert(msgspec.to_builtins(command), ruleset.command_type)
            result = adjudicate(
                ruleset,
                state,
                command,
                index=index,
                rulings=new_rulings,
                dice=recorded_dice,
                choices=RecordedChoices(choices),
                quiet=True,
            )
        except DiceError as e:
            stopped = f"command {index} needs a die that was never rolled: {e}"
            break
        except BlowByBlowError as e:
            stopped = f"command {index} is not allowed under these rulings: {e}"
            break
        except msgspec.ValidationError as e:
            stopped = f"command {index} does not fit {ruleset.id}: {e}"
            break
        alternative.extend(result.events)
        state = result.state
    original_state = state_after(original_rs, first, body)
    divergence = first_divergence(body, alternative, skip_start=True)
    return WhatIf(
        original=body,
        alternative=alternative,
        ruleset=ruleset,
        original_ruleset=original_rs,
        original_state=original_state,
        alternative_state=state,
        divergence=divergence,
        needs_die=list(recorded_dice.missing),
        stopped=stopped,
        fresh_dice=drawn,
    )


def state_after(ruleset: AnyGameSystem, first: BattleStarted[Any], body: Sequence[Event]) -> Any:
    state = ruleset.initial_state(first.setup)
    for ev in body[1:]:
        state = ruleset.evolve(state, ev)
    return state


def first_divergence(
    a: Sequence[Event], b: Sequence[Event], *, skip_start: bool = False
) -> int | None:
    """The first position (1-based) whose events differ; None when the two are the same."""
    for i in range(max(len(a), len(b))):
        if skip_start and i == 0:
            continue
        if i >= len(a) or i >= len(b) or encode(a[i]) != encode(b[i]):
            return i + 1
    return None
