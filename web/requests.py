"""What a request's body becomes: the scenario a table starts (its setup as posted, or the game
system's demo), the command a phone plays (its JSON, or a legal option with picks), each checked
against the game system's schema and the bounds a record holds, the field at fault named."""

from __future__ import annotations

from typing import Any

import msgspec

from blowbyblow.domain.system import AnyGameSystem, OptionError, Scenario
from blowbyblow.replay.battles.head import BattleHead
from blowbyblow.web.errors import ApiError, bounded, validation
from blowbyblow.web.schemas import PlayCommand, StartBattle


def scenario_of(system: AnyGameSystem, tournament: str, table: int, req: StartBattle) -> Any:
    demo = system.demo()
    try:
        setup = demo.setup if req.setup is None else msgspec.convert(req.setup, system.setup_type)
    except msgspec.ValidationError as e:
        raise validation("setup", e, f"the setup schema of {system.id}") from None
    commands = []
    for i, command in enumerate(req.commands):
        try:
            commands.append(msgspec.convert(command, system.command_type))
        except msgspec.ValidationError as e:
            raise validation(f"commands[{i}]", e, f"the command schema of {system.id}") from None
    bounded("setup", setup)
    bounded("commands", commands)
    return Scenario(
        ruleset=system.id,
        label=req.label or f"{tournament} round {req.round} table {table}",
        rulings=req.rulings,
        setup=setup,
        commands=commands,
        dice=None if req.seed is not None else list(req.dice),
        seed=req.seed,
        choices=req.choices,
    )


def command_of(b: BattleHead, req: PlayCommand) -> Any:
    if (req.command is None) == (req.option is None):
        raise ApiError(
            422,
            "command",
            "one command: its JSON, or the index of a legal option",
            "give either command or option",
        )
    if req.command is not None:
        try:
            command = msgspec.convert(req.command, b.system.command_type)
        except msgspec.ValidationError as e:
            raise validation("command", e, f"the command schema of {b.system.id}") from None
        return bounded("command", command)
    options = b.options
    assert req.option is not None
    if not 0 <= req.option < len(options):
        raise ApiError(
            422,
            "option",
            "an option the rules offer now (GET legal)",
            f"option {req.option}: the rules offer {len(options)} now",
        )
    key = (req.option, tuple(sorted(req.picks.items())))
    built = b.built.get(key)  # this head's: each typed roll sends the option again
    if built is None:
        try:
            built = bounded("picks", b.system.build_command(options[req.option], req.picks))
        except OptionError as e:
            raise ApiError(422, "picks", "a value the option allows", str(e)) from None
        b.built[key] = built
    return built


__all__ = ["command_of", "scenario_of"]
