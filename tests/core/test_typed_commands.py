"""The one typed command syntax every game system shares (``replay/engine/typed.py``): every command a
battle can give reads back from what ``format_command`` writes; errors name the command, the
field and what was expected; the syntax lines match docs/playing.md."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from blowbyblow.domain.core import CommandIssued
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.engine.typed import (
    TypedCommandError,
    format_command,
    parse_command,
    syntax,
    tokens,
)

from bxbtest import RULESET_IDS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "playing.md"


def commands_seen(ruleset_id: str) -> list[Any]:
    """The demo's commands, and every command offered in every state of the demo (each built
    with each value it allows)."""
    system = get_game_system(ruleset_id)
    played = play(system.demo())
    found = [e.command for e in played.events if isinstance(e, CommandIssued)]
    rulings = played.events[0].rulings  # type: ignore[attr-defined]
    cut = [i for i, e in enumerate(played.events, start=1) if isinstance(e, CommandIssued)]
    for position in [1, *(c - 1 for c in cut[1:]), len(played.events)]:
        state = fold_battle(system, played.events, position)
        for option in system.legal_commands(state, rulings):
            found.append(system.build_command(option))
            for name, allowed in option.options.items():
                found.extend(system.build_command(option, {name: v}) for v in allowed)
    return found


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_command_reads_back_from_its_typed_form(ruleset_id: str) -> None:
    system = get_game_system(ruleset_id)
    commands = commands_seen(ruleset_id)
    assert len(commands) > 3
    for command in commands:
        text = format_command(command)
        assert parse_command(system, text) == command, text


def test_lists_tables_and_toml_values() -> None:
    necro = get_game_system("necromunda-2023")
    typed = parse_command(
        necro, "charge attacker=grax targets=nyx weapons=hammer,stub-gun across=nyx:pipe"
    )
    same = parse_command(
        necro,
        'charge attacker=grax targets=["nyx"] weapons=[ "hammer", "stub-gun" ] '
        'across={nyx = "pipe"}',
    )
    assert typed == same
    assert typed.across == {"nyx": "pipe"} and typed.weapons == ("hammer", "stub-gun")
    asl = get_game_system("asl")
    cc = parse_command(
        asl,
        "closecombat turn=1 attacker=German location=X3 attacks.by=g-467a,g-81 "
        "attacks.targets=r-447a attacks.by=r-447b attacks.targets=g-467b attacks.capture=yes",
    )
    assert [(a.by, a.targets, a.capture) for a in cc.attacks] == [
        (["g-467a", "g-81"], ["r-447a"], False),
        (["r-447b"], ["g-467b"], True),
    ]
    extra = parse_command(
        asl,
        'closecombat turn=1 attacker=German location=X3 attacks=[{by=["g-467a"], '
        'targets=["r-447a"], extra=[{value=1, cause="wire in the hex"}]}]',
    )
    assert extra.attacks[0].extra[0].cause == "wire in the hex"
    assert parse_command(asl, format_command(extra)) == extra


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no command given"),
        (
            "dance attacker=grax",
            "'dance' is not a command of necromunda-2023; expected one of: fight, charge",
        ),
        (
            "charge attacker=grax tragets=nyx",
            "charge: no field 'tragets'; its fields: attacker, targets",
        ),
        ("charge attacker=grax", "charge: Object missing required field `targets`"),
        ("charge grax", "charge: expected FIELD=VALUE, not 'grax'"),
        ("charge attacker=grax targets=nyx across=nyx", "across: expected name:value pairs"),
        (
            "charge attacker=grax targets=nyx facing=nyx:behind",
            "charge: facing[...]: Invalid enum value 'behind' (expected: charge attacker=NAME targets=NAME,… [out_of_sight=NAME,…] [across=NAME:NAME,…] [facing=NAME:front|on|rear|side,…]",
        ),
        ('charge attacker=grax targets=["nyx"', "unbalanced ']'"),
        ("fight attacker=grax charging=perhaps", "charging: expected yes or no, not 'perhaps'"),
        ("charge attacker.x=grax targets=nyx", "charge: attacker is not a list of tables"),
    ],
)
def test_errors_name_the_field_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(TypedCommandError) as caught:
        parse_command(get_game_system("necromunda-2023"), text)
    assert message in str(caught.value)


def test_tokens_keep_brackets_and_quotes_whole() -> None:
    assert tokens('a b={x = "1 2", y = [3, 4]} c="d e" f') == [
        "a",
        'b={x = "1 2", y = [3, 4]}',
        'c="d e"',
        "f",
    ]


def test_random_commands_read_back() -> None:
    """Commands made at random from the offered options of many states of a played battle."""
    system = get_game_system("gangfight")
    played = play(system.demo())
    rng = random.Random(7)
    rulings = played.events[0].rulings  # type: ignore[attr-defined]
    for position in range(1, len(played.events) + 1, 5):
        state = fold_battle(system, played.events, position)
        for option in system.legal_commands(state, rulings):
            picks = {k: rng.choice(v) for k, v in option.options.items()}
            command = system.build_command(option, picks)
            assert parse_command(system, format_command(command)) == command


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_docs_show_each_systems_syntax_as_the_code_reads_it(ruleset_id: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    for line in syntax(get_game_system(ruleset_id)):
        assert line in text, f"docs/playing.md lacks: {line}"
