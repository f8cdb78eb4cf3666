"""Settling a dispute at the table: ``bxb flag`` (a player says a command is disputed), ``bxb
rule`` (a judge's ruling that it stands), ``bxb note`` (a judge's note on an event) and ``bxb
fork`` (a judge rewinds the battle to a position and the table goes on in a child battle). At
the command line the judge is whoever holds the judge's key (``--key``); a flag needs none."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from blowbyblow.cli.app import (
    KeyOption,
    NumbersCommand,
    _battle,
    _events,
    app,
    fail,
    open_store,
    say,
)
from blowbyblow.cli.judging import narrate_plain, who_am_i
from blowbyblow.cli.numbers import require_command, require_position
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.judging import (
    Change,
    ChoiceCorrected,
    CommandDropped,
    DieCorrected,
    Rewound,
    RulingChanged,
)
from blowbyblow.projections.disputes import command_position
from blowbyblow.replay.battles.fork import Judge, flag, fork, live_dice, note, rule
from blowbyblow.replay.engine.dice import iter_ints
from blowbyblow.replay.evidence.seals import default_key_dir, load_private_key

BattleOption = Annotated[
    str | None, typer.Option("--battle", help="Battle id, prefix or label (default: the latest).")
]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why, in a few words (recorded).")]
JudgeOption = Annotated[
    str | None, typer.Option("--judge", help="The judge's name (recorded; default: login name).")
]


def _judge(key: Path | None, name: str | None) -> Judge:
    """The judge: whoever holds the judge's key."""
    return Judge(name or who_am_i(), load_private_key(key or default_key_dir() / "judge.key"))


@app.command("flag", cls=NumbersCommand)
def cmd_flag(
    command: Annotated[int, typer.Argument(help="The command's number, as `bxb log` shows it.")],
    reason: ReasonOption,
    battle: BattleOption = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Who flags it (a side; default: login name).")
    ] = None,
) -> None:
    """Flag a command as disputed and call a judge: recorded in the battle, nothing undone."""
    store = open_store()
    bid = _battle(store, battle)
    events = require_command(store, bid, command, "command")
    try:
        logged = flag(
            store, bid, command=command, by=by or who_am_i(), reason=reason, logged=events
        )
    except BlowByBlowError as e:
        fail(str(e), code=1)
    say(f"battle {bid}, position {logged.position}: {narrate_plain(logged)}")


@app.command("rule", cls=NumbersCommand)
def cmd_rule(
    command: Annotated[int, typer.Argument(help="The command's number, as `bxb log` shows it.")],
    reason: ReasonOption,
    battle: BattleOption = None,
    key: KeyOption = None,
    judge: JudgeOption = None,
) -> None:
    """A judge's ruling that a command stands as played, signed with the judge's key. To
    correct it, rewind with `bxb fork` (which records the ruling)."""
    store = open_store()
    bid = _battle(store, battle)
    events = require_command(store, bid, command, "command")
    try:
        who = _judge(key, judge)
        logged = rule(store, bid, command=command, judge=who, reason=reason, logged=events)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    say(f"battle {bid}, position {logged.position}: {narrate_plain(logged)}")


@app.command("note", cls=NumbersCommand)
def cmd_note(
    position: Annotated[int, typer.Argument(help="The event's position, as `bxb log` shows it.")],
    text: Annotated[str, typer.Argument(help="The note (recorded).")],
    battle: BattleOption = None,
    key: KeyOption = None,
    judge: JudgeOption = None,
) -> None:
    """A judge's note on an event, signed with the judge's key."""
    store = open_store()
    bid = _battle(store, battle)
    require_position(store, bid, position, "position")
    try:
        who = _judge(key, judge)
        logged = note(store, bid, position=position, text=text, judge=who)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    say(f"battle {bid}, position {logged.position}: {narrate_plain(logged)}")


def _change(die: str | None, choice: str | None, void: int | None, ruling: str | None) -> Change:
    """The one change the options name (none: a rewind)."""
    given = [x for x in (die, choice, void, ruling) if x is not None]
    if len(given) > 1:
        fail("give one change: --die, --choice, --void or --ruling (none: rewind only)")
    if die is not None:
        key, _, values = die.partition("=")
        try:
            faces = tuple(iter_ints(values))
        except ValueError:
            faces = ()
        if not key.strip() or not faces:
            fail(f"--die: expected KEY=VALUES (c3/hit/1=5, or c3/wound/1=2,6), not {die!r}")
        return DieCorrected(key=key.strip(), values=faces)
    if choice is not None or ruling is not None:
        text = choice if choice is not None else ruling
        assert text is not None
        name, sep, value = text.partition("=")
        option = "--choice" if choice is not None else "--ruling"
        if not sep or not name.strip() or not value.strip():
            fail(f"{option}: expected NAME=VALUE, not {text!r}")
        if choice is not None:
            return ChoiceCorrected(key=name.strip(), answer=value.strip())
        return RulingChanged(name=name.strip(), value=value.strip())
    if void is not None:
        return CommandDropped(index=void)
    return Rewound()


@app.command("fork")
def cmd_fork(  # noqa: PLR0913 - typer makes each parameter a command-line option
    reason: ReasonOption,
    battle: BattleOption = None,
    at: Annotated[
        int | None, typer.Option("--at", help="Rewind to this position (as `bxb log` shows it).")
    ] = None,
    before: Annotated[
        int | None,
        typer.Option("--before", help="Rewind to just before this command (its number)."),
    ] = None,
    die: Annotated[
        str | None, typer.Option("--die", help="A corrected die: KEY=VALUES (c3/hit/1=5).")
    ] = None,
    choice: Annotated[
        str | None, typer.Option("--choice", help="A corrected choice: KEY=ANSWER.")
    ] = None,
    void: Annotated[
        int | None, typer.Option("--void", help="A command not played (its number).")
    ] = None,
    ruling: Annotated[
        str | None, typer.Option("--ruling", help="Another ruling: NAME=VALUE.")
    ] = None,
    key: KeyOption = None,
    judge: JudgeOption = None,
) -> None:
    """Rewind a battle to a position and go on in a child battle: the parent's later commands
    are played again with their recorded dice and choices, under the change, until one no
    longer applies; then the table plays on live in the child (`bxb play --battle CHILD`).
    The judge's ruling is recorded in the parent, which stays as it was."""
    if (at is None) == (before is None):
        fail("give the position to rewind to: --at POSITION or --before COMMAND (one of them)")
    change = _change(die, choice, void, ruling)
    store = open_store()
    bid = _battle(store, battle)
    if at is not None:
        require_position(store, bid, at, "--at")
    events = None  # the battle read once, by the first check that needs it
    for number, option in ((before, "--before"), (void, "--void")):
        if number is not None:
            events = require_command(store, bid, number, option, events)
    events = _events(store, bid) if events is None else events  # --at alone: read here
    try:
        who = _judge(key, judge)
        position = at
        if before is not None:
            position = command_position([e.event for e in events], before) - 1
        assert position is not None
        dice = live_dice(store, bid, key=who.key, logged=events)
        forked = fork(
            store,
            bid,
            position=position,
            change=change,
            judge=who,
            reason=reason,
            dice=dice,
            logged=events,
        )
    except (BlowByBlowError, ValueError) as e:
        fail(str(e), code=1)
    say(f"battle {bid} is superseded by battle {forked.child}, forked at position {position}")
    say(
        f"kept {forked.kept} command(s) as played, replayed {forked.replayed} under the change"
        + (f"; stopped: {forked.stopped}" if forked.stopped else "; nothing left to replay")
    )
    say(f"go on with: bxb play --battle {forked.child}")
